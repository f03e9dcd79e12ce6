#!/usr/bin/env python3
"""Run cuda-opt's front-end steps over the translation units of a CUDA suite.

The suite's own build files say which .cu files are translation units and
with which flags (utils/suite_builds.py: Makefiles and CMakeLists.txt, read
in Python, nothing run): each unit gets its compile's -I, -D, -U, -include,
-std, relocatable device code (-rdc=true -> -fgpu-rdc) and the host
compiler's -fopenmp. A .cu file that is only #included by a unit is
reported as "included by" it and not swept on its own. A .cu file no build
compiles or includes (NVRTC kernels loaded at run time, dead files) is
"not built": swept only with --unbuilt, with the include paths guessed from
its folder (the folder and its parents up to the suite root, their
inc/include/common folders, plus --include DIRs), and counted apart.

For each swept file: `--list-kernels`, `--analyze` and `tune --dry-run`
(each under a time limit); `--steps` also takes `regions`, `fuse`,
`temporal`, `region-build` (the region phase's outlined files, as tune
builds them for the measurement worker, compiled by --nvcc) and `predict`
(`cuda-opt FILE -o OUT` without a mode: the predicted strict rewrite a user
without a GPU gets; with --nvcc its output is compiled too). Each step ends as one of
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
                      [--timeout 60] [--jobs 2] [--tsv OUT.tsv] [--unbuilt]
                      [--nvcc /usr/local/cuda/bin/nvcc] [--only SUBSTRING]
       sweep-suite.py --list-units --suite NAME=DIR    (no cuda-opt needed)

With --nvcc each swept file is also compiled by nvcc (-c -arch=sm_90, the
unit's own flags) as the ground truth, and the summary lists the files nvcc
compiles but cuda-opt refuses (the divergences the front end must paper
over) and, for each file nvcc rejects, nvcc's first error next to
cuda-opt's.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_builds  # noqa: E402

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
    # tune --dry-run writing the region phase's outlined files (every
    # rewrite and in-place rival of every host region, as tune builds them
    # for the measurement worker), each then compiled by --nvcc with the
    # unit's flags: ok when all compile ("no region" when there is none).
    "region-build": ["tune", "--dry-run", "--budget=4", "-o"],
    "predict": [],  # run_predict
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
    """The first error's message, without the path and position; an error
    inside an included file is named by its message, not by the "In file
    included from" line that precedes it."""
    for line in out.splitlines():
        if "error:" in line and "In file included from" not in line:
            # The message without the path and position.
            return re.sub(r"^.*?error: (\S+:\d+:\d+: )?(error: )?", "",
                          line)[:160]
    return ""


def accepted_note(out):
    """For a step that succeeded: the clang errors the parse accepted because
    nvcc compiles the code (cuda-opt's warning, docs/nvcc-compatibility.md),
    as "accepted: 'x' in 'f': what", or ""."""
    notes = []
    for m in re.finditer(r"warning: \S+:\d+:\d+: ('[^']*' in '[^']*'): "
                         r"(a [^,;(]*)", out):
        note = "%s: %s" % (m.group(1), m.group(2).strip())
        if note not in notes:
            notes.append(note)
    return ("accepted: " + "; ".join(notes))[:200] if notes else ""


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


def first_nvcc_error(out):
    """nvcc's first error line without the path and position (nvcc's
    `f.cu(12): error: ...`, the host compiler's `f.cu:3:10: fatal error:
    ...`), or ""."""
    for line in out.splitlines():
        if re.search(r"\berror\b", line):
            return re.sub(r"^\S*?(\(\d+\)|:\d+:\d+):\s*", "",
                          line).strip()[:160]
    return ""


