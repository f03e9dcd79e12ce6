#!/usr/bin/env python3
"""Check a dry-run tune-batch against the database it recorded into.

  check_batch.py OUTDIR EXPORT.jsonl

OUTDIR is tune-batch's -o (tune-batch.json names each shard's files and
outputs); EXPORT.jsonl is `cuda-opt db export` of the database. Every
candidate a shard's tune report lists must be one not-measured row of the
database, and every not-measured row must be such a candidate: prints how
many were expected, found, lost and doubled.
"""
import collections
import json
import sys

out, export = sys.argv[1], sys.argv[2]
batch = json.load(open(out + "/tune-batch.json"))
expected = collections.Counter()
files = 0
for shard in batch["shards"]:
    for f in shard["files"]:
        files += 1
        report = json.load(open(f["output"] + ".report.json"))
        for c in report["candidates"]:
            if c["status"] == "candidate":
                expected[(f["file"], c["kernel"], c["pipeline"])] += 1
rows = collections.Counter()
measured = 0
for line in open(export):
    r = json.loads(line)
    if r["verdict"] != "not-measured":
        measured += 1
        continue
    rows[(r["source"], r["kernel"], r["pipeline"])] += 1
lost = sum((expected - rows).values())
extra = sum((rows - expected).values())
doubled = sum(n - 1 for n in rows.values() if n > 1)
print("files:", files, "shards:", len(batch["shards"]))
print("candidates:", sum(expected.values()), "not-measured rows:",
      sum(rows.values()), "measured rows:", measured)
print("lost:", lost, "doubled:", doubled, "unexpected:", extra)
print("rows match the candidates:", lost == 0 and extra == 0 and doubled == 0
      and sum(expected.values()) > 0)
