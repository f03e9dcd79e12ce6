#!/usr/bin/env python3
"""SASS instructions per warp-item of the SpMM kernel, by phase, on the CPU.

An item is one half block (16 x 128) of one warp: one trip of the consumer
warps' item loop in tlsSpmmBulkKernel (pipeline 3, the planner's default up
to n-tile 32). The script compiles bench/spmm/SassCount.cu (the kernel with
the table decode, the default, and the bit-sliced variants, TlsSpmmOptions::
Decode 1-4; --warps consumer warps (8) x --stages (3), fp16, n-tile --nt) with nvcc
for sm_90a (the flags of runtime/sparse's build), disassembles it with
cuobjdump -sass and counts. Each build takes a few seconds.

Phases come from a second build with TLS_SASS_MARKERS defined: the kernel
then has a NANOSLEEP with the phase number at each phase boundary
(TLS_SASS_MARK in SpmmDecode.cuh and SpmmBulkKernel.cuh), and every
instruction between two markers is counted for the phase they open. ptxas
may move independent instructions across a marker, so the split is
approximate; the table also gives the real build's loop size (no markers)
next to the marked one's.

What is static and what is assumed:
  * every count is of instructions in the binary (static);
  * straight-line phases count once per item (their forward branches are
    the TLS_SPMM_ABLATE tests and the tile check, not taken in a real run);
  * the mbarrier wait counts one poll (the stage is ready), the gather's
    early exit (a lane with no value) is not taken;
  * the end of an output tile (writing Y or the fp32 partial sums) runs once
    per output tile, not per item: the epilogue phase counts the shortest
    path through it (no tile finished), the rest is listed apart;
  * the gather loop counts (region - loop body) once plus (loop body /
    values per loop trip) per value, and a warp runs as many values as its
    busiest lane: V = E[max over 32 lanes of the lane's layer-2 and layer-3
    values per chain], exact for i.i.d. sparsity --sparsity (default 50 %;
    --values overrides; --pattern magnitude takes the Monte-Carlo value
    of per-row magnitude pruning at 50 %). No decode balances the gather
    across lanes (Decode 3 and 4 neither: see docs/sparse-format.md), so V is
    the same for all five. `tls-bit-decode-test --busiest` measures it on
    the real encoder's output (4096 x 4096 at 50 %, every half block):
    i.i.d. 11.363 (the formula: 11.36), magnitude-pruned 11.323; mean lane
    5.995 for both.

Usage: bench/spmm/sass-count.py [--nt 8] [--sparsity 0.5] [--values V]
                                [--pattern iid|magnitude] [--keep DIR]
                                [--list PHASE]
Needs nvcc (/usr/local/cuda/bin or $NVCC) and cuobjdump with nvdisasm
(CUDA's, on PATH or in /usr/local/cuda/bin; without a toolkit that has
them: pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm).
"""

import argparse
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SRC = os.path.join(ROOT, "bench", "spmm", "SassCount.cu")
LIB = os.path.join(ROOT, "runtime", "sparse", "lib")
INC = os.path.join(ROOT, "runtime", "sparse", "include")

# Marker N opens phase PHASES[N]; the loop's back edge closes the last.
PHASES = {
    1: "wait (mbarrier, one poll)",
    2: "item setup (tile check, stage address)",
    3: "layer-2 buffer zeroing",
    4: "masks + layer-1 metadata",
    5: "residual scan",
    6: "gather (fixed part)",
    7: "MMA (fragments, ldmatrix, mma.sp)",
    8: "release (proxy fence, empty arrive)",
    9: "epilogue (no tile finished)",
    10: "cursor + loop",
}
# (mean lane, busiest lane) values per warp-item, per-row magnitude pruning
# at 50 %: tls-bit-decode-test --busiest (the real encoder, 4096 x 4096).
MAGNITUDE_50 = (5.995, 11.323)
DECODES = {0: "tables", 1: "bit-sliced", 2: "bit-sliced + ranked gather",
           3: "Decode 3 (min gather, lean item)",
           4: "Decode 4 (unrolled gather and item loop)"}


def find_tool(name, extra_dirs):
    path = shutil.which(name)
    if path:
        return path
    for d in extra_dirs:
        for cand in glob.glob(os.path.join(d, name)):
            if os.access(cand, os.X_OK):
                return cand
    return None


def tool_dirs():
    dirs = ["/usr/local/cuda/bin"]
    try:
        import site
        for sp in site.getsitepackages() + [site.getusersitepackages()]:
            dirs += glob.glob(os.path.join(sp, "nvidia", "cu*", "bin"))
            dirs += glob.glob(os.path.join(sp, "nvidia", "cuda_*", "bin"))
    except Exception:
        pass
    return dirs


