#!/usr/bin/env python3
"""Run cuda-opt's front-end steps over every .cu file of a CUDA suite.

For each file: `--list-kernels`, `--analyze` and `tune --dry-run` (each under
a time limit), with the include paths a suite's Makefiles give (the file's
folder and its parents up to the suite root, plus --include DIRs). Each step
ends as one of
  ok         exit 0
  no-kernel  the file defines no __global__ kernel (host code, headers)
  diagnosed  a non-zero exit with an error message
  crash      a signal, or LLVM's crash report
  timeout    over the limit
and the file's first error line is kept. Writes a TSV of every file and
prints a Markdown summary (counts per suite and step, then every crash,
timeout and the most common diagnostics).

usage: sweep-suite.py --cuda-opt build/bin/cuda-opt --suite NAME=DIR
                      [--suite ...] [--include DIR ...] [--steps list,analyze,dry-run]
                      [--timeout 60] [--jobs 2] [--tsv OUT.tsv]
                      [--nvcc /usr/local/cuda/bin/nvcc]

With --nvcc each file is also compiled by nvcc (-c, same include paths) as
the ground truth, and the summary lists the files nvcc compiles but
cuda-opt refuses: the divergences the front end must paper over.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

SCRATCH = tempfile.mkdtemp(prefix="sweep-")

STEPS = {
    "list": ["--list-kernels"],
    "analyze": ["--analyze"],
    "regions": ["--list-regions"],
    # Only on files with a host region: fuse-launches on every kernel; ok
    # when a pair fused, else the first kernel's reason.
    "fuse": ["--passes=fuse-launches"],
    # Only on files with a host region: temporal-block on every kernel; ok
    # when a time loop was blocked, else the first kernel's reason.
    "temporal": ["--passes=temporal-block"],
    "dry-run": ["tune", "--dry-run", "--budget=4", "-o"],
}


def include_dirs(path, root, extra):
    dirs = []
    d = os.path.dirname(os.path.abspath(path))
    root = os.path.abspath(root)
    while d.startswith(root):
        dirs.append(d)
        for sub in ("inc", "include", "common", "Common"):
            if os.path.isdir(os.path.join(d, sub)):
                dirs.append(os.path.join(d, sub))
        if d == root:
            break
        d = os.path.dirname(d)
    return dirs + list(extra)


def classify(rc, out):
    if rc == 124:
        return "timeout"
    if rc < 0 or rc > 128 or "Stack dump" in out or "PLEASE submit" in out:
        return "crash"
    if rc == 0:
        return "ok"
    if "no __global__ kernel is defined" in out:
        return "no-kernel"
    return "diagnosed"


def first_error(out):
    for line in out.splitlines():
        if "error:" in line:
            # The message without the path and position.
            return re.sub(r"^.*?error: (\S+:\d+:\d+: )?(error: )?", "", line)[:160]
    return ""


# Region passes: the pass and the comment its rewrite adds, counted.
REGION_PASSES = {
    "fuse": ("fuse-launches", "Added by cuda-opt fuse-launches", "pair(s) fused"),
    "temporal": ("temporal-block", "Added by cuda-opt temporal-block",
                 "time loop(s) blocked"),
}


def run_region_pass(cuda_opt, step, path, flags, timeout):
    pass_name, marker, what = REGION_PASSES[step]
    p = subprocess.run(["timeout", str(timeout), cuda_opt, "--list-regions",
                        "--json", path, "--"] + flags,
                       capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return classify(p.returncode, p.stdout + p.stderr), first_error(
            p.stdout + p.stderr)
    if not p.stdout.strip().startswith("[") or p.stdout.strip() == "[]":
        return "no-region", ""
    p = subprocess.run(["timeout", str(timeout), cuda_opt,
                        "--passes=" + pass_name, path, "--"] + flags,
                       capture_output=True, text=True, errors="replace")
    out = p.stdout + p.stderr
    if p.returncode == 0:
        return "ok", "%d %s" % (out.count(marker), what)
    # The first kernel's reason, after "is not legal here:".
    for line in out.splitlines():
        if line.startswith("  kernel '"):
            return classify(p.returncode, out), re.sub(
                r"/\S+:\d+:\d+", "FILE", line.strip())[:200]
    return classify(p.returncode, out), first_error(out)


def run_step(cuda_opt, step, path, root, extra, timeout):
    flags = []
    for d in include_dirs(path, root, extra):
        flags += ["-I", d]
    if step in REGION_PASSES:
        return run_region_pass(cuda_opt, step, path, flags, timeout)
    cmd = ["timeout", str(timeout), cuda_opt] + STEPS[step][:1]
    if step == "dry-run":
        # The dry run's output and report go to a scratch file.
        scratch = os.path.join(SCRATCH, re.sub(r"\W", "_", path) + ".cu")
        cmd += [path] + STEPS[step][1:] + [scratch]
    else:
        cmd += [path]
    cmd += ["--"] + flags
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    out = p.stdout + p.stderr
    return classify(p.returncode, out), first_error(out)


def nvcc_compiles(nvcc, path, root, extra, timeout):
    flags = []
    for d in include_dirs(path, root, extra):
        flags += ["-I", d]
    obj = os.path.join(SCRATCH, re.sub(r"\W", "_", path) + ".o")
    p = subprocess.run(["timeout", str(timeout), nvcc, "-std=c++17",
                        "-arch=sm_90", "-c", path, "-o", obj] + flags,
                       capture_output=True, text=True, errors="replace")
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-opt", required=True)
    ap.add_argument("--suite", action="append", required=True,
                    help="NAME=DIR")
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--steps", default="list,analyze,dry-run")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tsv", default=None)
    ap.add_argument("--nvcc", default=None)
    args = ap.parse_args()
    steps = args.steps.split(",")
    jobs = []
    for spec in args.suite:
        name, root = spec.split("=", 1)
        for d, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if f.endswith(".cu"):
                    jobs.append((name, root, os.path.join(d, f)))

    def work(job):
        name, root, path = job
        res = {}
        for step in steps:
            res[step] = run_step(args.cuda_opt, step, path, root, args.include,
                                 args.timeout)
            if res[step][0] in ("no-kernel", "diagnosed"):
                break  # the later steps parse the same way
        if args.nvcc:
            res["nvcc"] = ("ok" if nvcc_compiles(args.nvcc, path, root,
                                                 args.include, 3 * args.timeout)
                           else "fails", "")
        return job, res

    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for n, (job, res) in enumerate(pool.map(work, jobs), 1):
            results.append((job, res))
            print("[%d/%d] %s %s" % (n, len(jobs), job[2],
                                     " ".join("%s=%s" % (s, r[0])
                                              for s, r in res.items())),
                  file=sys.stderr)
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("suite\tfile\t" + "\t".join(steps) + "\tnvcc\terror\n")
            for (name, root, path), res in results:
                err = next((r[1] for r in res.values() if r[1]), "")
                f.write("%s\t%s\t%s\t%s\t%s\n" % (
                    name, os.path.relpath(path, root),
                    "\t".join(res[s][0] if s in res else "-" for s in steps),
                    res["nvcc"][0] if "nvcc" in res else "-", err))

    # Summary: the file's outcome is its first step that did not succeed.
    print("| suite | files | " + " | ".join(
        ["parsed (all steps ok)", "no kernel", "diagnosed", "crash",
         "timeout"]) + " |")
    print("|---|---|---|---|---|---|---|")
    per = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    bad = []
    for (name, root, path), res in results:
        outcome = "ok"
        for s in steps:
            if s in res and res[s][0] != "ok":
                outcome = res[s][0]
                if outcome in ("crash", "timeout"):
                    bad.append("%s `%s` (%s): %s" % (
                        outcome, os.path.relpath(path, root), s, res[s][1]))
                if outcome == "diagnosed":
                    reasons[res[s][1]] += 1
                break
        per[name][outcome] += 1
    for name, c in per.items():
        print("| %s | %d | %d | %d | %d | %d | %d |" % (
            name, sum(c.values()), c["ok"], c["no-kernel"], c["diagnosed"],
            c["crash"], c["timeout"]))
    if args.nvcc:
        agree = collections.Counter()
        diverge = []
        for (name, root, path), res in results:
            ours = ("ok" if res[steps[0]][0] in ("ok", "no-kernel")
                    else "refused")
            agree[(name, res["nvcc"][0], ours)] += 1
            if res["nvcc"][0] == "ok" and ours != "ok":
                diverge.append("`%s`: %s" % (os.path.relpath(path, root),
                                              res[steps[0]][1]))
        print("\nAgainst nvcc (-c, same include paths; cuda-opt's `%s`):\n"
              % steps[0])
        print("| suite | nvcc ok, parsed | nvcc ok, refused | nvcc fails, "
              "parsed | nvcc fails, refused |")
        print("|---|---|---|---|---|")
        for name in per:
            print("| %s | %d | %d | %d | %d |" % (
                name, agree[(name, "ok", "ok")], agree[(name, "ok", "refused")],
                agree[(name, "fails", "ok")],
                agree[(name, "fails", "refused")]))
        if diverge:
            print("\nnvcc compiles, cuda-opt refuses:\n")
            for d in diverge:
                print("- " + d)
    if bad:
        print("\nCrashes and timeouts:\n")
        for b in bad:
            print("- " + b)
    print("\nMost common diagnostics:\n")
    for r, n in reasons.most_common(12):
        print("- %d x `%s`" % (n, r))


if __name__ == "__main__":
    main()
