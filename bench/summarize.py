#!/usr/bin/env python3
"""Summarise a benchmark-corpus run (bench/run.sh).

Reads OUT/NAME.opt.cu.report.json for every program (and OUT/status.tsv, the
per-step results run.sh records, when present) and writes
RESULTS/NAME.md and RESULTS/NAME.json: per program the input kernel's time,
the best variant's time, the speedup, the chosen pipeline, achieved GB/s and
TFLOP/s against the H200's ceilings, variants measured and tuning time; and
the tuner's overall throughput in variants per minute.

    python3 bench/summarize.py --out build/bench-out --results build/bench-results

(the defaults). The committed summaries in bench/results/ are such files,
copied there by hand from a run worth keeping.

When bench/results/pytorch-eager-h200.json exists (bench/pytorch_eager.py,
run on the GPU; another file with --eager FILE, none with --eager ''), the
table gains a "PyTorch eager ms (best / eager)" column: PyTorch's time for
the same operation and the ratio of the chosen variant's time to it (below 1:
cuda-opt's best is faster than PyTorch eager).
"""
import argparse
import datetime
import glob
import json
import math
import os
import sys

COPY_CEILING_GBS = 4234.0  # H200 device-to-device copy, docs/tuning.md
PEAK_TFLOPS = {"fp32": 60.0, "fp16": 750.0}  # FFMA; fp16 tensor cores
REPORT_SUFFIX = ".opt.cu.report.json"
EAGER_DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "results", "pytorch-eager-h200.json")


def read_eager(path):
    """bench/pytorch_eager.py's JSON -> {"programs": {name: {median_ms, ...}},
    "no_equivalent": {name: reason}}, or None when there is none."""
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        doc = json.load(f)
    progs = doc.get("programs", {})
    return {"programs": {k: v for k, v in progs.items()
                         if isinstance(v, dict) and v.get("median_ms")},
            "no_equivalent": doc.get("no_equivalent", {}),
            "file": path}


def eager_fields(row, eager):
    """Adds pytorch_eager_ms and best_over_eager to a row."""
    e = eager["programs"].get(row["program"]) if eager else None
    if not e:
        return
    row["pytorch_eager_ms"] = e["median_ms"]
    row["pytorch_eager_op"] = e.get("op", "")
    if row.get("measured") and row.get("best_ms"):
        row["best_over_eager"] = row["best_ms"] / e["median_ms"]


def eager_cell(row, eager):
    if row.get("pytorch_eager_ms") is None:
        if eager and row["program"] in eager["no_equivalent"]:
            return "n/a"
        return "-"
    if row.get("best_over_eager") is None:
        return "%.4f" % row["pytorch_eager_ms"]
    return "%.4f (%.2fx)" % (row["pytorch_eager_ms"], row["best_over_eager"])


def read_status(path):
    """status.tsv -> {program: {column: value}}."""
    rows = {}
    if not path or not os.path.exists(path):
        return rows
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if not cells or not cells[0]:
                continue
            cells += [""] * (len(header) - len(cells))
            rows[cells[0]] = dict(zip(header, cells))
    return rows


def precision_of(corpus, name):
    """fp16 when the program's source uses __half, else fp32."""
    path = os.path.join(corpus, name + ".cu") if corpus else None
    if path and os.path.exists(path):
        with open(path, errors="replace") as f:
            if "__half" in f.read():
                return "fp16"
    return "fp32"


def spec_flops(corpus, name, kernel):
    """FLOPs of the program's kernel from its spec (bench/corpus/NAME.tune.json
    states the same sizes as the program's main), when the spec gives them
    and names the kernel that was tuned; else None."""
    path = os.path.join(corpus, name + ".tune.json") if corpus else None
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        spec = json.load(f)
    if "flops" not in spec or spec.get("kernel") != kernel:
        return None
    expr = str(spec["flops"])
    if not all(ch.isalnum() or ch in " _+-*/()" for ch in expr):
        return None
    sizes = {k: int(v) for k, v in spec.get("sizes", {}).items()}
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, sizes))