def compile_and_dump(nvcc, cuobjdump, env, args, marked, workdir):
    tag = "marked" if marked else "real"
    cubin = os.path.join(
        workdir, f"spmm-nt{args.nt}-w{args.warps}-s{args.stages}-{tag}.cubin")
    cmd = [nvcc, "-cubin", "-std=c++17", "-O3",
           "-gencode=arch=compute_90a,code=sm_90a",
           f"-I{LIB}", f"-I{INC}", f"-DTLS_NT={args.nt}",
           f"-DTLS_WARPS={args.warps}", f"-DTLS_STAGES={args.stages}",
           "-o", cubin, SRC]
    if marked:
        cmd.insert(1, "-DTLS_SASS_MARKERS")
    subprocess.run(cmd, check=True)
    out = subprocess.run([cuobjdump, "-sass", cubin], check=True, env=env,
                         capture_output=True, text=True).stdout
    with open(cubin[:-6] + ".sass", "w") as f:
        f.write(out)
    return out


INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def parse(sass):
    """{decode: [(addr, text), ...]} for the two kernels."""
    funcs, cur = {}, None
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            d = re.search(r"Lb[01]ELi([0-9])EE", name)
            cur = funcs.setdefault(int(d.group(1)), []) if d else None
            continue
        if cur is None:
            continue
        m = INSTR.search(line)
        if m:
            cur.append((int(m.group(1), 16), m.group(2)))
    return funcs


def opcode(text):
    t = text.split()
    if t and t[0].startswith("@"):
        t = t[1:]
    return t[0] if t else ""


def branch_target(text):
    if opcode(text) not in ("BRA", "BRX", "JMP"):
        return None
    m = re.search(r"0x([0-9a-f]+)\s*$", text)
    return int(m.group(1), 16) if m else None


def conditional(text):
    return text.startswith("@")


def counted(text):
    # NOPs pad the end of a function; markers are not the kernel's.
    return opcode(text) not in ("NOP", "NANOSLEEP")


def loops_in(ins, lo, hi):
    """Backward branches with both ends in [lo, hi): (head, tail) indices."""
    idx = {a: i for i, (a, _) in enumerate(ins)}
    out = []
    for i in range(lo, hi):
        t = branch_target(ins[i][1])
        if t is not None and t in idx and idx[t] <= i and idx[t] >= lo:
            out.append((idx[t], i))
    return out


def shortest_path(ins, lo, hi):
    """Fewest counted instructions from ins[lo] to ins[hi] (Dijkstra over
    fall-through and branch edges)."""
    import heapq
    idx = {a: i for i, (a, _) in enumerate(ins)}
    dist = {lo: 0}
    heap = [(0, lo)]
    while heap:
        d, i = heapq.heappop(heap)
        if i == hi:
            return d
        if d > dist.get(i, math.inf) or i >= len(ins):
            continue
        text = ins[i][1]
        cost = d + (1 if counted(text) else 0)
        op = opcode(text)
        succ = []
        t = branch_target(text)
        if t is not None and t in idx:
            succ.append(idx[t])
            if conditional(text):
                succ.append(i + 1)
        elif op in ("EXIT", "RET"):
            if conditional(text):
                succ.append(i + 1)
        else:
            succ.append(i + 1)
        for j in succ:
            if cost < dist.get(j, math.inf):
                dist[j] = cost
                heapq.heappush(heap, (cost, j))
    return None


def item_loop(ins):
    """The consumer item loop: the innermost backward-branch range that
    holds every mma.sp (HMMA.SP...)."""
    mmas = [i for i, (_, t) in enumerate(ins) if opcode(t).startswith("HMMA")]
    best = None
    for head, tail in loops_in(ins, 0, len(ins)):
        if head <= mmas[0] and tail >= mmas[-1]:
            if best is None or tail - head < best[1] - best[0]:
                best = (head, tail)
    return best


def e_max(sparsity, lanes=32, groups=16):
    """(mean, E[max over lanes]) of the needed (layer 2 + 3) values of a
    lane's chain for i.i.d. nonzeros with density 1 - sparsity: a group of
    four needs 2 values with 4 nonzeros, 1 with 3 (layer2Need)."""
    p = 1.0 - sparsity
    g = [1 - p ** 4 - 4 * p ** 3 * (1 - p), 4 * p ** 3 * (1 - p), p ** 4]
    dist = [1.0]
    for _ in range(groups):
        nd = [0.0] * (len(dist) + 2)
        for v, pv in enumerate(dist):
            for k, pk in enumerate(g):
                nd[v + k] += pv * pk
        dist = nd
    mean = sum(v * pv for v, pv in enumerate(dist))
    # E[max] = sum_{v >= 1} P(max >= v) = sum_{v >= 1} (1 - F(v - 1)^lanes)
    total, cdf = 0.0, 0.0
    for v in range(1, len(dist)):
        cdf += dist[v - 1]
        total += 1.0 - cdf ** lanes
    return mean, total