def run_region_build(cuda_opt, nvcc, path, flags, nvcc_flags, timeout):
    if not nvcc:
        return "diagnosed", "region-build needs --nvcc"
    out_dir = tempfile.mkdtemp(prefix="regions-", dir=SCRATCH)
    env = dict(os.environ, CUDA_OPT_DRY_RUN_REGION_DIR=out_dir)
    p = subprocess.run(["timeout", str(timeout), cuda_opt] +
                       STEPS["region-build"] +
                       [os.path.join(out_dir, "out.cu"), path, "--"] + flags,
                       capture_output=True, text=True, errors="replace",
                       env=env)
    out = p.stdout + p.stderr
    outcome = classify(p.returncode, out)
    if outcome != "ok":
        return outcome, first_error(out)
    files = sorted(f for f in os.listdir(out_dir)
                   if re.fullmatch(r"region-\d+-v\d+\.cu", f))
    if not files:
        return "ok", "no region"
    for f in files:
        err = nvcc_error_elsewhere(nvcc, os.path.join(out_dir, f), path,
                                   nvcc_flags, timeout)
        if err is not None:
            return "diagnosed", "%s: %s" % (f, err)
    return "ok", "%d region file(s) built" % len(files)


def nvcc_error_elsewhere(nvcc, out_file, path, nvcc_flags, timeout):
    """nvcc's first error compiling OUT_FILE, a rewrite of unit PATH written
    in another folder (the unit's own folder is searched for its quoted
    includes), or None when it compiles."""
    q = subprocess.run(["timeout", str(3 * timeout), nvcc, "-arch=sm_90",
                        "-c", out_file, "-o", out_file + ".o",
                        "-I" + os.path.dirname(os.path.abspath(path))] +
                       nvcc_flags,
                       capture_output=True, text=True, errors="replace")
    if q.returncode == 0:
        return None
    return first_nvcc_error(q.stdout + q.stderr) or "nvcc failed"


def run_predict(cuda_opt, nvcc, path, flags, nvcc_flags, timeout):
    """cuda-opt without a mode on PATH; with NVCC, its output compiled with
    the unit's flags (ok only when it compiles)."""
    out_dir = tempfile.mkdtemp(prefix="predict-", dir=SCRATCH)
    out_file = os.path.join(out_dir, os.path.basename(path))
    p = subprocess.run(["timeout", str(timeout), cuda_opt, path, "-o",
                        out_file, "--"] + flags,
                       capture_output=True, text=True, errors="replace")
    out = p.stdout + p.stderr
    outcome = classify(p.returncode, out)
    if outcome != "ok":
        return outcome, first_error(out)
    with open(out_file, errors="replace") as f:
        header = f.readline().strip()
    m = re.match(r"// cuda-opt: '(.*)' predicted", header)
    what = m.group(1) if m else "nothing rewritten"
    if not nvcc or not m:
        return "ok", what[:200]
    err = nvcc_error_elsewhere(nvcc, out_file, path, nvcc_flags, timeout)
    if err is not None:
        return "diagnosed", "predicted output: %s" % err
    return "ok", what[:200]


def run_step(cuda_opt, step, path, flags, timeout):
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
    outcome = classify(p.returncode, out)
    return outcome, (accepted_note(out) if outcome == "ok"
                     else first_error(out))


NVCC_CACHE = {}


def nvcc_compiles(nvcc, path, flags, timeout):
    """(compiles, nvcc's first error); from --nvcc-cache when the same
    command was compiled before."""
    key = " ".join([nvcc, path] + flags)
    if key in NVCC_CACHE:
        return tuple(NVCC_CACHE[key])
    obj = os.path.join(SCRATCH, re.sub(r"\W", "_", path) + ".o")
    p = subprocess.run(["timeout", str(timeout), nvcc, "-arch=sm_90", "-c",
                        path, "-o", obj] + flags,
                       capture_output=True, text=True, errors="replace")
    err = first_nvcc_error(p.stdout + p.stderr)
    if p.returncode == 124:
        err = "timeout"
    NVCC_CACHE[key] = (p.returncode == 0, err)
    return p.returncode == 0, err


