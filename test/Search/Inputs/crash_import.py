#!/usr/bin/env python3
"""Kill -9 a `cuda-opt db import` of many rows mid-way, then check the DB.

  crash_import.py CUDA_OPT DB FILE.jsonl TOTAL

Starts the import, waits until some rows are committed (polling the
database, which WAL lets us read while it is written), kills the importer
with SIGKILL, then prints the integrity check and whether the row count is
between 0 and TOTAL. Rows are committed one transaction each, so the count
is exactly the rows the importer got through.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import time

cuda_opt, db, rows, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
p = subprocess.Popen([cuda_opt, "db", "import", rows, "--db", db],
                     stderr=subprocess.DEVNULL)
count = 0
deadline = time.time() + 120
while time.time() < deadline and p.poll() is None:
    if not os.path.exists(db):
        time.sleep(0.001)
        continue
    try:
        # Read-only: never create the file ourselves.
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5)
        count = c.execute("select count(*) from measurements").fetchone()[0]
        c.close()
    except sqlite3.Error:
        count = 0  # Not created yet.
    if count > 0:
        break
    time.sleep(0.001)
killed_midway = p.poll() is None
if killed_midway:
    os.kill(p.pid, signal.SIGKILL)
p.wait()
c = sqlite3.connect(db)
print("integrity:", c.execute("pragma integrity_check").fetchone()[0])
n = c.execute("select count(*) from measurements").fetchone()[0]
print("count in range:", 0 <= n <= total)
# For the log: how far it got (all of them if it finished first).
print("killed mid-way:", killed_midway, "rows:", n, "of", total,
      file=sys.stderr)
