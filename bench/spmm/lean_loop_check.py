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

consumeStaged (Decode 4) is checked the same way, with the warp's tile
existence in the model (the last M block's trailing warps have none: the
reference waits and releases their items and ends no tile; consumeStaged
hands them to idleItems with the next stage and parity): its item loop
unrolled by the stages (the stage a constant of each copy, the parity
flipped once per round) and the item's chain taken from the producer's
cursor (the stage header) rather than kept by the consumer.

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


def reference_tiles(begin, count, hpu, nchunks, stages, warps, warp, tiles):
    """reference() with the tile test: items of a warp without a tile are
    only waited for and released (stage, parity)."""
    items, ends = reference(begin, count, hpu, nchunks, stages)
    out_items = []
    for mb, nc, chain, s, parity in items:
        if mb * warps + warp < tiles:
            out_items.append((mb, nc, chain, s, parity))
        else:
            out_items.append(("idle", s, parity))
    out_ends = [e for e in ends if e[0] * warps + warp < tiles]
    return out_items, out_ends


def staged(begin, count, hpu, nchunks, stages, warps, warp, tiles):
    """consumeStaged, statement by statement (SpmmBulkKernel.cuh)."""
    items, ends = [], []

    def idle(s, parity, n):
        for _ in range(n):
            items.append(("idle", s, parity))
            s += 1
            if s == stages:
                s, parity = 0, parity ^ 1

    def producer_chain(j):
        # produceStages' QHeader: the chain of the producer's item j.
        return cursor(begin + j, hpu, nchunks)[0] & 1

    half, nc, mb = cursor(begin, hpu, nchunks)
    tile = mb * warps + warp
    if tile >= tiles:
        idle(0, 0, count)
        return items, ends
    left = min(hpu - half, count)
    covered, rest = left, count - left
    parity, j = 0, 0
    while True:
        for s in range(stages):
            items.append((mb, nc, producer_chain(j), s, parity))
            j += 1
            left -= 1
            if left == 0:
                ends.append((mb, nc, covered))
                if rest == 0:
                    return items, ends
                nc += 1
                if nc == nchunks:
                    nc, mb = 0, mb + 1
                tile = mb * warps + warp
                if tile >= tiles:
                    idle((s + 1) % stages, parity ^ (1 if s + 1 == stages else 0),
                         rest)
                    return items, ends
                left = covered = min(hpu, rest)
                rest -= left
        parity ^= 1


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
        warps = rng.randint(1, 8)
        warp = rng.randint(0, warps - 1)
        mblocks = total // (hpu * nchunks)
        tiles = rng.randint(max(1, (mblocks - 1) * warps), mblocks * warps)
        want = reference_tiles(begin, count, hpu, nchunks, stages, warps, warp,
                               tiles)
        got = staged(begin, count, hpu, nchunks, stages, warps, warp, tiles)
        if got != want:
            raise SystemExit(f"FAIL staged: begin {begin} count {count} hpu "
                             f"{hpu} nchunks {nchunks} stages {stages} warp "
                             f"{warp}/{warps} tiles {tiles}")
    print(f"ok: {args.cases} item ranges, same items, stages, parities and "
          "tile ends (consumeLean and consumeStaged)")


if __name__ == "__main__":
    main()
