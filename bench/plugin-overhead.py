#!/usr/bin/env python3
"""Compile-time overhead of the clang plugin with a tuning database that has
no entry for the file (issue 17 item 3: <= 10 % of the file's compile time).

  bench/plugin-overhead.py [--runs 5] [--build build] [FILES...]

For each file (default: every bench/corpus/*.cu), `clang++ -x cuda -O2 -c`
(host and device sides, one process) runs alternately without and with
`-fplugin=CudaOptPlugin.so -fplugin-arg-cudaopt-db=DB`, RUNS pairs after one
warm-up pair; the ratio is taken pair by pair (drift cancels) and the median
ratio is printed per file, with the geomean and the largest over the files.
DB holds recorded rows for a kernel no corpus file has, so the plugin opens
the database, finds nothing for the file and compiles it as written: the
"no database entry" case. Files clang cannot compile are listed and skipped.
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clang_command(cuda, src, out):
    cmd = ["clang++-22", "-x", "cuda", "--cuda-gpu-arch=sm_90",
           f"--cuda-path={cuda}", "-Wno-unknown-cuda-version",
           "-std=c++17", "-Xclang", "-target-sdk-version=12.9", "-O2", "-c",
           src, "-o", out, "-w"]
    cccl = os.path.join(cuda, "include", "cccl")
    if os.path.isdir(cccl):
        cmd += ["-isystem", cccl]
    return cmd


def timed(cmd):
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    return time.monotonic() - start, proc


def make_database(build, tmp):
    """A database whose only rows are for a kernel named in no corpus file."""
    src = os.path.join(tmp, "other.cu")
    with open(src, "w") as f:
        f.write("__global__ void plugin_overhead_only_kernel(float *y, int n)"
                " {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n)\n    y[i] += 1.0f;\n}\n")
    tool = os.path.join(build, "bin", "cuda-opt")
    hashes = subprocess.run([tool, "db", "hash", src], check=True,
                            capture_output=True, text=True).stdout
    hashes_file = os.path.join(tmp, "hashes")
    with open(hashes_file, "w") as f:
        f.write(hashes)
    rows = subprocess.run(
        [sys.executable, os.path.join(ROOT, "test/Search/Inputs/rows.py"),
         hashes_file, "plugin_overhead_only_kernel"],
        check=True, capture_output=True, text=True).stdout
    rows_file = os.path.join(tmp, "rows.jsonl")
    with open(rows_file, "w") as f:
        f.write(rows)
    db = os.path.join(tmp, "tuning.db")
    subprocess.run([tool, "db", "import", rows_file, "--db", db], check=True,
                   capture_output=True)
    return db


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--cuda", default="/usr/local/cuda")
    a = p.parse_args()
    plugin = os.path.join(a.build, "lib", "CudaOptPlugin.so")
    if not os.path.exists(plugin):
        sys.exit(f"error: no plugin at {plugin}: build the tree first "
                 "(scripts/bootstrap.sh build), or pass --build DIR")
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "bench/corpus/*.cu")))
    with tempfile.TemporaryDirectory() as tmp:
        db = make_database(a.build, tmp)
        out = os.path.join(tmp, "out.o")
        ratios, skipped = [], []
        print(f"{'file':<24} {'without s':>9} {'with s':>9} {'ratio':>6}")
        for src in files:
            name = os.path.basename(src)
            base = clang_command(a.cuda, src, out)
            plug = base + [f"-fplugin={plugin}",
                           f"-fplugin-arg-cudaopt-db={db}"]
            _, proc = timed(base)  # warm-up, and does clang take it at all?
            if proc.returncode != 0:
                skipped.append(name)
                continue
            _, proc = timed(plug)
            if proc.returncode != 0:
                sys.exit(f"error: {name} compiles without the plugin but not "
                         f"with it:\n{proc.stderr}")
            pairs = []
            for _ in range(a.runs):
                t0, _ = timed(base)
                t1, _ = timed(plug)
                pairs.append((t0, t1))
            ratio = statistics.median(t1 / t0 for t0, t1 in pairs)
            ratios.append((ratio, name))
            print(f"{name:<24} {statistics.median(t for t, _ in pairs):9.3f} "
                  f"{statistics.median(t for _, t in pairs):9.3f} {ratio:6.3f}",
                  flush=True)
    if not ratios:
        sys.exit("error: clang compiled none of the files")
    geo = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
    worst = max(ratios)
    print(f"\n{len(ratios)} files, {a.runs} pairs each: geomean ratio "
          f"{geo:.3f}, median {statistics.median(r for r, _ in ratios):.3f}, "
          f"largest {worst[0]:.3f} ({worst[1]})")
    if skipped:
        print(f"skipped (clang does not compile them as written): "
              f"{', '.join(skipped)}")


if __name__ == "__main__":
    main()