def analyse_marked(ins, values):
    """Per-item counts by phase. The item loop may hold several copies of
    the item (Decode 4 unrolls it by the stages): each copy's phases are
    counted between its own markers and the counts averaged over the
    copies; the loop's head and back edge are shared by them."""
    loop = item_loop(ins)
    head, tail = loop
    marks = [(i, int(t.split()[-1], 16)) for i, (_, t) in enumerate(ins)
             if head <= i <= tail and opcode(t) == "NANOSLEEP"]
    copies = []
    for i, n in marks:
        if n == 1:
            copies.append({})
        if copies:
            copies[-1].setdefault(n, i)
    if not copies:
        sys.exit("marker 1 not found in the item loop")
    for c in copies:
        missing = [n for n in PHASES if n not in c]
        if missing:
            sys.exit(f"markers {missing} not found in the marked build")
    order = sorted(PHASES)
    rows = {n: {"static": 0.0, "per_item": 0.0, "note": ""} for n in order}
    for k_copy, pos in enumerate(copies):
        for k, n in enumerate(order):
            lo = pos[n] + 1
            if k + 1 < len(order):
                hi = pos[order[k + 1]]
            elif k_copy + 1 < len(copies):
                hi = copies[k_copy + 1][1]
            else:
                hi = tail + 1
            region = [t for _, t in ins[lo:hi] if counted(t)]
            static = len(region)
            row = {"static": static, "per_item": float(static), "note": ""}
            if n == 10 and k_copy == 0:
                # The loop's head (before the first marker 1) belongs here
                # too, shared by the copies.
                extra = sum(1 for _, t in ins[head:pos[1]] if counted(t))
                row["static"] += extra
                row["per_item"] += extra
            if n == 1:
                inner = loops_in(ins, lo, hi)
                row["note"] = ("one try_wait, its retry loop out of line"
                               if not inner else
                               f"{len(inner)} poll loop(s), one trip counted")
            if n == 6:
                inner = [l for l in loops_in(ins, lo, hi)
                         if any(opcode(t) == "STS.U16"
                                for _, t in ins[l[0]:l[1] + 1])]
                if len(inner) != 1:
                    sys.exit(f"gather: expected one loop, found {len(inner)}")
                h, t = inner[0]
                body = sum(1 for _, x in ins[h:t + 1] if counted(x))
                # One store of a value (not of RZ, the zeroing) per value.
                vpi = sum(1 for _, x in ins[h:t + 1]
                          if opcode(x) == "STS.U16" and not x.startswith("@")
                          and not re.search(r",\s*RZ\s*$", x))
                fixed = static - body
                row["static"] = fixed
                row["per_item"] = float(fixed)
                row["gather_body"] = body
                row["values_per_trip"] = vpi
                row["per_value"] = body / vpi
                row["note"] = f"loop body {body} for {vpi} values"
            if n == 9:
                sp = shortest_path(ins, lo, hi)
                row["per_item"] = float(sp)
                row["note"] = (f"static {static}, {static - sp} only when "
                               "a tile ends")
            acc = rows[n]
            acc["static"] += row["static"] / len(copies)
            acc["per_item"] += row["per_item"] / len(copies)
            for key in ("gather_body", "values_per_trip"):
                if key in row:
                    acc[key] = acc.get(key, 0) + row[key] / len(copies)
            acc["note"] = row["note"]
    if "gather_body" in rows[6]:
        rows[6]["per_value"] = rows[6]["gather_body"] / rows[6]["values_per_trip"]
        rows[6]["note"] = (f"loop body {rows[6]['gather_body']:.0f} for "
                           f"{rows[6]['values_per_trip']:.0f} values")
    if len(copies) > 1:
        rows[10]["note"] = (f"item loop unrolled x{len(copies)}: phases "
                            "averaged over the copies")
    total_static = sum(1 for _, t in ins[head:tail + 1] if counted(t))
    return rows, total_static / len(copies), len(copies)


