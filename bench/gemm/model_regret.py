#!/usr/bin/env python3
"""How good is the cost model's first plan? For every shape of gemm-bench
runs, the tuning-phase median of the plan the model ranked first, over the
best measured candidate ("regret"; 1.0 = the model picked the winner).

Column "run": the first candidate of the run itself (the model of the build
that ran). Column "now": the current model's first plan, replayed on the
CPU by ModelReplay (built here with nvcc against build-gemm/lib), looked up
among the same measured candidates.

Usage: model_regret.py results.jsonl [more.jsonl ...]
"""

import json
import math
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def replay(shapes):
    exe = os.path.join(ROOT, "build-gemm", "model-replay")
    subprocess.run(
        [os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"), "-std=c++17",
         "-I" + os.path.join(ROOT, "runtime/gemm/include"),
         "-I" + os.path.join(ROOT, "runtime/gemm/lib"),
         os.path.join(ROOT, "bench/gemm/ModelReplay.cpp"),
         os.path.join(ROOT, "build-gemm/lib/libcudaopt_gemm.a"),
         "-o", exe, "-lcuda"], check=True)
    out = subprocess.run([exe], input="\n".join(f"{m} {n} {k}"
                                                for m, n, k in shapes),
                         capture_output=True, text=True, check=True).stdout
    return out.split("\n")


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0


def main():
    rows = []
    for path in sys.argv[1:]:
        for line in open(path):
            d = json.loads(line)
            if "M" in d and "ours" in d and d["candidates"]:
                rows.append(d)
    plans = replay([(d["M"], d["N"], d["K"]) for d in rows])
    run, now, missing = [], [], 0
    for d, plan in zip(rows, plans):
        ms = {c["plan"]: c["ms"] for c in d["candidates"] if c["ms"] > 0}
        if not ms or d["candidates"][0]["ms"] <= 0:
            continue
        best = min(ms.values())
        run.append(d["candidates"][0]["ms"] / best)
        if plan in ms:
            now.append(ms[plan] / best)
        else:
            missing += 1
    print(f"{len(run)} rows: regret of the run's first plan {geomean(run):.3f}"
          f" ({sum(r > 1.1 for r in run)} over 1.1); current model "
          f"{geomean(now):.3f} on {len(now)} rows ({missing} rows where its "
          "first plan was not measured)")


if __name__ == "__main__":
    main()
