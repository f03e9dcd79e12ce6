#!/usr/bin/env python3
"""Run several `cuda-opt db import` processes into one database at once.

  concurrent_import.py CUDA_OPT DB FILE.jsonl...

Starts one import per file, all at the same moment, waits for them, and
checks that every distinct measurement of the files is in DB exactly once
and that the database passes PRAGMA integrity_check.
"""
import json
import sqlite3
import subprocess
import sys

cuda_opt, db, files = sys.argv[1], sys.argv[2], sys.argv[3:]
procs = [subprocess.Popen([cuda_opt, "db", "import", f, "--db", db],
                          stderr=subprocess.PIPE, text=True) for f in files]
failed = False
for p in procs:
    _, err = p.communicate()
    if p.returncode != 0:
        print("import failed:", err)
        failed = True
expected = set()
for f in files:
    for line in open(f):
        r = json.loads(line)
        expected.add((r["kernel_hash"], r["pipeline"], r["host"],
                      r["measured_at"]))
c = sqlite3.connect(db)
rows = c.execute("select kernel_hash, pipeline, host, measured_at "
                 "from measurements").fetchall()
print("integrity:", c.execute("pragma integrity_check").fetchone()[0])
print("rows:", len(rows), "distinct:", len(set(rows)), "expected:",
      len(expected))
print("all present once:", sorted(rows) == sorted(expected))
sys.exit(1 if failed else 0)
