#!/usr/bin/env python3
"""Summarize spmm-bench JSON output.

usage: summarize.py RESULTS.json [...] [--md OUT.md] [--json OUT.json]
                    [--png OUT.png]

Reads one or more files written by spmm-bench --json (complete or cut short:
records are read line by line), prints geometric-mean speedups of the
three-layer SpMM over cuBLAS (and cuSPARSELt) by pattern, sparsity and N,
lists where dense wins, and optionally writes a merged JSON, a Markdown
report and a PNG plot (speedup vs N per sparsity; needs matplotlib).
"""
import argparse
import json
import math
import sys
from collections import defaultdict


def load(paths):
    meta, rows = {}, []
    for path in paths:
        with open(path) as f:
            for line in f:
                s = line.strip()
                if s.startswith('{"device"') or s.startswith('"device"'):
                    continue
                if s.startswith("{") and s.endswith("}") or s.endswith("},"):
                    s = s.rstrip(",")
                    try:
                        rows.append(json.loads(s))
                    except json.JSONDecodeError:
                        pass
                elif s.startswith("{"):
                    # header line: {"device": ..., "results": [
                    pass
        with open(path) as f:
            head = f.read(400)
        for key in ("device", "cusparselt_version", "reps", "l2_flush"):
            tag = '"%s": ' % key
            if tag in head:
                rest = head.split(tag, 1)[1]
                val = rest.split(",", 1)[0].strip().strip('"')
                meta[key] = val
    return meta, rows


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summarize(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["pattern"], r["sparsity"], r["N"])].append(r)
    table = []
    for (pat, sp, n), rs in sorted(groups.items()):
        table.append({
            "pattern": pat, "sparsity": sp, "N": n, "shapes": len(rs),
            "all_ok": all(r["ok"] for r in rs),
            "geomean_vs_cublas": geomean([r["speedup_vs_cublas"] for r in rs]),
            "geomean_vs_cslt": geomean([r["speedup_vs_cslt"] for r in rs
                                        if r.get("speedup_vs_cslt")]),
            "geomean_cslt_vs_cublas": geomean(
                [r["cublas_us"]["median"] / r["cslt_us"]["median"] for r in rs
                 if r.get("cslt_us")]),
            "geomean_tuned_vs_cublas": geomean(
                [r.get("tuned_speedup_vs_cublas", 0) for r in rs]),
            "min_vs_cublas": min(r["speedup_vs_cublas"] for r in rs),
            "max_vs_cublas": max(r["speedup_vs_cublas"] for r in rs),
            "dense_wins": ["%dx%d" % (r["M"], r["K"]) for r in rs
                           if r["speedup_vs_cublas"] < 1.0],
            "bytes_per_element": sum(r["bytes_per_element"] for r in rs) / len(rs),
            "median_tls_GBps": sorted(r["tls_GBps"] for r in rs)[len(rs) // 2],
            "median_cublas_GBps": sorted(r["cublas_GBps"] for r in rs)[len(rs) // 2],
            # Encoded W bytes alone over the kernel time (the copy ceiling
            # measured on the H200 is 4.2 TB/s).
            "median_tls_W_TBps": sorted(
                r["bytes_per_element"] * r["M"] * r["K"] /
                (r["tls_us"]["median"] * 1e6) for r in rs)[len(rs) // 2],
        })
    return table


def print_table(table, out=sys.stdout):
    out.write("| pattern | sparsity | N | shapes | all correct | geomean vs cuBLAS "
              "| min / max | per-shape tuned vs cuBLAS | geomean vs cuSPARSELt 2:4 "
              "| B/elt | median GB/s tls / cuBLAS | median TB/s of encoded W "
              "| dense wins on |\n")
    out.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for t in table:
        wins = ", ".join(t["dense_wins"]) if t["dense_wins"] else "-"
        out.write("| %s | %d%% | %d | %d | %s | **%.3f** | %.2f / %.2f | %.3f "
                  "| %.3f | %.3f | %.0f / %.0f | %.2f | %s |\n" % (
                      t["pattern"], t["sparsity"], t["N"], t["shapes"],
                      "yes" if t["all_ok"] else "NO", t["geomean_vs_cublas"],
                      t["min_vs_cublas"], t["max_vs_cublas"],
                      t["geomean_tuned_vs_cublas"],
                      t["geomean_vs_cslt"], t["bytes_per_element"],
                      t["median_tls_GBps"], t["median_cublas_GBps"],
                      t["median_tls_W_TBps"], wins))


def print_shapes(rows, pattern, sparsity, out=sys.stdout):
    """Per-shape speedups over cuBLAS (and cuSPARSELt) for one setting."""
    sel = [r for r in rows if r["pattern"] == pattern and r["sparsity"] == sparsity]
    ns = sorted({r["N"] for r in sel})
    shapes = []
    for r in sel:
        if (r["M"], r["K"]) not in shapes:
            shapes.append((r["M"], r["K"]))
    out.write("| M x K | layer | " + " | ".join("N=%d" % n for n in ns) +
              " | tls us / cuBLAS us / cuSPARSELt us at N=%d |\n" % ns[0])
    out.write("|---|---|" + "---|" * len(ns) + "---|\n")
    for m, k in shapes:
        cells, first = [], None
        model = ""
        for n in ns:
            rs = [r for r in sel if (r["M"], r["K"], r["N"]) == (m, k, n)]
            if not rs:
                cells.append("-")
                continue
            r = rs[0]
            model = r["model"]
            cells.append("%.2f" % r["speedup_vs_cublas"] +
                         ("" if r["ok"] else " FAIL"))
            if first is None:
                cslt = r["cslt_us"]["median"] if r.get("cslt_us") else float("nan")
                first = "%.1f / %.1f / %.1f" % (r["tls_us"]["median"],
                                                 r["cublas_us"]["median"], cslt)
        out.write("| %dx%d | %s | %s | %s |\n" % (m, k, model, " | ".join(cells),
                                                 first or "-"))


def plot(table, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, pat in zip(axes, ("iid", "magnitude")):
        series = defaultdict(list)
        for t in table:
            if t["pattern"] == pat:
                series[t["sparsity"]].append((t["N"], t["geomean_vs_cublas"]))
        cslt = defaultdict(list)
        for t in table:
            if t["pattern"] == pat:
                cslt[t["sparsity"]].append((t["N"], t["geomean_cslt_vs_cublas"]))
        for sp in sorted(series):
            pts = sorted(series[sp])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label="three-layer, %d%% sparse" % sp)
        if 50 in cslt:
            pts = sorted(cslt[50])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=":",
                    marker="x", color="gray",
                    label="cuSPARSELt 2:4 (W pruned to 2:4)")
        ax.axhline(1.0, color="gray", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (tokens)")
        ax.set_title("%s pruning" % pat)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("geomean speedup over cuBLAS fp16 (shapes run)")
    fig.suptitle("Three-layer SpMM on H200 vs cuBLAS dense")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--attach", action="append", default=[],
                    metavar="KEY=FILE",
                    help="store FILE under KEY in the --json output: a JSON "
                    "document as is, or spmm-bench output as its summary "
                    "and records (e.g. an earlier run, for comparison)")
    a = ap.parse_args()
    meta, rows = load(a.inputs)
    table = summarize(rows)
    print_table(table)
    if a.json:
        doc = {"meta": meta, "summary": table, "results": rows}
        for item in a.attach:
            key, path = item.split("=", 1)
            try:
                with open(path) as f:
                    doc[key] = json.load(f)
            except json.JSONDecodeError:
                m, r = load([path])
                doc[key] = {"meta": m, "summary": summarize(r), "results": r}
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    if a.md:
        with open(a.md, "w") as f:
            print_table(table, f)
            for pat, sp in sorted({(r["pattern"], r["sparsity"]) for r in rows}):
                f.write("\n#### %s pruning, %d%% sparse: speedup over cuBLAS "
                        "per shape\n\n" % (pat, sp))
                print_shapes(rows, pat, sp, f)
    if a.png:
        plot(table, a.png)


if __name__ == "__main__":
    main()
