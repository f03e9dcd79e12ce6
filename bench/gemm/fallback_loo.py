#!/usr/bin/env python3
"""Which plan should cudaoptGemm run for a shape its tuned table lacks?
Leave-one-shape-out over a measured grid (issue 16 item 5's fallback).

  bench/gemm/fallback_loo.py [bench/results/gemm-h200.json]

Every shape of the results file is held out in turn; each rule picks a plan
for it from what the other shapes measured, and the pick's measured median
(among the held-out shape's own measured candidates) over the best of them is
its regret (1.0 = the best plan). Rules:

  model            the cost model's first plan (the candidates' first row:
                   the order the run measured them in) - today's fallback
  nearest<=D       the best plan of the nearest measured shape of the same
                   type and layout (Euclidean in log2 M, N, K) when it lies
                   within D and was measured on the held-out shape; else model
  other type       the best plan of the same shape in the other 16-bit type
                   (f16 <-> bf16, same layout) when measured; else model

Prints the geomean regret, the share of shapes the rule decided (the rest fell
back to the model) and how many picks lost more than 5 %.
"""
import collections
import json
import math
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def best(shape):
    return min(shape["candidates"], key=lambda c: c["ms"])


def log_shape(shape):
    return [math.log2(shape[d]) for d in ("M", "N", "K")]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "bench/results/gemm-h200.json")
    shapes = [s for s in json.load(open(path))["shapes"] if s["candidates"]]
    groups = collections.defaultdict(list)
    by_key = {}
    for s in shapes:
        groups[(s["type"], s["layout"])].append(s)
        by_key[(s["type"], s["layout"], s["M"], s["N"], s["K"])] = s

    rules = collections.OrderedDict()

    def record(rule, regret, decided):
        rules.setdefault(rule, []).append((regret, decided))

    for s in shapes:
        measured = {c["plan"]: c["ms"] for c in s["candidates"]}
        floor = best(s)["ms"]
        model = s["candidates"][0]["ms"] / floor
        record("model", model, True)
        others = [t for t in groups[(s["type"], s["layout"])] if t is not s]
        nearest = min(others, key=lambda t: math.dist(log_shape(s),
                                                      log_shape(t)))
        distance = math.dist(log_shape(s), log_shape(nearest))
        for limit in (0.5, 1.0, 2.0, 100.0):
            plan = best(nearest)["plan"]
            if distance <= limit and plan in measured:
                record(f"nearest<={limit:g}", measured[plan] / floor, True)
            else:
                record(f"nearest<={limit:g}", model, False)
        other = by_key.get(("bf16" if s["type"] == "f16" else "f16",
                            s["layout"], s["M"], s["N"], s["K"]))
        plan = best(other)["plan"] if other else None
        if plan in measured:
            record("other type", measured[plan] / floor, True)
        else:
            record("other type", model, False)

    print(f"{len(shapes)} shapes from {os.path.relpath(path, ROOT)}")
    print(f"{'rule':<16} {'regret':>7} {'decided':>8} {'>1.05':>6} {'worst':>6}")
    for rule, rows in rules.items():
        regrets = [r for r, _ in rows]
        decided = sum(d for _, d in rows)
        print(f"{rule:<16} {geomean(regrets):7.4f} {decided / len(rows):8.0%} "
              f"{sum(r > 1.05 for r in regrets):6d} {max(regrets):6.3f}")


if __name__ == "__main__":
    main()