def list_phase(ins, n):
    pos = {}
    for i, (_, t) in enumerate(ins):
        if opcode(t) == "NANOSLEEP":
            pos.setdefault(int(t.split()[-1], 16), i)
    lo = pos[n]
    hi = pos.get(n + 1, len(ins))
    for a, t in ins[lo:hi]:
        print(f"  {a:05x}  {t}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nt", type=int, default=8, help="n-tile (8, 16, 32)")
    ap.add_argument("--warps", type=int, default=8, help="consumer warps")
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--sparsity", type=float, default=0.5)
    ap.add_argument("--values", type=float, default=None,
                    help="gathered values per warp-item (default: expected "
                         "busiest lane at --sparsity, i.i.d.)")
    ap.add_argument("--pattern", choices=["iid", "magnitude"], default="iid",
                    help="magnitude: V measured by tls-bit-decode-test "
                         "--busiest on per-row magnitude-pruned weights "
                         "(50 %% only)")
    ap.add_argument("--keep", default=None, help="keep cubins and SASS here")
    ap.add_argument("--list", type=int, default=None,
                    help="print the marked SASS of phase N (marker number)")
    args = ap.parse_args()

    dirs = tool_dirs()
    nvcc = os.environ.get("NVCC") or find_tool("nvcc", dirs)
    cuobjdump = find_tool("cuobjdump", dirs)
    nvdisasm = find_tool("nvdisasm", dirs)
    if not nvcc:
        sys.exit("nvcc not found (set NVCC)")
    if not cuobjdump or not nvdisasm:
        sys.exit("cuobjdump/nvdisasm not found: install CUDA's, or "
                 "pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")

    work = args.keep or tempfile.mkdtemp(prefix="sass-count-")
    os.makedirs(work, exist_ok=True)
    marked = parse(compile_and_dump(nvcc, cuobjdump, env, args, True, work))
    real = parse(compile_and_dump(nvcc, cuobjdump, env, args, False, work))

    mean, emax = e_max(args.sparsity)
    if args.pattern == "magnitude":
        if abs(args.sparsity - 0.5) > 1e-9:
            sys.exit("--pattern magnitude: measured at 50 % sparsity only")
        mean, emax = MAGNITUDE_50
    values = args.values if args.values is not None else emax

    if args.list is not None:
        for d in sorted(marked):
            print(f"== {DECODES[d]}, phase {args.list}: {PHASES[args.list]}")
            list_phase(marked[d], args.list)
        return

    results = {d: analyse_marked(marked[d], values) for d in sorted(marked)}
    real_loops = {}
    for d, ins in real.items():
        head, tail = item_loop(ins)
        # Per item: the loop of an unrolled build holds results[d][2] items.
        real_loops[d] = (sum(1 for _, t in ins[head:tail + 1] if counted(t))
                         / results[d][2])

    print(f"# SASS per warp-item, tlsSpmmBulkKernel<{args.nt}, {args.warps} "
          f"warps, {args.stages} stages, fp16>, sm_90a ({os.path.basename(nvcc)}: "
          f"{subprocess.run([nvcc, '--version'], capture_output=True, text=True).stdout.split()[-1]})")
    print(f"# gather: V = {values:.2f} values per warp-item "
          + ("(--values)" if args.values is not None else
             f"(busiest of 32 lanes, {'i.i.d.' if args.pattern == 'iid' else 'magnitude-pruned'} "
             f"{args.sparsity:.0%} sparsity; mean lane {mean:.2f})"))
    ds = sorted(results)
    hdr = "| phase | " + " | ".join(DECODES[d] for d in ds) + " | note |"
    print(hdr)
    print("|" + "---|" * (len(ds) + 2))
    totals = {d: 0.0 for d in ds}
    for n in sorted(PHASES):
        cells = []
        for d in ds:
            r = results[d][0][n]
            totals[d] += r["per_item"]
            cells.append(f"{r['per_item']:.0f}")
        note = results[ds[-1]][0][n]["note"]
        print(f"| {PHASES[n]} | " + " | ".join(cells) + f" | {note} |")
        if n == 6:
            cells = []
            for d in ds:
                r = results[d][0][n]
                g = r["per_value"] * values
                totals[d] += g
                cells.append(f"{g:.0f} ({r['per_value']:.1f}/value)")
            print(f"| gather (V values) | " + " | ".join(cells) + " | "
                  f"loop body / values per trip x V |")
    print("| **total per warp-item** | " +
          " | ".join(f"**{totals[d]:.0f}**" for d in ds) + " | |")
    print()
    print("| item loop per item, static (all paths, one gather trip) | "
          "marked build (markers not counted) | real build |")
    print("|---|---|---|")
    for d in ds:
        print(f"| {DECODES[d]} | {results[d][1]:.0f} | {real_loops[d]:.0f} |")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        pass
