"""Run the worker's fp-model checks on planted variants (Inputs/rowsum.cu).

Under fp_model "reassoc" a float output is checked against the fp64 shadow of
the original: a correct warp-per-row sum (another order) must pass, a dropped
last term, a skipped last row and an fp16 accumulator must not. Under
"strict" only the bitwise-equal copy passes. Integer outputs (row argmax with
ties) stay exact: the wrong tie-break is rejected.
"""
import argparse
import json
import os
import subprocess
import sys

ROWS, COLS = 16384, 4096

# (job name, fp_model, shadow?, kernel family, variant, expected, reason)
CASES = [
    ("reassoc", "reassoc", True, "sum", "warp_rows", "verified", "fp64"),
    ("reassoc", "reassoc", True, "sum", "drops_last_term", "rejected",
     "fp64 reference"),
    ("reassoc", "reassoc", True, "sum", "skips_last_row", "rejected",
     "elements differ"),
    ("reassoc", "reassoc", True, "sum", "half_accumulator", "rejected",
     "fp64 reference"),
    ("reassoc", "reassoc", True, "sum", "same", "verified", "fp64"),
    ("strict", "strict", False, "sum", "warp_rows", "rejected",
     "elements differ"),
    ("strict", "strict", False, "sum", "same", "verified", "bitwise"),
    ("argmax", "reassoc", False, "argmax", "argmax_warp", "verified", None),
    ("argmax", "reassoc", False, "argmax", "argmax_last_wins", "rejected",
     "elements differ"),
]


def job(cubin, fp_model, shadow, family, variants):
    base = "original" if family == "sum" else "argmax_original"
    thread_per_row = {"grid": [(ROWS + 255) // 256], "block": [256]}
    warp_per_row = {"grid": [132 * 8], "block": [256]}
    vs = [dict(id="original", module=cubin, entry=base, **thread_per_row)]
    for v in variants:
        launch = thread_per_row if v == "same" else warp_per_row
        vs.append(dict(id=v, module=cubin, entry=v, **launch))
    out = ({"name": "out", "kind": "buffer", "dtype": "f32", "count": ROWS,
            "output": True, "input": False} if family == "sum" else
           {"name": "idx", "kind": "buffer", "dtype": "i32", "count": ROWS,
            "output": True, "input": False})
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
         "fp_model": fp_model}
    if shadow:
        j["shadow"] = {"module": cubin, "entry": "original__cuda_opt_fp64",
                       "promote": [True, True, False, False]}
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cubin = os.path.abspath(args.cubin)
    failures = []
    jobs = {}
    for name, model, shadow, family, variant, _, _ in CASES:
        jobs.setdefault(name, (model, shadow, family, []))[3].append(variant)
    results = {}
    for name, (model, shadow, family, variants) in jobs.items():
        jpath = os.path.join(args.work, name + ".job.json")
        rpath = os.path.join(args.work, name + ".result.json")
        with open(jpath, "w") as f:
            json.dump(job(cubin, model, shadow, family, variants), f)
        p = subprocess.run([args.worker, jpath, rpath], capture_output=True,
                           text=True, timeout=300)
        r = json.load(open(rpath)) if os.path.exists(rpath) else {}
        if p.returncode != 0:
            print("%s: worker exit %d: %s %s" % (name, p.returncode,
                                                 r.get("error"), p.stderr))
            return 1
        if shadow and not r.get("shadow", {}).get("used"):
            failures.append("%s: shadow not used: %s" % (name, r.get("shadow")))
        results[name] = {v["id"]: v for v in r["variants"]}
        print("%s: shadow %s" % (name, r.get("shadow")))
    for name, _, _, _, variant, want, why in CASES:
        v = results[name][variant]
        got = "verified" if v["verified"] else "rejected"
        msg = v.get("error") or "check %s, fp64 error %s (%.2fx the original's)" % (
            v.get("check"), v.get("fp64_error"), v.get("fp64_error_ratio", 0))
        text = msg + " " + str(v.get("check"))
        ok = got == want and (why is None or why in text)
        print("%-8s %-18s %-9s %s %s" % (name, variant, got,
                                         "ok  " if ok else "FAIL", msg))
        if not ok:
            failures.append("%s/%s" % (name, variant))
    if failures:
        print("not as expected: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
