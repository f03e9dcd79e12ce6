#!/usr/bin/env python3
"""A/B of two gemm-bench runs over the same shapes: per shape, our final
median in each run, the ratio, and cuBLAS's in each run (a drift check);
then geomeans.

Usage: ab.py a.jsonl b.jsonl
"""

import json
import math
import sys


def load(path):
    rows = {}
    for line in open(path):
        d = json.loads(line)
        if "M" in d and "ours" in d:
            rows[(d["M"], d["N"], d["K"], d["type"], d["layout"])] = d
    return rows


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ours, cub, vs_a, vs_b = [], [], [], []
    for k in sorted(set(a) & set(b)):
        oa, ob = a[k]["ours"]["ms"] * 1e3, b[k]["ours"]["ms"] * 1e3
        ca, cb = a[k]["cublas"]["ms"] * 1e3, b[k]["cublas"]["ms"] * 1e3
        ours.append(oa / ob)
        cub.append(ca / cb)
        vs_a.append(ca / oa)
        vs_b.append(cb / ob)
        print(f"{k[0]}x{k[1]}x{k[2]} {k[3]}/{k[4]}: ours {oa:.2f} -> {ob:.2f} "
              f"us (x{oa / ob:.3f}), cublas {ca:.2f} / {cb:.2f}, vs cublas "
              f"{ca / oa:.3f} -> {cb / ob:.3f}  {b[k]['ours_plan']}")
    print(f"geomean: ours x{geomean(ours):.3f}, cublas drift x{geomean(cub):.3f}"
          f", vs cublas {geomean(vs_a):.3f} -> {geomean(vs_b):.3f}")


if __name__ == "__main__":
    main()
