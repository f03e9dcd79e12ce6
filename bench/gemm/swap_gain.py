#!/usr/bin/env python3
"""What the swapped narrow tiles (runtime Sm90Configs.h, ids 11-13) buy in
gemm-bench runs that timed them beside the other plans: per B-col row, the
chosen plan's time against cublasGemmEx (both timed after tuning, same
run) and the best swapped plan's tuning median against the best other
plan's; geomeans for M <= 16 and M > 16.

Usage: swap_gain.py results.jsonl [more.jsonl ...] [--md]
"""
import json
import math
import sys


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    paths = [a for a in sys.argv[1:] if a != "--md"]
    md = "--md" in sys.argv
    rows = []
    for p in paths:
        rows += [json.loads(l) for l in open(p) if l.strip().startswith("{")]
    res = []
    if md:
        print("| type | M | N | K | ours / cuBLAS | best swapped / best other | chosen plan |")
        print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r.get("layout") != "col" or "candidates" not in r:
            continue
        c = [x for x in r["candidates"] if x.get("ms", 0) > 0]
        sw = [x["ms"] for x in c if x["plan"].startswith("swap")]
        other = [x["ms"] for x in c if not x["plan"].startswith("swap")]
        if not other:
            continue
        ratio = r["cublas"]["ms"] / r["ours"]["ms"]
        gain = min(other) / min(sw) if sw else None
        res.append((r["M"], ratio, gain, r["ours_plan"].startswith("swap")))
        cells = (r["type"], r["M"], r["N"], r["K"], "%.3f" % ratio,
                 "%.3f" % gain if gain else "-", r["ours_plan"])
        print(("| %s | %d | %d | %d | %s | %s | `%s` |" if md else
               "%-5s %5d %6d %6d  ours/cublas %s  swap gain %s  %s") % cells)
    for name, sel in (("M <= 16", lambda m: m <= 16), ("M > 16", lambda m: m > 16)):
        s = [x for x in res if sel(x[0])]
        print("%s%s: %d rows, ours/cuBLAS %.3f, best swapped / best other %.3f, "
              "swapped chosen on %d" % ("\n" if md else "", name, len(s),
                                         geomean([x[1] for x in s]),
                                         geomean([x[2] for x in s if x[2]]),
                                         sum(x[3] for x in s)))


if __name__ == "__main__":
    main()
