#!/usr/bin/env python3
"""Instrument every kernel of every program in a directory for program-mode
capture (cuda-opt --instrument-capture) and build the result with nvcc, the
way `cuda-opt tune` does before running it. Prints one line per kernel and
exits 1 if any step fails.

    check_capture_instrumentation.py --tool CUDA_OPT --nvcc NVCC \\
        --runtime runtime/capture --work DIR bench/corpus/*.cu
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys


def kernels_of(cuda_opt, src):
    out = subprocess.run([cuda_opt, "--list-kernels", src], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return re.findall(r"^kernel (\S+)", out.stdout, re.M)


def check(args, src, kernel):
    name = "%s.%s" % (os.path.splitext(os.path.basename(src))[0], kernel)
    inst = os.path.join(args.work, name + ".cu")
    r = subprocess.run([args.cuda_opt, "--instrument-capture",
                        "--kernel=" + kernel, src, "-o", inst],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return name, "instrument failed: " + r.stderr.strip()[:300]
    if "cuda_opt_capture::launch(" not in open(inst).read():
        return name, "no launch was instrumented"
    r = subprocess.run([args.nvcc, "-std=c++17", "-arch=sm_90", "-w",
                        "-I", args.runtime, "-I", os.path.dirname(src), inst,
                        "-o", os.path.join(args.work, name)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return name, "nvcc failed: " + r.stderr.strip()[:300]
    return name, "ok"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", dest="cuda_opt", required=True,
                    help="the cuda-opt binary")
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    jobs = [(s, k) for s in args.sources for k in kernels_of(args.cuda_opt, s)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda j: check(args, *j), jobs))
    bad = 0
    for name, status in sorted(results):
        print("%s: %s" % (name, status))
        bad += status != "ok"
    print("%d kernels, %d failed" % (len(results), bad))
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main())
