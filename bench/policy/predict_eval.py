#!/usr/bin/env python3
"""What `cuda-opt FILE` (no GPU: the ranker's predicted best strict rewrite)
buys, leave one program out, on the committed H200 measurements.

  bench/policy/predict_eval.py [--cuda-opt build/bin/cuda-opt]
                               [--out bench/policy/predict-evaluation.md]

For each corpus program P of bench/policy/training.jsonl: a ranker is trained
(`cuda-opt train`) on every other program's rows; then, for each kernel of P,
`cuda-opt P.cu --kernel K --candidates <the pipelines measured for K>
--policy-model <that model>` picks its rewrite exactly as a user's run
without a GPU would (legal, strict, predicted faster than the original), but
among pipelines whose H200 speedup is known, so every pick can be scored.
Beside it: the fixed default pipeline applied where legal (`--policy=knn`,
what cuda-opt did before), the best measured candidate that keeps every
floating-point operation (the ceiling of any strict prediction; from
`tune --dry-run --fp-model=strict` over the same pipelines), and the best
measured candidate of all (what `tune` on the GPU finds under reassoc).
A pick or default whose exact pipeline was not measured counts as "-" and
is left out of that column's geomean (the table says how many).
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def applied_pipeline(report):
    """The pipeline a not-measured run applied, from its report JSON."""
    with open(report) as f:
        rep = json.load(f)
    steps = [c["pipeline"] for c in rep.get("candidates", [])
             if c.get("status") == "applied"]
    return ",".join(steps)


def strict_legal(cuda_opt, source, kernel, pipelines, work):
    """Which of PIPELINES are legal for KERNEL under --fp-model=strict."""
    out = os.path.join(work, "strict.cu")
    r = run([cuda_opt, "tune", "--dry-run", "--fp-model=strict",
             "--budget=10000", "--kernel", kernel, "--candidates",
             ";".join(pipelines), source, "-o", out, "--no-db"])
    if r.returncode != 0:
        sys.exit(f"error: dry run of {source} failed:\n{r.stderr}")
    with open(out + ".report.json") as f:
        rep = json.load(f)
    return {c["pipeline"] for c in rep.get("candidates", [])
            if c.get("status") == "candidate" and c.get("kernel") == kernel}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuda-opt", default=os.path.join(ROOT, "build/bin/cuda-opt"))
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench/policy/predict-evaluation.md"))
    a = ap.parse_args()
    cuda_opt = os.path.abspath(a.cuda_opt)
    corpus = os.path.join(ROOT, "bench/corpus")
    with tempfile.TemporaryDirectory(prefix="predict-eval-") as work:
        rows_path = os.path.join(work, "rows.jsonl")
        r = run([sys.executable, os.path.join(ROOT, "bench/policy/train.py"),
                 "--cuda-opt", cuda_opt, "--export-db", rows_path])
        if r.returncode != 0:
            sys.exit(f"error: train.py --export-db failed:\n{r.stderr}")
        lines = [json.loads(l) for l in open(rows_path)]
        program_of = lambda l: os.path.splitext(os.path.basename(l["source"]))[0]
        measured = collections.defaultdict(dict)  # (program, kernel) -> {p: x}
        for l in lines:
            measured[(program_of(l), l["kernel"])][l["pipeline"]] = \
                1.0 / l["median_ms"]
        programs = sorted({program_of(l) for l in lines})
        results = []
        for n, prog in enumerate(programs, 1):
            print(f"[{n}/{len(programs)}] {prog}", file=sys.stderr, flush=True)
            held = os.path.join(work, f"without-{prog}.jsonl")
            with open(held, "w") as f:
                for l in lines:
                    if program_of(l) != prog:
                        f.write(json.dumps(l) + "\n")
            db = os.path.join(work, f"without-{prog}.db")
            model = os.path.join(work, f"without-{prog}.json")
            for cmd in ([cuda_opt, "db", "import", held, "--db", db],
                        [cuda_opt, "train", "--db", db, "-o", model,
                         "--name", f"training.jsonl without {prog}"]):
                r = run(cmd)
                if r.returncode != 0:
                    sys.exit(f"error: {' '.join(cmd)}:\n{r.stderr}")
            source = os.path.join(corpus, prog + ".cu")
            for (p, kernel), speedups in sorted(measured.items()):
                if p != prog:
                    continue
                pipes = [x for x in speedups if x]
                out = os.path.join(work, "pred.cu")
                r = run([cuda_opt, source, "--kernel", kernel, "--candidates",
                         ";".join(pipes), "--policy-model", model, "-o", out])
                if r.returncode != 0:
                    sys.exit(f"error: prediction for {prog}/{kernel}:\n{r.stderr}")
                pick = applied_pipeline(out + ".report.json")
                r = run([cuda_opt, source, "--kernel", kernel,
                         "--policy=knn", "-o", out])
                if r.returncode != 0:
                    sys.exit(f"error: default pipeline for {prog}/{kernel}:\n"
                             f"{r.stderr}")
                default = applied_pipeline(out + ".report.json")
                strict = strict_legal(cuda_opt, source, kernel, pipes, work)
                results.append({
                    "program": prog, "kernel": kernel,
                    "best": max(speedups.values()),
                    "best_strict": max([speedups[x] for x in strict] + [1.0]),
                    "pick": pick, "pick_x": speedups.get(pick),
                    "default": default, "default_x": speedups.get(default),
                    "candidates": len(pipes), "strict": len(strict)})
    write(a.out, results)


def write(path, results):
    cols = [("best measured (tune, reassoc)", "best"),
            ("best strict measured", "best_strict"),
            ("predicted (ranker, strict, LOPO)", "pick_x"),
            ("default pipeline where legal (before)", "default_x")]
    out = ["# Rewriting without a GPU: the ranker's strict prediction, leave "
           "one program out", "",
           "Generated by `bench/policy/predict_eval.py` from "
           "bench/policy/training.jsonl (H200 speedups of "
           f"{len(results)} kernels of "
           f"{len({r['program'] for r in results})} corpus programs). Each "
           "program's kernels are predicted by a ranker trained without that "
           "program, among the pipelines measured for the kernel; a cell is "
           "the measured speedup over the original of what each rule applies "
           "(1.00: left unchanged). \"-\": the rule applied a pipeline that "
           "was not measured (left out of the geomean).", "",
           "| rule | geomean speedup | kernels scored | rewritten | slower "
           "than the original |", "|---|---|---|---|---|"]
    for name, key in cols:
        if key in ("best", "best_strict"):
            xs = [r[key] for r in results]
            rewritten = sum(1 for x in xs if x > 1.0)
        else:  # 1.0 where nothing was applied, None where not measured
            chosen = [r[key[:-2]] for r in results]
            xs = [r[key] if c else 1.0 for r, c in zip(results, chosen)]
            rewritten = sum(1 for c in chosen if c)
        scored = [x for x in xs if x is not None]
        out.append(f"| {name} | {geomean(scored):.2f}x | {len(scored)} | "
                   f"{rewritten} | {sum(1 for x in scored if x < 1.0)} |")
    out += ["", "| program (kernel) | best | best strict | predicted pick | "
            "predicted | default applied | default |", "|---|---|---|---|---|---|---|"]
    for r in results:
        name = r["program"] if r["program"] == r["kernel"] else \
            f"{r['program']} ({r['kernel']})"
        fmt = lambda x, chosen: "1.00x" if not chosen else \
            ("-" if x is None else f"{x:.2f}x")
        out.append(f"| {name} | {r['best']:.2f}x | {r['best_strict']:.2f}x | "
                   f"`{r['pick'] or '(original)'}` | {fmt(r['pick_x'], r['pick'])} | "
                   f"`{r['default'] or '(original)'}` | "
                   f"{fmt(r['default_x'], r['default'])} |")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out[:len(cols) + 6]))


if __name__ == "__main__":
    main()
