"""Checks the candidate table of a tune report (REPORT.md, REPORT.json),
measured or not: the candidates (measured ones first, then the others) come
before the refusals; each (kernel, status, reason) has one refusal row; the
refusal rows' counts add up to the JSON's refusals, which lists each."""
import json
import re
import sys

REFUSALS = {"illegal", "over-budget", "library-call", "needs-program-mode"}
md, js = sys.argv[1], sys.argv[2]
report = json.load(open(js))


def table(header):
    rows, inside = [], False
    for line in open(md):
        if line.startswith(header):
            inside = True
        elif inside and line.startswith("|---"):
            continue
        elif inside and line.startswith("| "):
            # Split on bars that are not escaped (0\|1 is one cell).
            rows.append([c.strip()
                         for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif inside:
            break
    return rows


if report["measured"]:
    # kernel | id | pipeline | status | median ms | ... | detail
    rows = table("| kernel | id | pipeline | status |")
    status = [r[3] for r in rows]
    count_cell = [r[1] for r in rows]
    key = [(r[0], r[3], r[8]) for r in rows]
    measured = [bool(r[4]) for r in rows]
    first_unmeasured = measured.index(False) if False in measured else len(rows)
    assert all(not m for m in measured[first_unmeasured:]), \
        "a measured candidate after an unmeasured one"
else:
    # pass (or what a refusal row covers, and how many) | kernel | result
    rows = table("| pass | kernel | result |")
    status = [r[2].split(":")[0] for r in rows]
    count_cell = [r[0] for r in rows]
    key = [(r[1], r[2]) for r in rows]
assert rows, "no candidate table"
first = next((i for i, s in enumerate(status) if s in REFUSALS), len(rows))
assert all(s not in REFUSALS for s in status[:first]), status
assert all(s in REFUSALS for s in status[first:]), status
groups = key[first:]
assert len(groups) == len(set(groups)), "a reason has more than one row"
counted = 0
for cell in count_cell[first:]:
    m = re.search(r"(\d+) candidates?$", cell)
    assert m, cell
    counted += int(m.group(1))
refused = sum(c["status"] in REFUSALS for c in report["candidates"])
assert counted == refused, (counted, refused)
assert refused == 0 or len(groups) < refused, "nothing was grouped"
if report["measured"]:
    assert report["copy_ceiling_gb_per_s"] == 4234, report.get(
        "copy_ceiling_gb_per_s")
print("ok: %d candidate rows, %d refusals in %d rows"
      % (first, refused, len(groups)))
