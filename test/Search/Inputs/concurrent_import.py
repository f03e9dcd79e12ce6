#!/usr/bin/env python3
"""Run several `cuda-opt db import` processes into one database at once.

  concurrent_import.py CUDA_OPT DB FILE.jsonl...

DB is a SQLite path or a PostgreSQL URL. Starts one import per file, all at
the same moment (on a new database they race to create the schema), waits
for them, exports DB with cuda-opt and checks that every distinct
measurement of the files is there exactly once; a SQLite file must also
pass PRAGMA integrity_check.
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


def key(r):
    return (r["kernel_hash"], r["pipeline"], r["host"], r["measured_at"])


expected = set()
for f in files:
    for line in open(f):
        expected.add(key(json.loads(line)))
if "://" not in db:
    c = sqlite3.connect(db)
    print("integrity:", c.execute("pragma integrity_check").fetchone()[0])
out = subprocess.run([cuda_opt, "db", "export", "--db", db],
                     capture_output=True, text=True, check=True).stdout
rows = [key(json.loads(line)) for line in out.splitlines() if line.strip()]
print("rows:", len(rows), "distinct:", len(set(rows)), "expected:",
      len(expected))
print("all present once:", sorted(rows) == sorted(expected))
sys.exit(1 if failed else 0)
