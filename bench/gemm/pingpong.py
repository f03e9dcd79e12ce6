#!/usr/bin/env python3
"""The A/B of gemm-bench --pingpong: per shape, the best ping-pong plan
("ours_pp") against the best other plan ("ours_nopp"), both re-timed in
the final interleaved rounds next to cuBLAS and autotuned cuBLASLt; then
the geomean of the speed-up and, per configuration, how often its
ping-pong plan was the better one.

Usage: pingpong.py results.jsonl [more.jsonl ...]
"""

import json
import math
import sys


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0


def main():
    gains, wins = [], {}
    for path in sys.argv[1:]:
        for line in open(path):
            d = json.loads(line)
            if "M" not in d or d.get("failed") or "ours_pp" not in d:
                continue
            flop = d["flop"]

            def us(name):
                return d.get(name, {}).get("ms", 0) * 1e3

            pp, nopp, cb, lt = (us("ours_pp"), us("ours_nopp"), us("cublas"),
                                us("lt_auto"))
            if pp <= 0 or nopp <= 0:
                print(f"{d['M']}x{d['N']}x{d['K']} {d['type']}/{d['layout']}:"
                      " a family has no timed plan")
                continue

            def tf(t):
                return flop / t / 1e6 if t > 0 else 0

            gains.append(nopp / pp)
            name = d["ours_pp_plan"].split("/")[0]
            won = wins.setdefault(name, [0, 0])
            won[0] += nopp > pp
            won[1] += 1
            print(f"{d['type']}/{d['layout']} {d['M']}x{d['N']}x{d['K']}: "
                  f"ping-pong {tf(pp):.1f} TF ({d['ours_pp_plan']}) vs "
                  f"{tf(nopp):.1f} TF ({d['ours_nopp_plan']}): x{nopp / pp:.3f}"
                  f"; cublas {tf(cb):.1f}, lt_auto {tf(lt):.1f} TF")
    print(f"geomean ping-pong speed-up x{geomean(gains):.3f} over {len(gains)}"
          " rows")
    for name, (won, n) in sorted(wins.items()):
        print(f"  best ping-pong plan on {name}: faster on {won} of {n}")


if __name__ == "__main__":
    main()
