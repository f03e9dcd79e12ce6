#!/usr/bin/env python3
"""consumeLean's bookkeeping (Decode 3, SpmmBulkKernel.cuh) against the loop
it replaces, on the CPU.

The pipeline-3 consumer loop of Decodes 0-2 walks its CTA's items with a
Cursor (half block, n-chunk, M block), waits on stage J % STAGES with parity
(J / STAGES) & 1 and ends an output tile when the half block is the tile's
last or the item is the CTA's last (endOfItem / endOfItemMasked: finishTile
with the count of items covered). consumeLean keeps the stage and parity as
induction variables, the chain as a mask flipped per item, and the tile's
position, its remaining items and the CTA's remaining items changed only at
a tile end, where the loop also ends. This model of both (the same
statements, in Python) checks, for random item ranges and shapes, that they
process the same items in the same order (M block, n-chunk, chain, stage,
parity) and end the same tiles with the same counts.

Usage: bench/spmm/lean_loop_check.py [--cases N]
"""
import argparse
import random


def cursor(item, hpu, nchunks):
    unit = item // hpu
    half = item - unit * hpu
    mb = unit // nchunks
    return half, unit - mb * nchunks, mb


def reference(begin, count, hpu, nchunks, stages):
    half, nc, mb = cursor(begin, hpu, nchunks)
    items, ends, covered = [], [], 0
    for j in range(count):
        items.append((mb, nc, half & 1, j % stages, (j // stages) & 1))
        covered += 1
        if half == hpu - 1 or j == count - 1:
            ends.append((mb, nc, covered))
            covered = 0
        half += 1
        if half == hpu:
            half, nc = 0, nc + 1
            if nc == nchunks:
                nc, mb = 0, mb + 1
    return items, ends


def lean(begin, count, hpu, nchunks, stages):
    half, nc, mb = cursor(begin, hpu, nchunks)
    left = min(hpu - half, count)
    covered, rest = left, count - left
    chain = -(half & 1)
    s, parity = 0, 0
    items, ends = [], []
    while True:
        items.append((mb, nc, 1 if chain else 0, s, parity))
        chain = ~chain
        left -= 1
        if left == 0:
            ends.append((mb, nc, covered))
            if rest == 0:
                break
            chain = 0
            nc += 1
            if nc == nchunks:
                nc, mb = 0, mb + 1
            left = covered = min(hpu, rest)
            rest -= left
        s += 1
        if s == stages:
            s, parity = 0, parity ^ 1
    return items, ends


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=100000)
    args = ap.parse_args()
    rng = random.Random(15)
    for _ in range(args.cases):
        hpu = 2 * rng.randint(1, 8)
        nchunks = rng.randint(1, 5)
        stages = rng.randint(2, 4)
        total = hpu * nchunks * rng.randint(1, 6)
        begin = rng.randint(0, total - 1)
        count = rng.randint(1, total - begin)
        want = reference(begin, count, hpu, nchunks, stages)
        got = lean(begin, count, hpu, nchunks, stages)
        if got != want:
            raise SystemExit(f"FAIL: begin {begin} count {count} hpu {hpu} "
                             f"nchunks {nchunks} stages {stages}")
    print(f"ok: {args.cases} item ranges, same items, stages, parities and "
          "tile ends")


if __name__ == "__main__":
    main()
