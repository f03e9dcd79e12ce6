#!/usr/bin/env python3
"""Plot bench/results/spmm-h200.json: the current kernel's geomean speedup
over cuBLAS vs N per sparsity and pruning pattern (the shapes run), the
earlier kernels at 50% i.i.d. (attached under "previous": the format v1
grid and the format v2 four-shape run, both timed with the memset-only L2
flush), the current kernel on those four shapes with that flush
("dirty_flush_4_shapes"), and cuSPARSELt 2:4 at 50% i.i.d.
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


def series(rows, key, pattern="iid", sparsity=50, shapes=None):
    out = {}
    for r in rows:
        if r["pattern"] != pattern or r["sparsity"] != sparsity:
            continue
        if shapes is not None and (r["M"], r["K"]) not in shapes:
            continue
        v = r.get(key)
        if isinstance(v, (int, float)):
            out.setdefault(r["N"], []).append(v)
    return sorted((n, geomean(v), len(v)) for n, v in out.items())


def main():
    d = json.load(open(sys.argv[1]))
    cur = d["results"]
    fig, ax = plt.subplots(figsize=(8, 5))
    combos = sorted({(r["pattern"], r["sparsity"]) for r in cur})
    for pat, sp in combos:
        pts = series(cur, "speedup_vs_cublas", pat, sp)
        shapes = max(p[2] for p in pts)
        ax.plot([p[0] for p in pts], [p[1] for p in pts],
                "o-" if pat == "iid" else "d--",
                label="stream-K kernel, %s %d%% (%d shapes)" % (pat, sp, shapes))
    prev = d.get("previous")
    if prev:
        old = prev["v1_kernel_grid"]["results"]
        pts = series(old, "speedup_vs_cublas")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "^:", color="gray",
                label="format v1 kernel, iid 50% (31 shapes, memset flush)")
        pts = series(prev["results"], "speedup_vs_cublas")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "s:", color="silver",
                label="format v2 kernel before, iid 50% (4 shapes, memset flush)")
    dirty = d.get("dirty_flush_4_shapes")
    if dirty:
        pts = series(dirty["results"], "speedup_vs_cublas")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "s-.", color="tab:brown",
                label="stream-K kernel, iid 50% (same 4 shapes, memset flush)")
    cs = {}
    for r in cur:
        if r["pattern"] == "iid" and r["sparsity"] == 50 and r.get("cslt_us"):
            cs.setdefault(r["N"], []).append(
                r["cublas_us"]["median"] / r["cslt_us"]["median"])
    pts = sorted((n, geomean(v)) for n, v in cs.items())
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "x:", color="k",
            label="cuSPARSELt 2:4 (W pruned to 2:4), 50% shapes")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.axhline(1.5, color="g", lw=0.8, ls="--", label="target at N <= 32")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (tokens)")
    ax.set_ylabel("geomean speedup over cuBLAS fp16")
    ax.set_title("Three-layer SpMM on H200 (cold, clean L2 unless noted)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
