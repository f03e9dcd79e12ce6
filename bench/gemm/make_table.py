#!/usr/bin/env python3
"""Turns benchmark results into the tuned dispatch table.

Reads gemm-bench JSON lines (each shape's winning plan, "ours_plan"), writes
runtime/gemm/tuned/gemm-h200.json (the versioned table) and
runtime/gemm/lib/TunedTable.inc (the same rows as C++, sorted for binary
search by (type, layout, M, N, K), as Table.cpp expects).

Usage: make_table.py [--out-dir DIR] VERSION [table.json] results.jsonl [...]

--out-dir writes both files into DIR instead (for tests).

A table.json (a previous runtime/gemm/tuned/gemm-h200.json) given first is
the base: the results files then replace only the rows they measured.
"""

import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIGS = os.path.join(ROOT, "runtime/gemm/lib/Sm90Configs.h")
TYPES = {"f16": 0, "bf16": 1}
LAYOUTS = {"col": 0, "row": 1}


def kernel_ids():
    """Name -> (id, BM, BN) of every compiled configuration."""
    ids = {"fallback": (-1, 0, 0)}
    text = open(CONFIGS).read()
    # The swapped narrow tiles are named "swap..." (Registry.cpp).
    swap_at = text.find("#define CUDAOPT_GEMM_SM90_SWAP_CONFIGS")
    for m in re.finditer(r"X\((\d+), (\d+), (\d+), (\d+), (\d+),", text):
        i, bm, bn, nc, st = m.groups()
        prefix = "swap" if 0 <= swap_at < m.start() else ""
        ids[f"{prefix}{bm}x{bn}x64_c{nc}_s{st}"] = (int(i), int(bm), int(bn))
    # The register-direct mma.sync kernels (lib/Gemv.cu, Registry.cpp): ids
    # 7 and 8, after configurations 0-6 and before the 192-wide ones
    # (MmaSync16KernelId / MmaSync64KernelId in lib/Internal.h); they split
    # K at any size.
    ids["mma16x64_sync"] = (7, 0, 0)
    ids["mma64x64_sync"] = (8, 0, 0)
    return ids


def split_allowed(bm, bn):
    """Mirror of splitKAllowed() in runtime/gemm/lib/Sm90Params.h (the
    mma.sync kernels, listed with bm = bn = 0, always may)."""
    return bm * bn <= 128 * 128 and bn <= 128


def parse_plan(text, ids):
    """gemm-bench's planName: name/gG/rR/kS[/d][/m2][/n2][/c][/p] ->
    [kernel, group, raster_n, splits, dual_acc, cluster_m, cluster_n,
    split_cluster, ping_pong]."""
    name, group, raster, splits, *extra = text.split("/")
    if name not in ids:
        sys.exit(f"unknown configuration {name}: results from another build?")
    kernel, bm, bn = ids[name]
    plan = [kernel, int(group[1:]), int(raster[1:]), int(splits[1:]), 0, 0,
            0, 0, 0]
    for tok in extra:
        if tok == "d":
            plan[4] = 1
        elif tok[0] == "m":
            plan[5] = int(tok[1:])
        elif tok[0] == "n":
            plan[6] = int(tok[1:])
        elif tok == "c":
            plan[7] = 1
        elif tok == "p":
            plan[8] = 1
        else:
            sys.exit(f"unknown plan option {tok} in {text}")
    if plan[3] > 1 and not plan[7] and not split_allowed(bm, bn):
        sys.exit(f"plan {text} splits K on a configuration built without "
                 "split-K: results from another build?")
    return plan


def main():
    args = sys.argv[1:]
    out_dir = None
    if args[:1] == ["--out-dir"]:
        out_dir, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    version, files = args[0], args[1:]
    ids = kernel_ids()
    rows = {}
    if files and files[0].endswith(".json"):
        for e in json.load(open(files.pop(0)))["entries"]:
            rows[(e["type"], e["layout"], e["M"], e["N"], e["K"])] = [
                e["kernel"], e["group"], e["raster_n"], e["splits"],
                e.get("dual_acc", 0), e.get("cluster_m", 0),
                e.get("cluster_n", 0), e.get("split_cluster", 0),
                e.get("ping_pong", 0)]
    for path in files:
        for line in open(path):
            d = json.loads(line)
            if "M" not in d or d.get("ours_plan", "none") == "none":
                continue
            key = (TYPES[d["type"]], LAYOUTS[d["layout"]], d["M"], d["N"],
                   d["K"])
            rows[key] = parse_plan(d["ours_plan"], ids)  # later files win
    extra = ("dual_acc", "cluster_m", "cluster_n", "split_cluster",
             "ping_pong")
    entries = []
    for (t, l, m, n, k), p in sorted(rows.items()):
        e = {"type": t, "layout": l, "M": m, "N": n, "K": k, "kernel": p[0],
             "group": p[1], "raster_n": p[2], "splits": p[3]}
        e.update({name: v for name, v in zip(extra, p[4:]) if v})
        entries.append(e)
    tuned = os.path.join(out_dir, "gemm-h200.json") if out_dir else \
        os.path.join(ROOT, "runtime/gemm/tuned/gemm-h200.json")
    with open(tuned, "w") as out:
        json.dump({"version": version, "device": "NVIDIA H200",
                   "key": "type (0 f16, 1 bf16), layout (0 B col, 1 B row), "
                          "M, N, K",
                   "entries": entries}, out, indent=1)
        out.write("\n")
    inc = os.path.join(out_dir, "TunedTable.inc") if out_dir else \
        os.path.join(ROOT, "runtime/gemm/lib/TunedTable.inc")
    with open(inc, "w") as out:
        out.write("// Generated by bench/gemm/make_table.py from "
                  "runtime/gemm/tuned/gemm-h200.json; do not edit.\n")
        out.write(f'static const char *const TunedTableVersion = "{version}";\n')
        out.write("static const TableEntry TunedEntries[] = {\n")
        for e in entries:
            fields = [e["kernel"], e["group"], e["raster_n"], e["splits"]]
            more = [e.get(name, 0) for name in extra]
            # Plain 4-field plans leave the rest zero; the ping-pong field
            # is written only where set, so older rows keep their text.
            if more[4]:
                fields += more
            elif any(more):
                fields += more[:4]
            plan = ", ".join(str(f) for f in fields)
            out.write(f"    {{{e['M']}, {e['N']}, {e['K']}, {e['type']}, "
                      f"{e['layout']}, {{{plan}}}}},\n")
        out.write("};\n")
        out.write(f"static const int NumTunedEntries = {len(entries)};\n")
    print(f"{len(entries)} entries -> {tuned}, {inc}")


if __name__ == "__main__":
    main()
