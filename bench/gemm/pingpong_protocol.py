#!/usr/bin/env python3
"""A randomised CPU model of the ping-pong kernel's synchronisation
(runtime/gemm/lib/Sm90PingPong.cuh): the producer's stage ring with
"full"/"empty" mbarrier parity waits, TMA fills that land in any order,
the two consumers' alternating tiles, wgmma groups released one stage
late, and the two named turn barriers. Checks that no parity wait returns
before its data has landed, no stage is refilled while a consumer still
reads it, every named-barrier arrive meets one wait, and every tile is
done. Mirror any change of the kernel's protocol here and run it:

    python3 bench/gemm/pingpong_protocol.py [runs]
"""

import random
import sys


def simulate(num_units, grid, block, kblocks, stages, seed):
    rnd = random.Random(seed)
    local_units = len(range(block, num_units, grid))
    turns = (local_units + 1) // 2
    full = [0] * stages   # completed phases per barrier
    empty = [0] * stages
    content = [None] * stages  # (local tile, K block) a stage holds
    reading = [set() for _ in range(stages)]
    landing = []  # TMA fills in flight: (stage, content)
    bars = {4: [0, 0], 5: [0, 0]}  # named barrier: [arrived, generation]
    done = []

    def passed(barrier, parity):  # mbarrier.try_wait.parity
        return (barrier & 1) != parity

    def producer():
        it = 0
        for i in range(local_units):
            for kb in range(kblocks):
                s = it % stages
                while not passed(empty[s], ((it // stages) & 1) ^ 1):
                    yield
                assert not reading[s], f"stage {s} refilled while in use"
                landing.append((s, (i, kb)))
                it += 1
                yield

    def arrive(bar):  # bar.arrive / the arriving half of bar.sync
        b = bars[bar]
        b[0] += 128
        if b[0] == 256:
            b[0] = 0
            b[1] += 1
        return b[1]

    def sync(bar):
        gen = bars[bar][1]
        if arrive(bar) == gen:
            while bars[bar][1] == gen:
                yield

    def consumer(cw):
        for j in range(turns):
            i = 2 * j + cw
            if cw == 1 or j > 0:
                yield from sync(4 + cw)
            if i >= local_units:
                break
            it = i * kblocks
            inflight = []
            for kb in range(kblocks):
                s = it % stages
                while not passed(full[s], (it // stages) & 1):
                    yield
                assert content[s] == (i, kb), \
                    f"consumer {cw} read {content[s]} for {(i, kb)}"
                reading[s].add((i, kb))
                inflight.append((s, (i, kb)))
                yield
                if kb > 0:  # wgmma.wait_group 1: the previous group retired
                    s0, what = inflight.pop(0)
                    reading[s0].discard(what)
                    empty[s0] += 1
                it += 1
            if cw == 0 or j + 1 < turns:
                arrive(4 + (cw ^ 1))
            yield
            s0, what = inflight.pop(0)  # wgmma.wait_group 0
            reading[s0].discard(what)
            empty[s0] += 1
            for _ in range(rnd.randint(0, 5)):  # the epilogue
                yield
            done.append(i)

    actors = [producer(), consumer(0), consumer(1)]
    alive = [True] * 3
    steps = 0
    while any(alive) or landing:
        steps += 1
        if steps > 10 ** 6:
            raise RuntimeError("deadlock")
        if landing and rnd.random() < 0.3:
            s, what = landing.pop(rnd.randrange(len(landing)))
            content[s] = what
            full[s] += 1
            continue
        k = rnd.randrange(3)
        if alive[k]:
            try:
                next(actors[k])
            except StopIteration:
                alive[k] = False
    assert sorted(done) == list(range(local_units)), done
    assert all(b[0] == 0 for b in bars.values()), "unmatched barrier arrive"


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    for seed in range(runs):
        r = random.Random(seed)
        grid = r.randint(1, 6)
        simulate(r.randint(grid, 20), grid, r.randrange(grid),
                 r.randint(1, 9), r.randint(3, 8), seed)
    print(f"ping-pong protocol: {runs} random runs ok")


if __name__ == "__main__":
    main()