def pick(cands, pred):
    for c in cands:
        if pred(c):
            return c
    return None


def rate(value, ceiling):
    if value is None or not ceiling:
        return None
    return 100.0 * value / ceiling


def chosen_pipeline(rep):
    """The report's chosen pipeline, with the host-region rewrites it kept
    ("region #1: temporal-block{...}") in front when the report's own
    pipeline does not name them (reports before session 14)."""
    pipeline = rep.get("pipeline", "")
    if "region #" in pipeline:
        return pipeline
    regions = []
    for k in rep.get("kernels", []):
        label = k.get("kernel", "")
        if label.startswith("region #") and k.get("pipeline"):
            regions.append("%s: %s" % (label.split(" (")[0], k["pipeline"]))
    return "; ".join(regions + ([pipeline] if pipeline else []))


def summarize_report(name, rep, precision, corpus=None):
    """One program's row from its report JSON."""
    row = {
        "program": name,
        "kernel": rep.get("kernel", ""),
        "measured": bool(rep.get("measured")),
        "pipeline": chosen_pipeline(rep),
        "precision": precision,
    }
    if not row["measured"]:
        row["not_measured_reason"] = rep.get("not_measured_reason", "")
        return row
    cands = rep.get("candidates", [])
    # The input kernel is the candidate "original" (empty pipeline).
    base = pick(cands, lambda c: c.get("id") in ("original", "v0")) or pick(
        cands, lambda c: not c.get("pipeline"))
    best = pick(cands, lambda c: c.get("status") == "fastest") or base
    base_ms = rep.get("baseline_ms")
    best_ms = rep.get("best_ms")
    min_bytes = rep.get("min_bytes") or 0

    program_mode = rep.get("mode") == "program"
    flops = spec_flops(corpus, name, rep.get("kernel")) if program_mode else None

    def gbs(c, ms):
        # Program mode may tune several kernels: whole-program bytes over the
        # summed kernel times, not one candidate's rate.
        if not program_mode and c and c.get("gb_per_s") is not None:
            return c["gb_per_s"]
        if min_bytes and ms:
            return min_bytes / (ms * 1e-3) / 1e9
        return None

    def tfs(c, ms=None):
        if flops and ms:
            return flops / (ms * 1e-3) / 1e12
        return c.get("tflop_per_s") if c else None

    ceiling = rep.get("copy_ceiling_gb_per_s") or COPY_CEILING_GBS
    peak = PEAK_TFLOPS[precision]
    row.update({
        "device": rep.get("device", ""),
        "baseline_ms": base_ms,
        "best_ms": best_ms,
        "speedup": rep.get("speedup") or (
            base_ms / best_ms if base_ms and best_ms else None),
        "variants_measured": rep.get("variants_measured", 0),
        "seconds": rep.get("seconds", 0.0),
        "min_bytes": min_bytes,
        "baseline_gb_per_s": gbs(base, base_ms),
        "best_gb_per_s": gbs(best, best_ms),
        "baseline_tflop_per_s": tfs(base, base_ms),
        "best_tflop_per_s": tfs(best, best_ms),
        "mode": rep.get("mode", "spec"),
        "cublas_ms": rep.get("cublas_ms"),
        "phase_seconds": rep.get("phase_seconds", {}),
        "copy_ceiling_gb_per_s": ceiling,
        "peak_tflop_per_s": peak,
        "statuses": {},
    })
    row["baseline_pct_of_copy"] = rate(row["baseline_gb_per_s"], ceiling)
    row["best_pct_of_copy"] = rate(row["best_gb_per_s"], ceiling)
    row["baseline_pct_of_peak_flops"] = rate(row["baseline_tflop_per_s"], peak)
    row["best_pct_of_peak_flops"] = rate(row["best_tflop_per_s"], peak)
    for c in cands:
        s = c.get("status", "?")
        row["statuses"][s] = row["statuses"].get(s, 0) + 1
    return row


def fmt(v, spec, empty="-"):
    return empty if v is None else format(v, spec)


def checks_cell(st):
    if not st:
        return "-"
    return "%s/%s" % (st.get("run", "?"), st.get("opt_run", "?"))


