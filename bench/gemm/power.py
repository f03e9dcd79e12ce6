#!/usr/bin/env python3
"""Summary of device-run.sh power: per input kind, TFLOP/s of ours, cuBLAS
and autotuned cuBLASLt per shape, and the SM clock and board power that
nvidia-smi sampled while that run was busy (samples with utilization > 50 %).

Usage: power.py DIR   (DIR holds power-<inputs>.jsonl and smi-<inputs>.csv)
"""

import csv
import json
import os
import statistics
import sys


def busy_samples(path):
    clocks, watts = [], []
    with open(path) as f:
        for row in csv.reader(f):
            try:
                util = float(row[1].split()[0])
                clk = float(row[2].split()[0])
                pw = float(row[3].split()[0])
            except (IndexError, ValueError):
                continue  # header or a "[N/A]"
            if util > 50:
                clocks.append(clk)
                watts.append(pw)
    return clocks, watts


def main():
    d = sys.argv[1]
    for kind in ("normal", "binary"):
        res = os.path.join(d, f"power-{kind}.jsonl")
        smi = os.path.join(d, f"smi-{kind}.csv")
        if not os.path.exists(res):
            continue
        clocks, watts = busy_samples(smi) if os.path.exists(smi) else ([], [])
        if clocks:
            print(f"inputs {kind}: {len(clocks)} busy samples, SM clock median "
                  f"{statistics.median(clocks):.0f} MHz (min {min(clocks):.0f}),"
                  f" power median {statistics.median(watts):.0f} W "
                  f"(max {max(watts):.0f})")
        for line in open(res):
            r = json.loads(line)
            if "M" not in r or r.get("failed"):
                continue

            def tf(name):
                ms = r.get(name, {}).get("ms", 0)
                return r["flop"] / ms / 1e9 if ms > 0 else 0

            print(f"  {r['M']}x{r['N']}x{r['K']} {r['type']}/{r['layout']}: "
                  f"ours {tf('ours'):.1f} TF ({r.get('ours_plan')}), cuBLAS "
                  f"{tf('cublas'):.1f}, cuBLASLt autotuned {tf('lt_auto'):.1f}")


if __name__ == "__main__":
    main()
