"""Run the worker's per-row check and the original's repeated runs on
Inputs/rowscale.cu (rows scaled by 2^(r % 20)).

Against the fp64 shadow, a correct warp-per-row rewrite must pass row by row,
and a planted bug confined to the rows of scale 1 (their mean loses its last
term) must be rejected when the job gives the rows (as the scalar argument
"cols" or as a number), naming the first failing row. Without rows, or with
a row length that does not divide the buffer, the per-buffer bound alone
lets the bug through: that is why the rows matter. The result's "shadow"
says how many runs of the original count and how each output was checked.
"""
import argparse
import json
import os
import subprocess
import sys

ROWS, COLS = 8192, 1024

# (job name, row fields of "out", orig_runs, variant, expected, text in the
# verdict, text in the result's row_checks)
CASES = [
    ("rows", {"row_length_arg": 3}, None, "same", "verified", "fp64",
     "out: per row (8192 rows of cols = 1024)"),
    ("rows", {"row_length_arg": 3}, None, "warp_rows", "verified", "fp64",
     None),
    ("rows", {"row_length_arg": 3}, None, "drops_in_small_rows", "rejected",
     "out: row 0 (rows of 1024 elements)", None),
    ("literal", {"row_length": COLS}, 1, "drops_in_small_rows", "rejected",
     "out: row 0 (rows of 1024 elements)", "out: per row (8192 rows of 1024)"),
    ("buffer", {}, None, "warp_rows", "verified", "fp64", None),
    ("buffer", {}, None, "drops_in_small_rows", "verified", "fp64", None),
    ("nodivide", {"row_length": 1000}, None, "drops_in_small_rows",
     "verified", "fp64", "do not divide its 8388608 elements"),
]


def job(cubin, rows, orig_runs, variants):
    thread_per_row = {"grid": [(ROWS + 255) // 256], "block": [256]}
    warp_per_row = {"grid": [132 * 8], "block": [256]}
    vs = [dict(id="original", module=cubin, entry="original",
               **thread_per_row)]
    for v in variants:
        launch = thread_per_row if v == "same" else warp_per_row
        vs.append(dict(id=v, module=cubin, entry=v, **launch))
    out = {"name": "out", "kind": "buffer", "dtype": "f32",
           "count": ROWS * COLS, "output": True, "input": False}
    out.update(rows)
    j = {"variants": vs,
         "args": [out,
                  {"name": "in", "kind": "buffer", "dtype": "f32",
                   "count": ROWS * COLS, "init": "uniform", "lo": -1,
                   "hi": 1},
                  {"name": "rows", "kind": "scalar", "dtype": "i32",
                   "value": ROWS},
                  {"name": "cols", "kind": "scalar", "dtype": "i32",
                   "value": COLS}],
         "seeds": [1, 2, 3], "timing": {"runs": 5, "warmup": 1},
         "fp_model": "reassoc",
         "shadow": {"module": cubin, "entry": "original__cuda_opt_fp64",
                    "promote": [True, True, False, False]}}
    if orig_runs is not None:
        j["orig_runs"] = orig_runs
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cubin = os.path.abspath(args.cubin)
    jobs = {}
    for name, rows, runs, variant, _, _, _ in CASES:
        jobs.setdefault(name, (rows, runs, []))[2].append(variant)
    results, shadows, failures = {}, {}, []
    for name, (rows, runs, variants) in jobs.items():
        jpath = os.path.join(args.work, name + ".job.json")
        rpath = os.path.join(args.work, name + ".result.json")
        with open(jpath, "w") as f:
            json.dump(job(cubin, rows, runs, variants), f)
        p = subprocess.run([args.worker, jpath, rpath], capture_output=True,
                           text=True, timeout=300)
        r = json.load(open(rpath)) if os.path.exists(rpath) else {}
        if p.returncode != 0:
            print("%s: worker exit %d: %s %s" % (name, p.returncode,
                                                 r.get("error"), p.stderr))
            return 1
        sh = r.get("shadow", {})
        print("%s: shadow %s" % (name, sh))
        if not sh.get("used"):
            failures.append("%s: shadow not used" % name)
        want_runs = runs if runs is not None else 3
        if sh.get("original_runs") != want_runs:
            failures.append("%s: original_runs %s, not %d"
                            % (name, sh.get("original_runs"), want_runs))
        shadows[name] = sh
        results[name] = {v["id"]: v for v in r["variants"]}
    for name, _, _, variant, want, why, note in CASES:
        v = results[name][variant]
        got = "verified" if v["verified"] else "rejected"
        msg = v.get("error") or "check %s, fp64 error %s (%.2fx the original's)" % (
            v.get("check"), v.get("fp64_error"), v.get("fp64_error_ratio", 0))
        text = msg + " " + str(v.get("check"))
        ok = got == want and why in text
        if note is not None and not any(
                note in n for n in shadows[name].get("row_checks", [])):
            ok = False
            msg += " (row_checks %s lack '%s')" % (
                shadows[name].get("row_checks"), note)
        print("%-8s %-20s %-9s %s %s" % (name, variant, got,
                                         "ok  " if ok else "FAIL", msg))
        if not ok:
            failures.append("%s/%s" % (name, variant))
    if failures:
        print("not as expected: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