def markdown(rows, totals, generated, out_dir, eager=None):
    lines = []
    device = next((r["device"] for r in rows if r.get("device")), "unknown")
    lines.append("# cuda-opt benchmark corpus: results")
    lines.append("")
    lines.append("Generated %s from `%s`; device: %s.  " %
                 (generated, out_dir, device))
    earlier = sorted({r["earlier_run"] for r in rows if r.get("earlier_run")})
    if earlier:
        lines.append("Rows marked * were not rerun: they come from the run "
                     "of %s (`--merge`).  " % ", ".join(earlier))
    lines.append("Ceilings: %g GB/s copy, %g TFLOP/s fp32 FFMA, %g TFLOP/s "
                 "fp16 tensor. Columns are explained in `bench/README.md`." %
                 (COPY_CEILING_GBS, PEAK_TFLOPS["fp32"], PEAK_TFLOPS["fp16"]))
    lines.append("")
    lines.append("| program | kernel | checks orig/opt | input ms | best ms | "
                 "speedup | chosen pipeline | input GB/s (%) | best GB/s (%) "
                 "| best TFLOP/s (% of peak) | cuBLAS ms (best / cuBLAS) " +
                 ("| PyTorch eager ms (best / eager) " if eager else "") +
                 "| variants | tune s |")
    lines.append("|---" * (14 if eager else 13) + "|")
    for r in rows:
        st = r.get("status_row")
        if not r.get("measured"):
            why = r.get("not_measured_reason") or r.get("problem") or "no report"
            lines.append("| %s | %s | %s | - | - | - | not measured: %s | - | "
                         "- | - | - | %s- | %s |" %
                         (r["program"], r.get("kernel", "") or "-",
                          checks_cell(st), why.replace("|", "/"),
                          (eager_cell(r, eager) + " | ") if eager else "",
                          (st or {}).get("tune_s", "") or "-"))
            continue
        pipe = ("`%s`" % r["pipeline"].replace("|", "/") if r["pipeline"]
                else "(original kept)")
        tfl = "-"
        if r.get("best_tflop_per_s") is not None:
            tfl = "%.2f (%.1f%% of %s)" % (
                r["best_tflop_per_s"], r["best_pct_of_peak_flops"],
                r["precision"])
        cublas = "-"
        if r.get("cublas_ms") and r.get("best_ms"):
            # The column is "best / cuBLAS": below 1 the best is faster.
            cublas = "%.4f (%.2fx)" % (r["cublas_ms"],
                                       r["best_ms"] / r["cublas_ms"])
        lines.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s (%s%%) | %s (%s%%) | %s "
            "| %s | %s%d | %.0f |" % (
                r["program"] + (" *" if r.get("earlier_run") else ""),
                r["kernel"], checks_cell(st),
                fmt(r["baseline_ms"], ".4f"), fmt(r["best_ms"], ".4f"),
                fmt(r["speedup"], ".2f") + "x",
                pipe,
                fmt(r["baseline_gb_per_s"], ".0f"),
                fmt(r["baseline_pct_of_copy"], ".0f"),
                fmt(r["best_gb_per_s"], ".0f"),
                fmt(r["best_pct_of_copy"], ".0f"),
                tfl, cublas,
                (eager_cell(r, eager) + " | ") if eager else "",
                r["variants_measured"], r["seconds"]))
    lines.append("")
    lines.append("## Totals")
    lines.append("")
    lines.append("- programs: %d; measured: %d; faster than the input: %d" %
                 (totals["programs"], totals["measured"], totals["improved"]))
    if totals.get("geomean_speedup") is not None:
        lines.append("- geometric-mean speedup over measured programs: %.3fx" %
                     totals["geomean_speedup"])
    ge = totals.get("geomean_best_over_eager")
    if ge is not None:
        lines.append("- PyTorch eager (`%s`): geometric mean of best / eager "
                     "over %d programs: %.3f (below 1: cuda-opt's best is "
                     "faster); best faster on %d" % (
                         os.path.basename(eager["file"]),
                         totals["eager_programs"], ge,
                         totals["eager_best_faster"]))
    lines.append("- variants measured: %d in %.1f s of tuning summed over "
                 "programs: %.1f variants per minute per program" %
                 (totals["variants_measured"], totals["tune_seconds"],
                  totals["variants_per_minute"] or 0))
    wall = totals.get("last_run")
    if wall:
        gpus = wall.get("gpus", 1)
        where = ("on one GPU" if gpus == 1 else
                 "on %d GPUs of one machine, the programs dealt out among "
                 "them" % gpus)
        lines.append("- last run: %d programs, %d at a time%s, %d variants "
                     "in %d s of wall time %s: **%.1f variants per "
                     "minute**" % (wall["programs"], wall["jobs"],
                                   " per GPU" if gpus > 1 else "",
                                   wall["variants"], wall["wall_s"], where,
                                   wall["variants_per_minute"]))
    phases = {}
    for r in rows:
        for k, v in (r.get("phase_seconds") or {}).items():
            phases[k] = phases.get(k, 0.0) + v
    if phases:
        lines.append("- tuning time by phase: " + ", ".join(
            "%s %.0f s" % (k, v) for k, v in sorted(phases.items())))
    if totals.get("checks_failed"):
        lines.append("- programs with a failing step (build, run, tune or the "
                     "optimised run): %s" % ", ".join(totals["checks_failed"]))
    lines.append("")
    return "\n".join(lines)


