#!/usr/bin/env python3
"""Train the tuner's candidate-ranking policy from measured tune results.

The policy (lib/Search/TuningPolicy.cpp) predicts the speedup of a candidate
pipeline on a kernel from what the same pipeline did on the most similar
kernels measured so far: a k-nearest-neighbour regression over the kernel
model's feature vector (`cuda-opt --analyze --json`, "features"), the
neighbours weighted by similarity. This script

  1. reads the training rows (--training, bench/policy/training.jsonl: one
     measured candidate per line, {"program", "kernel", "pipeline",
     "status", "speedup"}, from program-mode tune reports on the H200) and
     the feature vector of each row's kernel from cuda-opt itself;
  2. evaluates the policy leave-one-program-out against the tuner's
     round-robin order: how much of the best measured speedup each order
     finds within the first k variants (written to --eval, Markdown);
  3. writes the training set as C++ (--out, lib/Search/TuningPolicyData.inc)
     for the tool to ship.

With --import-reports DIR it instead replaces the rows of every program
that has a measured DIR/NAME.opt.cu.report.json (bench/run.sh's output) in
--training and exits; the training rows are the only copy of the measured
data the policy is built from.

With --export-db FILE.jsonl it instead writes the training rows as tuning
database rows (`cuda-opt db import FILE.jsonl --db DB`), each with its
kernel's features, so that the learned ranker is trained from a database
(`cuda-opt train --db DB`; docs/policy.md). The rows hold speedups, not
timings: each kernel's original is written as 1 ms and a variant as
1/speedup ms, which keeps every ratio; the signature is empty (the rows
do not say the launch).

usage: train.py --cuda-opt build/bin/cuda-opt [--training FILE.jsonl]
                [--corpus DIR] [--out FILE.inc] [--eval FILE.md]
       train.py --import-reports DIR [--training FILE.jsonl]
       train.py --cuda-opt build/bin/cuda-opt --export-db FILE.jsonl
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

NEIGHBOURS = 3


def family(pipeline):
    """The pipeline's passes without their parameters: "coarsen{factor=8}"
    and "coarsen{factor=2}" are one family."""
    return re.sub(r"\{[^}]*\}", "", pipeline)


def features_of(cuda_opt, source, kernel):
    out = subprocess.run([cuda_opt, "--analyze", "--json", "--kernel", kernel,
                          source], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    kernels = data["kernels"] if isinstance(data, dict) else data
    for k in kernels:
        if k["name"] == kernel:
            return k["features"]
    raise SystemExit("no kernel %s in %s" % (kernel, source))


# Parameters added to a pass after rows were measured, with the value that
# keeps the pass what it was then: an older row's
# "gemm-specialize{allow-fp16-compute=0,f32-cublas=0}" is today's
# "gemm-specialize{allow-fp16-compute=0,f32-cublas=0,lt-algo=0}" (the
# candidate space names it so). Appended last, as they follow the older
# parameters in the pass's own order.
ADDED_PARAMS = {"gemm-specialize": ["lt-algo=0"]}


def upgrade_pipeline(pipeline):
    """PIPELINE as the current candidate space writes it."""
    def one(m):
        name, params = m.group(1), m.group(2)
        given = {p.split("=")[0] for p in params.split(",")}
        for added in ADDED_PARAMS.get(name, []):
            if added.split("=")[0] not in given:
                params += "," + added
        return "%s{%s}" % (name, params)
    return re.sub(r"([\w-]+)\{([^}]*)\}", one, pipeline)


TRAINING_STATUSES = ("verified", "fastest", "slower")
REPORT_SUFFIX = ".opt.cu.report.json"


def report_rows(reports):
    """Training rows from the measured tune reports in a directory: every
    candidate with a speedup and a verified status, in report order."""
    rows = []
    for path in sorted(glob.glob(os.path.join(reports, "*" + REPORT_SUFFIX))):
        with open(path) as f:
            rep = json.load(f)
        if not rep.get("measured"):
            continue
        name = os.path.basename(path)[:-len(REPORT_SUFFIX)]
        for c in rep["candidates"]:
            # Region candidates (library routes and the kernel's in-place
            # rivals, timed as a whole region) are not kernel candidates:
            # the kernel phase's own rows stand for the kernel.
            if c["kernel"].startswith("region #"):
                continue
            if c.get("speedup") and c["status"] in TRAINING_STATUSES:
                rows.append({"program": name, "kernel": c["kernel"],
                             "pipeline": upgrade_pipeline(c["pipeline"]),
                             "status": c["status"],
                             "speedup": c["speedup"]})
    return rows


def read_training(path):
    with open(path) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    for r in rows:
        r["pipeline"] = upgrade_pipeline(r["pipeline"])
    return rows


def write_training(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def import_reports(reports, training):
    """Replace the rows of the programs measured in REPORTS; programs stay
    in name order."""
    new = report_rows(reports)
    if not new:
        raise SystemExit("no measured %s in %s" % (REPORT_SUFFIX, reports))
    replaced = {r["program"] for r in new}
    old = read_training(training) if os.path.exists(training) else []
    rows = [r for r in old if r["program"] not in replaced] + new
    rows.sort(key=lambda r: r["program"])  # stable: report order kept
    write_training(training, rows)
    print("%s: %d rows (%d programs; %d rows from %d programs in %s)" % (
        training, len(rows), len({r["program"] for r in rows}), len(new),
        len(replaced), reports))


def load(cuda_opt, training, corpus):
    """Programs as dicts: name, kernel -> features, pipeline -> log speedup
    (per kernel), and the measured pipelines."""
    by_program = {}  # in the file's order
    for r in read_training(training):
        outcomes = by_program.setdefault(r["program"], {})
        if r.get("speedup") and r["status"] in TRAINING_STATUSES:
            outcomes[(r["kernel"], r["pipeline"])] = math.log(r["speedup"])
    programs = []
    for name, outcomes in by_program.items():
        source = os.path.join(corpus, name + ".cu")
        kernels = sorted({k for k, _ in outcomes})
        feats = {k: features_of(cuda_opt, source, k) for k in kernels}
        programs.append({"name": name, "features": feats,
                         "outcomes": outcomes})
    return programs


def feature_names(programs):
    names = set()
    for p in programs:
        for f in p["features"].values():
            names |= set(f)
    return sorted(names)


def vector(f, names):
    return [float(f.get(n, 0.0)) for n in names]


def scaling(rows):
    """Per-feature spread (1 where a feature never varies)."""
    scale = []
    for c in zip(*rows):
        m = sum(c) / len(c)
        var = sum((x - m) ** 2 for x in c) / len(c)
        scale.append(math.sqrt(var) if var > 1e-12 else 1.0)
    return scale


class Policy:
    """The same prediction as TuningPolicy.cpp: the similarity-weighted mean
    of the log speedup the pipeline had on the NEIGHBOURS nearest training
    kernels that measured it."""

    def __init__(self, train, names):
        self.names = names
        self.rows = []  # (vector, {pipeline: log speedup})
        self.labels = []  # "program/kernel" of each row
        for p in train:
            for k, f in p["features"].items():
                out = {pl: s for (kk, pl), s in p["outcomes"].items()
                       if kk == k}
                self.rows.append((vector(f, names), out))
                self.labels.append("%s/%s" % (p["name"], k))
        self.scale = scaling([r[0] for r in self.rows])

    def distance(self, a, b):
        return math.sqrt(sum(((x - y) / s) ** 2
                             for x, y, s in zip(a, b, self.scale)))

    def predict(self, features, pipeline):
        """Exact pipeline first; else its family (the same passes with any
        parameters: a kernel's mean over them); None when neither was ever
        measured."""
        v = vector(features, self.names)
        seen = [(self.distance(v, r), out[pipeline]) for r, out in self.rows
                if pipeline in out]
        if not seen:
            fam = family(pipeline)
            for r, out in self.rows:
                vals = [x for pl, x in out.items() if family(pl) == fam]
                if vals:
                    seen.append((self.distance(v, r), sum(vals) / len(vals)))
        if not seen:
            return None
        seen.sort(key=lambda t: t[0])
        near = seen[:NEIGHBOURS]
        weights = [1.0 / (1.0 + d) for d, _ in near]
        return sum(w * s for w, (_, s) in zip(weights, near)) / sum(weights)

    def rank(self, features, pipelines):
        """Best predicted first, a pipeline no training kernel measured
        before all others (nothing says it is bad, and such specialised
        passes are where the large wins were), ties in the given
        (round-robin) order; then interleaved with the round-robin order
        itself, so a wrong prediction costs at most every other slot."""
        scored = []
        for i, p in enumerate(pipelines):
            v = self.predict(features, p)
            scored.append((-(math.inf if v is None else v), i, p))
        greedy = [p for _, _, p in sorted(scored)]
        out, seen = [], set()
        for pair in zip(greedy, pipelines):
            for p in pair:
                if p not in seen:
                    seen.add(p)
                    out.append(p)
        return out


def space(cuda_opt):
    out = subprocess.run([cuda_opt, "--print-candidate-space"],
                         capture_output=True, text=True, check=True)
    return [l for l in out.stdout.splitlines() if l]


def evaluate(programs, names, order, ks=(2, 4, 8, 16)):
    """Leave one program out. For each held-out kernel with a measured win
    (best > 2 %), the share of the best log speedup found by the first k
    measured variants, in policy order and in round-robin order."""
    rows = []
    for held in programs:
        train = [p for p in programs if p is not held]
        pol = Policy(train, names)
        for k, f in held["features"].items():
            measured = {pl: s for (kk, pl), s in held["outcomes"].items()
                        if kk == k}
            best = max(measured.values(), default=0.0)
            if best < math.log(1.02):
                continue
            robin = [pl for pl in order if pl in measured]
            learned = pol.rank(f, robin)

            def share(seq, n):
                return max(0.0, max(measured[p] for p in seq[:n])) / best

            rows.append((held["name"], k, math.exp(best), len(robin),
                         [share(learned, n) for n in ks],
                         [share(robin, n) for n in ks]))
    return ks, rows


def write_eval(path, ks, rows, programs):
    lines = ["# Tuning policy: leave-one-program-out evaluation", "",
             "Generated by `bench/policy/train.py` from %d measured programs "
             "(bench/policy/training.jsonl). For each kernel with a measured "
             "win, the share of its best log speedup found by the first k "
             "variants measured, in the learned policy's order and in the "
             "round-robin order the tuner used before. The policy predicting a "
             "program never saw that program's measurements." %
             len(programs), "",
             "| program | best | legal variants | " +
             " | ".join("learned k=%d" % k for k in ks) + " | " +
             " | ".join("round-robin k=%d" % k for k in ks) + " |",
             "|---|---|---|" + "---|" * (2 * len(ks))]
    for name, k, best, n, learned, robin in rows:
        lines.append("| %s | %.2fx | %d | %s | %s |" % (
            name if k == name else "%s (%s)" % (name, k), best, n,
            " | ".join("%.2f" % x for x in learned),
            " | ".join("%.2f" % x for x in robin)))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    lines.append("| **mean** | | | %s | %s |" % (
        " | ".join("**%.2f**" % mean([r[4][i] for r in rows])
                   for i in range(len(ks))),
        " | ".join("**%.2f**" % mean([r[5][i] for r in rows])
                   for i in range(len(ks)))))
    lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return [mean([r[4][i] for r in rows]) for i in range(len(ks))], \
        [mean([r[5][i] for r in rows]) for i in range(len(ks))]


def cxx_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_inc(path, programs, names, version):
    pol = Policy(programs, names)
    out = ["// Generated by bench/policy/train.py from %d measured programs; "
           "do not edit." % len(programs),
           "// The tuning policy's training set (lib/Search/TuningPolicy.cpp).",
           "",
           "static const char PolicyVersion[] = %s;" % cxx_string(version),
           "static constexpr int PolicyNeighbours = %d;" % NEIGHBOURS,
           "static const char *const PolicyFeatureNames[] = {"]
    out += ["    %s," % cxx_string(n) for n in names]
    out.append("};")
    out.append("static const double PolicyFeatureScale[] = {")
    out += ["    %.9g," % s for s in pol.scale]
    out.append("};")
    out.append("struct PolicyKernelRow {")
    out.append("  const char *Name; // program/kernel")
    out.append("  double Features[%d];" % len(names))
    out.append("};")
    out.append("static const PolicyKernelRow PolicyKernels[] = {")
    for i, (v, _) in enumerate(pol.rows):
        out.append("    {%s, {%s}}," % (cxx_string(pol.labels[i]),
                                        ", ".join("%.9g" % x for x in v)))
    out.append("};")
    out.append("struct PolicyOutcomeRow {")
    out.append("  int Kernel;")
    out.append("  const char *Pipeline;")
    out.append("  double LogSpeedup;")
    out.append("};")
    out.append("static const PolicyOutcomeRow PolicyOutcomes[] = {")
    for i, (_, outs) in enumerate(pol.rows):
        for pl, s in sorted(outs.items()):
            out.append("    {%d, %s, %.6f}," % (i, cxx_string(pl), s))
    out.append("};")
    out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def kernel_hashes(cuda_opt, source):
    out = subprocess.run([cuda_opt, "db", "hash", source], capture_output=True,
                         text=True, check=True)
    return dict(l.split() for l in out.stdout.splitlines() if l.strip())


def export_db(cuda_opt, training, corpus, path):
    """The training rows as `cuda-opt db import` lines with features."""
    rows = read_training(training)
    lines, done, hashes, feats = [], set(), {}, {}
    stamp = "2026-12-02T00:00:%02d.%03dZ"

    def line(r, pipeline, median, verdict, n):
        program, kernel = r["program"], r["kernel"]
        source = os.path.join(corpus, program + ".cu")
        if program not in hashes:
            hashes[program] = kernel_hashes(cuda_opt, source)
        if (program, kernel) not in feats:
            feats[(program, kernel)] = features_of(cuda_opt, source, kernel)
        return {"gpu": "NVIDIA H200", "sm_count": 132, "driver": "unknown",
                "cuda": "unknown", "cuda_opt": "training.jsonl",
                "kernel_hash": hashes[program][kernel], "kernel": kernel,
                "signature": "", "fp_model": "strict", "pipeline": pipeline,
                "median_ms": median, "p10_ms": median, "p90_ms": median,
                "runs": 1, "verdict": verdict, "failure": "",
                "host": "h200 (bench/policy/training.jsonl)",
                "measured_at": stamp % (n // 1000, n % 1000),
                "source": "bench/corpus/%s.cu" % program,
                "features": feats[(program, kernel)]}

    n = 0
    for r in rows:
        if not r.get("speedup") or r["status"] not in TRAINING_STATUSES:
            continue
        key = (r["program"], r["kernel"])
        if key not in done and r["pipeline"] != "":
            lines.append(line(r, "", 1.0, "verified", n))
            n += 1
        done.add(key)
        verdict = "slower" if r["status"] == "slower" else "verified"
        lines.append(line(r, r["pipeline"], 1.0 / r["speedup"], verdict, n))
        n += 1
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l, sort_keys=True) + "\n")
    print("%s: %d rows of %d kernels" % (path, len(lines), len(done)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cuda-opt")
    ap.add_argument("--training", default=os.path.join(here, "training.jsonl"))
    ap.add_argument("--import-reports", metavar="DIR",
                    help="replace the training rows of the programs measured "
                    "in DIR (tune reports) and exit")
    ap.add_argument("--corpus", default=os.path.join(root, "bench/corpus"))
    ap.add_argument("--out",
                    default=os.path.join(root, "lib/Search/TuningPolicyData.inc"))
    ap.add_argument("--eval", default=os.path.join(here, "evaluation.md"))
    ap.add_argument("--version", default="h200-2026-12-05")
    ap.add_argument("--export-db", metavar="FILE.jsonl",
                    help="write the training rows with their kernels' "
                    "features as `cuda-opt db import` lines and exit")
    args = ap.parse_args()
    if args.export_db:
        if not args.cuda_opt:
            ap.error("--cuda-opt is required to export")
        export_db(args.cuda_opt, args.training, args.corpus, args.export_db)
        return
    if args.import_reports:
        import_reports(args.import_reports, args.training)
        return
    if not args.cuda_opt:
        ap.error("--cuda-opt is required to train")
    programs = load(args.cuda_opt, args.training, args.corpus)
    if len(programs) < 2:
        raise SystemExit("need at least two measured programs")
    names = feature_names(programs)
    ks, rows = evaluate(programs, names, space(args.cuda_opt))
    # NEIGHBOURS (3) was chosen among 1, 3, 5, 8, 24 on this same
    # evaluation: with 15 kernels that win, expect some optimism.
    learned, robin = write_eval(args.eval, ks, rows, programs)
    write_inc(args.out, programs, names, args.version)
    print("programs: %d, kernels with a win: %d" % (len(programs), len(rows)))
    for k, a, b in zip(ks, learned, robin):
        print("k=%-2d share of best found: learned %.2f, round-robin %.2f" %
              (k, a, b))


if __name__ == "__main__":
    main()
