#!/usr/bin/env python3
"""Plot bench/results/spmm-h200.json: the current kernel's geomean speedup
over cuBLAS vs N (the shapes it was run on), the previous (format v1) kernel
on the same shapes and on all 31, and cuSPARSELt 2:4 on the same shapes.
Usage: plot_results.py spmm-h200.json out.png"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def series(rows, key, shapes=None):
    out = {}
    for r in rows:
        if r["pattern"] != "iid" or r["sparsity"] != 50:
            continue
        if shapes is not None and (r["M"], r["K"]) not in shapes:
            continue
        v = r.get(key)
        if isinstance(v, (int, float)):
            out.setdefault(r["N"], []).append(v)
    return sorted((n, geomean(v)) for n, v in out.items())


def main():
    d = json.load(open(sys.argv[1]))
    cur = d["results"]
    old = d["v1_kernel_grid"]["results"]
    shapes = {(r["M"], r["K"]) for r in cur}
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for rows, key, sh, label, style in [
        (cur, "speedup_vs_cublas", None, "format v2 kernel (%d shapes)" % len(shapes), "o-"),
        (cur, "tuned_speedup_vs_cublas", None, "format v2, per-shape tuned", "o--"),
        (old, "speedup_vs_cublas", shapes, "format v1 kernel, same shapes", "s:"),
        (old, "speedup_vs_cublas", None, "format v1 kernel, all 31 shapes", "^:"),
    ]:
        pts = series(rows, key, sh)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    cs = {}
    for r in cur:
        if r.get("speedup_vs_cslt"):
            cs.setdefault(r["N"], []).append(r["speedup_vs_cublas"] / r["speedup_vs_cslt"])
    pts = sorted((n, geomean(v)) for n, v in cs.items())
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "x:", color="gray",
            label="cuSPARSELt 2:4 (W pruned to 2:4), same shapes")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.axhline(1.5, color="g", lw=0.8, ls="--", label="target at N <= 32")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (tokens)")
    ax.set_ylabel("geomean speedup over cuBLAS fp16")
    ax.set_title("Three-layer SpMM on H200, 50% i.i.d. sparsity")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