def last_run_throughput(out, rows):
    """Variants per minute of wall time in run.sh's last run (last-run.json):
    the machine's throughput with JOBS programs tuned at once."""
    try:
        with open(os.path.join(out, "last-run.json")) as f:
            run = json.load(f)
    except (OSError, ValueError):
        return None
    names = set(run.get("programs", []))
    variants = sum(r.get("variants_measured") or 0 for r in rows
                   if r["program"] in names and r.get("measured"))
    wall = run.get("wall_s") or 0
    if not wall:
        return None
    return {"programs": len(names), "jobs": run.get("jobs", 1),
            "gpus": run.get("gpus", 1), "variants": variants, "wall_s": wall,
            "variants_per_minute": variants / wall * 60.0}


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(here)
    ap.add_argument("--out", default=os.path.join(root, "build", "bench-out"),
                    help="run.sh's output directory (the reports)")
    ap.add_argument("--corpus", default=os.path.join(here, "corpus"))
    ap.add_argument("--results",
                    default=os.path.join(root, "build", "bench-results"))
    ap.add_argument("--name", default="h200", help="file stem of the results")
    ap.add_argument("--status", default=None,
                    help="run.sh's status.tsv (default: OUT/status.tsv)")
    ap.add_argument("--eager", default=EAGER_DEFAULT,
                    help="bench/pytorch_eager.py's JSON for the PyTorch eager "
                         "column; '' for none (default: %(default)s when it "
                         "exists)")
    ap.add_argument("--merge", default=None,
                    help="an earlier results JSON: its rows for programs "
                         "this run did not measure are kept (marked with "
                         "their run's date), so a partial rerun updates the "
                         "table instead of replacing it")
    args = ap.parse_args(argv)
    try:
        eager = read_eager(args.eager)
    except (OSError, ValueError) as e:
        print("summarize: ignoring %s: %s" % (args.eager, e), file=sys.stderr)
        eager = None

    status = read_status(args.status or os.path.join(args.out, "status.tsv"))
    names = set(status)
    for path in glob.glob(os.path.join(args.out, "*" + REPORT_SUFFIX)):
        names.add(os.path.basename(path)[:-len(REPORT_SUFFIX)])
    if not names:
        print("summarize: no reports or status under %s" % args.out,
              file=sys.stderr)
        return 1

    rows = []
    for name in sorted(names):
        path = os.path.join(args.out, name + REPORT_SUFFIX)
        row = {"program": name, "measured": False}
        if os.path.exists(path):
            try:
                with open(path) as f:
                    rep = json.load(f)
                row = summarize_report(name, rep, precision_of(args.corpus, name),
                                       args.corpus)
            except (OSError, ValueError, KeyError, TypeError) as e:
                row["problem"] = "unreadable report: %s" % e
        else:
            row["problem"] = "no report"
        st = status.get(name)
        if st:
            row["status_row"] = st
        eager_fields(row, eager)
        rows.append(row)

    merged_from = None
    if args.merge:
        with open(args.merge) as f:
            earlier = json.load(f)
        merged_from = earlier.get("generated")
        for old in earlier.get("programs", []):
            if old.get("program") in names:
                continue
            old = dict(old)
            old.setdefault("earlier_run", merged_from)
            eager_fields(old, eager)
            rows.append(old)
        rows.sort(key=lambda r: r["program"])

    measured = [r for r in rows if r.get("measured")]
    speedups = [r["speedup"] for r in measured if r.get("speedup")]
    variants = sum(r.get("variants_measured") or 0 for r in measured)
    seconds = sum(r.get("seconds") or 0.0 for r in measured)
    failed = [r["program"] for r in rows
              if r.get("status_row") and any(
                  r["status_row"].get(k) not in ("ok",)
                  for k in ("build", "run", "tune", "opt_build", "opt_run"))]
    totals = {
        "programs": len(rows),
        "measured": len(measured),
        "improved": sum(1 for r in measured if r.get("pipeline")),
        "geomean_speedup": (math.exp(sum(math.log(s) for s in speedups) /
                                     len(speedups)) if speedups else None),
        "variants_measured": variants,
        "tune_seconds": seconds,
        "variants_per_minute": variants / seconds * 60.0 if seconds else None,
        "checks_failed": failed,
        "last_run": last_run_throughput(args.out, rows),
    }
    ratios = [r["best_over_eager"] for r in rows if r.get("best_over_eager")]
    if ratios:
        totals["geomean_best_over_eager"] = math.exp(
            sum(math.log(x) for x in ratios) / len(ratios))
        totals["eager_programs"] = len(ratios)
        totals["eager_best_faster"] = sum(1 for x in ratios if x < 1)
    generated = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    os.makedirs(args.results, exist_ok=True)
    with open(os.path.join(args.results, args.name + ".json"), "w") as f:
        json.dump({"generated": generated,
                   "copy_ceiling_gb_per_s": COPY_CEILING_GBS,
                   "peak_tflop_per_s": PEAK_TFLOPS,
                   "programs": rows, "totals": totals}, f, indent=2)
        f.write("\n")
    if merged_from:
        totals["merged_rows"] = sum(1 for r in rows if r.get("earlier_run"))
    md = markdown(rows, totals, generated, args.out, eager)
    with open(os.path.join(args.results, args.name + ".md"), "w") as f:
        f.write(md)

    # The short table for the terminal.
    print("%-15s %-9s %10s %10s %8s  %s" %
          ("program", "orig/opt", "input ms", "best ms", "speedup", "pipeline"))
    for r in rows:
        st = checks_cell(r.get("status_row"))
        if r.get("measured"):
            print("%-15s %-9s %10s %10s %8s  %s" % (
                r["program"], st, fmt(r["baseline_ms"], ".4f"),
                fmt(r["best_ms"], ".4f"), fmt(r["speedup"], ".2f") + "x",
                r["pipeline"] or "(original kept)"))
        else:
            print("%-15s %-9s %10s %10s %8s  not measured: %s" % (
                r["program"], st, "-", "-", "-",
                r.get("not_measured_reason") or r.get("problem", "")))
    if totals["variants_per_minute"]:
        print("tuner throughput: %d variants in %.0f s of per-program tuning "
              "= %.1f variants/minute per program" %
              (variants, seconds, totals["variants_per_minute"]))
    if totals["last_run"]:
        lr = totals["last_run"]
        print("last run: %d variants in %d s wall (%d programs, %d at a time) "
              "= %.1f variants/minute" % (lr["variants"], lr["wall_s"],
                                          lr["programs"], lr["jobs"],
                                          lr["variants_per_minute"]))
    print("wrote %s.{md,json} in %s" % (args.name, args.results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
