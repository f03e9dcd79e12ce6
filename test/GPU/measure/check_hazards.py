"""Run the measurement worker on each planted hazard and check the verdict."""
import argparse
import json
import os
import subprocess
import sys

N = 1_000_003
EXPECT = {
    "good": ("verified", None),
    "out_of_bounds": ("rejected", "guard band"),
    "skips_tail": ("rejected", "elements differ"),
    "lower_precision": ("rejected", "elements differ"),
    "clobbers_input": ("rejected", "modified input buffer"),
    "faults": ("crashed", "faulted"),
    "hangs": ("timeout", None),
    # --time: a variant whose turn comes after the job's time limit is
    # skipped, not verified or rejected.
    "good@time0": ("skipped", "time budget"),
    # Racing: a clearly slower correct variant stops being timed early; a
    # good one is timed in full.
    "slow@race": ("stopped", None),
    "good@race": ("verified", None),
}


def job(cubin, variant):
    launch = {"grid": [(N + 255) // 256], "block": [256]}
    entry, _, option = variant.partition("@")
    extra = ({"time_limit_s": 0} if option == "time0" else
             {"race": True} if option == "race" else {})
    return {**extra,
        "variants": [
            dict(id="original", module=cubin, entry="original", **launch),
            dict(id=variant, module=cubin, entry=entry, **launch),
        ],
        "args": [
            {"name": "out", "kind": "buffer", "dtype": "f32", "count": N,
             "output": True, "input": False},
            {"name": "in", "kind": "buffer", "dtype": "f32", "count": N,
             "init": "uniform", "lo": -10, "hi": 10},
            {"name": "n", "kind": "scalar", "dtype": "i32", "value": N},
        ],
        "seeds": [1, 2, 3],
        "timing": {"runs": 20, "warmup": 3},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failures = []
    for variant, (want, why) in EXPECT.items():
        jpath = os.path.join(args.work, variant + ".job.json")
        rpath = os.path.join(args.work, variant + ".result.json")
        with open(jpath, "w") as f:
            json.dump(job(os.path.abspath(args.cubin), variant), f)
        try:
            p = subprocess.run([args.worker, jpath, rpath], capture_output=True,
                               text=True, timeout=30)
            status = p.returncode
        except subprocess.TimeoutExpired:
            status = None
        result = json.load(open(rpath)) if os.path.exists(rpath) else {}
        if status is None:
            got, msg = "timeout", "in progress: %s" % result.get("in_progress")
        elif status == 3:
            got, msg = "crashed", "variant %s faulted: %s" % (
                result.get("crashed_variant"), result.get("crash_error"))
        elif status == 0:
            v = [x for x in result["variants"] if x["id"] == variant][0]
            got = ("stopped" if v.get("stopped_early") else
                   "verified" if v["verified"] else
                   "skipped" if v.get("skipped") else "rejected")
            msg = v.get("error", "speedup %.3f" % v.get("speedup", 0))
        else:
            got, msg = "error", result.get("error", "exit %s" % status)
        ok = got == want and (why is None or why in msg)
        if want == "timeout" and result.get("in_progress") != variant:
            ok = False
        print("%-16s %-9s %s %s" % (variant, got, "ok  " if ok else "FAIL", msg))
        if not ok:
            failures.append(variant)
    if failures:
        print("hazards not caught as expected: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
