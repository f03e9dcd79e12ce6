#!/usr/bin/env python3
"""Checks the barrier protocol of the pipeline-2 SpMM kernel on the CPU.

A discrete-event model of tlsSpmmRingKernel
(runtime/sparse/lib/SpmmKernels.cuh): a few warps run its item loop in random
interleavings, every copy lands after a random delay, and the mbarriers behave
as in PTX: a phase completes with its last expected arrival, a cp.async
arrival (cp.async.mbarrier.arrive.noinc) happens once all earlier copies of
the thread have landed, and try_wait.parity(p) passes while the barrier's
current phase parity differs from p. The model mirrors the kernel's indices: X
stage J % (WST + 1), the warp's W stage J % WST, item J + WST issued after
item J was read (X once every warp read item J - 1, then W), and warps without
a tile from some item on (the last M block).

It asserts that every read sees its own item fully landed, that no stage is
overwritten while a warp still has to read it, and that no schedule
deadlocks. --self-test also runs broken protocols (a missing X-empty wait, a
missing W wait, a refill one item too far ahead) and expects each to fail.

usage: ring_protocol_check.py [SCHEDULES] [--self-test]
"""
import random
import sys


class Barrier:
    def __init__(self, expected):
        self.expected = expected
        self.pending = expected
        self.phase = 0

    def arrive(self):
        self.pending -= 1
        assert self.pending >= 0, "more arrivals than expected"
        if self.pending == 0:
            self.phase += 1
            self.pending = self.expected

    def passed(self, parity):
        return (self.phase & 1) != parity


class ProtocolError(AssertionError):
    pass


def check(cond, *what):
    if not cond:
        raise ProtocolError(what)


def simulate(warps, wst, count, has_tile, seed, broken=None):
    rnd = random.Random(seed)
    xst = wst + 1
    x_full = [Barrier(warps) for _ in range(xst)]
    x_empty = [Barrier(warps) for _ in range(xst)]
    w_full = [[Barrier(1) for _ in range(wst)] for _ in range(warps)]
    # X stage: [item, shares landed, warps that read it]
    x_stage = [None] * xst
    # W stage of a warp: [item, landed, read]
    w_stage = [[None] * wst for _ in range(warps)]
    events = []  # (time, action)
    last_copy = [0.0] * warps  # when the warp's latest copy lands
    clock = [0.0]

    def later(delay, action):
        events.append((clock[0] + delay, action))
        return clock[0] + delay

    def copy_x(w, j):
        slot = x_stage[j % xst]
        if slot is None or slot[0] != j:
            if slot is not None:
                check(len(slot[2]) == warps, "X stage refilled while read",
                      j % xst, slot[0], j)
            x_stage[j % xst] = slot = [j, 0, set()]

        def land(slot=slot):
            slot[1] += 1
        last_copy[w] = max(last_copy[w], later(rnd.randint(1, 30), land))

    def copy_w(w, j):
        old = w_stage[w][j % wst]
        if old is not None:
            check(old[2], "W stage refilled before it was read", w, old[0], j)
        slot = [j, False, False]
        w_stage[w][j % wst] = slot

        def land(slot=slot):
            slot[1] = True
        last_copy[w] = max(last_copy[w], later(rnd.randint(1, 30), land))

    def arrive_after_copies(w, barrier):
        events.append((max(last_copy[w], clock[0]) + 0.5, barrier.arrive))

    def warp(w):
        def issue_x(j):
            copy_x(w, j)
            arrive_after_copies(w, x_full[j % xst])

        def issue_w(j):
            if has_tile(w, j):
                copy_w(w, j)
            arrive_after_copies(w, w_full[w][j % wst])

        for j in range(min(wst, count)):
            issue_x(j)
            issue_w(j)
        ahead = wst + (1 if broken == "refill-too-far" else 0)
        for j in range(count):
            while not x_full[j % xst].passed((j // xst) & 1):
                yield
            if broken != "no-w-wait":
                while not w_full[w][j % wst].passed((j // wst) & 1):
                    yield
            xs = x_stage[j % xst]
            check(xs[0] == j and xs[1] == warps, "X read early", w, j, xs)
            if has_tile(w, j):
                ws = w_stage[w][j % wst]
                check(ws[0] == j and ws[1], "W read early", w, j, ws)
                ws[2] = True
            yield
            xs[2].add(w)
            x_empty[j % xst].arrive()
            jn = j + ahead
            if jn < count:
                if j >= 1 and broken != "no-x-empty-wait":
                    while not x_empty[(j - 1) % xst].passed(
                            ((j - 1) // xst) & 1):
                        yield
                issue_x(jn)
                issue_w(jn)
            yield

    running = {w: warp(w) for w in range(warps)}
    idle_steps = 0
    while running:
        events.sort(key=lambda e: e[0])
        while events and events[0][0] <= clock[0]:
            events.pop(0)[1]()
        w = rnd.choice(sorted(running))
        try:
            next(running[w])
        except StopIteration:
            del running[w]
        clock[0] += rnd.random()
        idle_steps = idle_steps + 1 if not events else 0
        check(idle_steps < 100000, "deadlock")


def run_all(schedules, broken=None):
    for seed in range(schedules):
        rnd = random.Random(seed)
        warps = rnd.choice([1, 2, 3, 4, 8])
        wst = rnd.choice([2, 3])
        count = rnd.randint(1, 40)
        idle_warp = rnd.randrange(warps)
        idle_from = rnd.randint(0, count + 1)

        def has_tile(w, j):
            return not (w == idle_warp and j >= idle_from)

        simulate(warps, wst, count, has_tile, seed, broken)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    schedules = int(args[0]) if args else 1500
    run_all(schedules)
    print("ring protocol ok: %d random schedules" % schedules)
    if "--self-test" in sys.argv:
        for broken in ("no-x-empty-wait", "no-w-wait", "refill-too-far"):
            try:
                run_all(300, broken)
            except ProtocolError as e:
                print("broken protocol %s caught: %s" % (broken, e.args[0][0]))
                continue
            print("FAIL: broken protocol %s not caught" % broken)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