def collect(args):
    """[(suite, root, path, kind, cuda-opt flags, nvcc flags, note)]: kind is
    unit, included (note: the unit) or unbuilt."""
    jobs = []
    for spec in args.suite:
        name, root = spec.split("=", 1)
        root = os.path.abspath(root)
        units, included, unbuilt = suite_builds.classify_suite(
            root, args.cuda_path)
        for path, u in units.items():
            jobs.append((name, root, path, "unit", u.parse_flags(),
                         u.nvcc_flags, u.build))
        for path, by in included.items():
            jobs.append((name, root, path, "included", [], [],
                         os.path.relpath(by, root)))
        for path in unbuilt:
            flags = []
            for d in include_dirs(path, root, args.include):
                flags.append("-I" + d)
            jobs.append((name, root, path, "unbuilt", flags, flags, ""))
    jobs.sort(key=lambda j: (j[0], j[2]))
    if args.only:
        jobs = [j for j in jobs if any(o in j[2] for o in args.only)]
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-opt")
    ap.add_argument("--suite", action="append", required=True,
                    help="NAME=DIR")
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--steps", default="list,analyze,dry-run")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tsv", default=None)
    ap.add_argument("--nvcc", default=None)
    ap.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH",
                                                          "/usr/local/cuda"))
    ap.add_argument("--nvcc-cache", default=None,
                    help="JSON file of nvcc results, read and updated (nvcc "
                    "is the slow part; its verdicts do not change with "
                    "cuda-opt)")
    ap.add_argument("--unbuilt", action="store_true",
                    help="also sweep the .cu files no build compiles")
    ap.add_argument("--only", action="append", default=[],
                    help="only files whose path contains this")
    ap.add_argument("--list-units", action="store_true",
                    help="print each .cu file's classification and flags")
    args = ap.parse_args()
    jobs = collect(args)
    if args.list_units:
        for name, root, path, kind, flags, _, note in jobs:
            rel = os.path.relpath(path, root)
            shown = " ".join(f.replace(root, "<" + name + ">") for f in flags)
            if kind == "unit":
                print("%s: unit %s [%s]: %s" % (name, rel, note, shown))
            elif kind == "included":
                print("%s: included %s by %s" % (name, rel, note))
            else:
                print("%s: not-built %s" % (name, rel))
        return
    if not args.cuda_opt:
        ap.error("--cuda-opt is required")
    steps = args.steps.split(",")

    def work(job):
        name, root, path, kind, flags, nvcc_flags, note = job
        res = {}
        if kind == "included" or (kind == "unbuilt" and not args.unbuilt):
            return job, res
        for step in steps:
            if step == "region-build":
                res[step] = run_region_build(args.cuda_opt, args.nvcc, path,
                                             flags, nvcc_flags, args.timeout)
            elif step == "predict":
                res[step] = run_predict(args.cuda_opt, args.nvcc, path,
                                        flags, nvcc_flags, args.timeout)
            else:
                res[step] = run_step(args.cuda_opt, step, path, flags,
                                     args.timeout)
            if res[step][0] in ("no-kernel", "diagnosed"):
                break  # the later steps parse the same way
        if args.nvcc:
            ok, err = nvcc_compiles(args.nvcc, path, nvcc_flags,
                                    3 * args.timeout)
            res["nvcc"] = ("ok" if ok else "fails", err)
        return job, res

    if args.nvcc_cache and os.path.exists(args.nvcc_cache):
        with open(args.nvcc_cache) as f:
            NVCC_CACHE.update(json.load(f))
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for n, (job, res) in enumerate(pool.map(work, jobs), 1):
            results.append((job, res))
            name, root, path, kind, _, _, note = job
            what = (" ".join("%s=%s" % (s, r[0]) for s, r in res.items())
                    if res else ("included by " + note if kind == "included"
                                 else "not built"))
            print("[%d/%d] %s %s" % (n, len(jobs), os.path.relpath(path, root),
                                     what), file=sys.stderr)
    if args.nvcc_cache:
        with open(args.nvcc_cache, "w") as f:
            json.dump(NVCC_CACHE, f, indent=0, sort_keys=True)
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("suite\tfile\tkind\t" + "\t".join(steps) +
                    "\tnvcc\terror\tnvcc error\tbuild\n")
            for (name, root, path, kind, _, _, note), res in results:
                err = next((r[1] for s, r in res.items()
                            if s != "nvcc" and r[1]), "")
                f.write("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
                    name, os.path.relpath(path, root), kind,
                    "\t".join(res[s][0] if s in res else "-" for s in steps),
                    res["nvcc"][0] if "nvcc" in res else "-", err,
                    res["nvcc"][1] if "nvcc" in res else "", note))

    # Summary: the file's outcome is its first step that did not succeed.
    # Units and, apart, the files no build compiles (guessed flags).
    def population(job):
        name, kind = job[0], job[3]
        return name if kind != "unbuilt" else name + " (not built)"

    print("| suite | .cu files | units | included by a unit | not built | "
          "parsed (all steps ok) | no kernel | diagnosed | crash | timeout |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    per = collections.defaultdict(collections.Counter)
    files = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    bad = []
    for job, res in results:
        name, root, path, kind = job[:4]
        files[name][kind] += 1
        if not res:
            continue
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
        per[population(job)][outcome] += 1
    for name in files:
        for pop, label in ((name, name), (name + " (not built)",
                                          name + ", not built (guessed -I)")):
            if pop not in per:
                continue
            c, f = per[pop], files[name]
            if pop == name:
                head = "| %s | %d | %d | %d | %d |" % (
                    label, sum(f.values()), f["unit"], f["included"],
                    f["unbuilt"])
            else:
                head = "| %s | | | | %d |" % (label, f["unbuilt"])
            print(head + " %d | %d | %d | %d | %d |" % (
                c["ok"], c["no-kernel"], c["diagnosed"], c["crash"],
                c["timeout"]))
    accepted = []
    for job, res in results:
        if res and res[steps[0]][0] == "ok" and res[steps[0]][1]:
            accepted.append("`%s`%s: %s" % (
                os.path.relpath(job[2], job[1]),
                " (nvcc %s)" % res["nvcc"][0] if "nvcc" in res else "",
                res[steps[0]][1]))
    if accepted:
        print("\nParsed with a clang error on code nvcc compiles "
              "(warned; docs/nvcc-compatibility.md):\n")
        for a in accepted:
            print("- " + a)
    if args.nvcc:
        agree = collections.Counter()
        diverge, rejected = [], []
        for job, res in results:
            if not res:
                continue
            name, root, path = job[:3]
            ours = ("ok" if res[steps[0]][0] in ("ok", "no-kernel")
                    else "refused")
            agree[(population(job), res["nvcc"][0], ours)] += 1
            rel = os.path.relpath(path, root)
            if res["nvcc"][0] == "ok" and ours != "ok":
                diverge.append("`%s`: %s" % (rel, res[steps[0]][1]))
            if res["nvcc"][0] != "ok":
                rejected.append("`%s`: nvcc: %s; cuda-opt: %s" % (
                    rel, res["nvcc"][1] or "?",
                    res[steps[0]][1] if ours != "ok" else "parsed"))
        print("\nAgainst nvcc (-c -arch=sm_90, each unit's own flags; "
              "cuda-opt's `%s`):\n" % steps[0])
        print("| suite | nvcc ok, parsed | nvcc ok, refused | nvcc fails, "
              "parsed | nvcc fails, refused |")
        print("|---|---|---|---|---|")
        for pop in per:
            print("| %s | %d | %d | %d | %d |" % (
                pop, agree[(pop, "ok", "ok")], agree[(pop, "ok", "refused")],
                agree[(pop, "fails", "ok")],
                agree[(pop, "fails", "refused")]))
        if diverge:
            print("\nnvcc compiles, cuda-opt refuses:\n")
            for d in diverge:
                print("- " + d)
        if rejected:
            print("\nnvcc rejects (nvcc's first error; cuda-opt's):\n")
            for d in rejected:
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
