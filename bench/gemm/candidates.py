#!/usr/bin/env python3
"""Prints, per shape of gemm-bench JSON lines, every candidate plan's
tuning-phase median next to the final interleaved times of ours, cuBLAS
and autotuned cuBLASLt: the A/B view of plan options (device-run.sh
clusters).

Usage: candidates.py results.jsonl [more.jsonl ...]
"""

import json
import sys


def main():
    for path in sys.argv[1:]:
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            d = json.loads(line)
            if "M" not in d or d.get("failed"):
                continue
            flop = d["flop"]

            def us(name):
                return d.get(name, {}).get("ms", 0) * 1e3

            ours, cb, lt = us("ours"), us("cublas"), us("lt_auto")
            tf = (lambda t: flop / t / 1e6 if t > 0 else 0)
            print(f"{d['type']}/{d['layout']} {d['M']}x{d['N']}x{d['K']}: "
                  f"ours {ours:.2f} us ({tf(ours):.0f} TF) cublas {cb:.2f} "
                  f"({tf(cb):.0f}) lt_auto {lt:.2f} ({tf(lt):.0f}) "
                  f"x{cb / ours if ours else 0:.3f} vs cublas, "
                  f"x{lt / ours if ours else 0:.3f} vs lt_auto; "
                  f"plan {d['ours_plan']}")
            cands = sorted((c for c in d["candidates"] if c["ms"] > 0),
                           key=lambda c: c["ms"])
            bad = [c["plan"] for c in d["candidates"] if c["relerr"] < 0]
            print("   " + "  ".join(f"{c['plan']} {c['ms'] * 1e3:.2f}"
                                    for c in cands))
            if bad:
                print("   not run or wrong: " + " ".join(bad))


if __name__ == "__main__":
    main()
