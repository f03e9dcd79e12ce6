#!/usr/bin/env python3
"""Check on a GPU that a cuda-opt rewrite computes what the original computes.

    gpu_equivalence.py --cuda-opt BIN --nvcc NVCC --work DIR \
        [--seeds 3] [--rtol 1e-5] -- --passes=PIPELINE FILE.cu [more cuda-opt args]

Builds FILE.cu and its rewrite with nvcc, runs both as `prog OUT SEED` for each
seed (the program dumps its outputs with test/GPU/Inputs/gpu_check.h), and
compares the dumps: same records, same lengths, every element within
tolerance, NaN/Inf only where the original has them. Exit 0 when equal.

--fp-model=strict compares every element bit for bit (NaN == NaN, -0 == +0).
--fp-model=reassoc (for rewrites that reorder float sums): a float output "X"
for which the program also dumps "X.fp64" (its fp64 host reference) passes
when max|new - ref| <= 2 max|orig - ref| + 2 ulp(max|ref|), the rule the
tuner's verification applies against its fp64 shadow (docs/fp-model.md);
outputs without a reference are compared as usual. The original runs
--orig-runs times (default 3) per seed and its largest error counts: an
original that sums with float atomics is nondeterministic.

--plant='OLD=>NEW' plants a bug: the first OLD in the rewritten file's code
(not in a // comment line) becomes NEW (OLD must occur on one line), and the check passes only when the comparison catches
it (exit 0 when the outputs are NOT equivalent, or when the planted
rewrite's run fails, e.g. on a misaligned vector access, as the tuner's
worker rejects a faulting variant). Each transform's GPU test
uses it to show that its check would see a wrong rewrite.
"""
import argparse
import math
import os
import struct
import subprocess
import sys

DTYPES = {0: ("f", 4), 1: ("d", 8), 2: ("e", 2), 3: ("i", 4)}
DEFAULT_RTOL = {0: 1e-5, 1: 1e-12, 2: 1e-2, 3: 0.0}


def cudnn_flags(nvcc):
    """Compile and link flags for cuDNN: $CUDNN_ROOT (pip's
    site-packages/nvidia/cudnn) or the CUDA installation nvcc belongs to."""
    root = os.environ.get("CUDNN_ROOT") or os.path.dirname(
        os.path.dirname(os.path.abspath(nvcc)))
    for sub in ("lib", "lib64"):
        for name in ("libcudnn.so", "libcudnn.so.9"):
            lib = os.path.join(root, sub, name)
            if os.path.exists(lib):
                # nvcc refuses a .so.9 argument: the linker takes it.
                return ["-I", os.path.join(root, "include"), "-Xlinker",
                        "--no-as-needed", "-Xlinker", lib, "-Xlinker",
                        "-rpath," + os.path.join(root, sub)]
    sys.exit("--cudnn: no libcudnn.so under %s; set CUDNN_ROOT" % root)


def read_dump(path):
    records = {}
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4
        name = data[pos:pos + n].decode()
        pos += n
        dtype, count = struct.unpack_from("<IQ", data, pos)
        pos += 12
        fmt, size = DTYPES[dtype]
        values = struct.unpack_from("<%d%s" % (count, fmt), data, pos)
        pos += count * size
        records[name] = (dtype, values)
    return records


def ulp32(x):
    """The spacing of fp32 numbers at magnitude x."""
    if x == 0 or not math.isfinite(x):
        return 2.0 ** -149
    e = math.frexp(x)[1]  # x = m * 2**e, 0.5 <= m < 1
    return 2.0 ** (e - 24)


def compare_to_reference(name, a, b, ref, reruns=()):
    """The reassoc rule: the rewrite may be as far from the fp64 reference as
    twice the original's largest error, plus two ulps of the output's scale.
    The original's error is the largest over its runs on the same inputs
    (`reruns`: the same output from more runs), since an original that sums
    with float atomics lands at a different distance from fp64 each run."""
    if len(ref) != len(a):
        return ["%s: the reference %s.fp64 has %d elements, the output %d"
                % (name, name, len(ref), len(a))]
    err_orig = err_new = scale = 0.0
    for again in reruns:
        for x, r in zip(again, ref):
            if math.isfinite(x) and math.isfinite(r):
                err_orig = max(err_orig, abs(x - r))
    worst = None
    for i, (x, y, r) in enumerate(zip(a, b, ref)):
        if not math.isfinite(x) or not math.isfinite(y):
            if not ((math.isnan(x) and math.isnan(y)) or x == y):
                return ["%s: [%d] is %r, the original's is %r" % (name, i, y, x)]
            continue
        if not math.isfinite(r):
            continue
        scale = max(scale, abs(r))
        err_orig = max(err_orig, abs(x - r))
        if abs(y - r) > err_new:
            err_new = abs(y - r)
            worst = (i, y, r)
    bound = 2 * err_orig + 2 * ulp32(scale)
    if err_new > bound:
        return ["%s: max |new - fp64| = %.3g at [%d] (%r vs %r) exceeds 2 x the "
                "original's %.3g + 2 ulp" % (name, err_new, worst[0], worst[1],
                                             worst[2], err_orig)]
    return []


def compare(orig, new, rtol_override, fp_model=None, reruns=()):
    problems = []
    if set(orig) != set(new):
        problems.append("outputs differ: %s vs %s" % (sorted(orig), sorted(new)))
        return problems
    for name, (dtype, a) in orig.items():
        dtype_b, b = new[name]
        if dtype != dtype_b or len(a) != len(b):
            problems.append("%s: dtype/length differ" % name)
            continue
        ref = orig.get(name + ".fp64")
        if fp_model == "reassoc" and ref is not None and dtype in (0, 2):
            again = [r[name][1] for r in reruns
                     if name in r and len(r[name][1]) == len(a)]
            problems += compare_to_reference(name, a, b, ref[1], again)
            continue
        if fp_model == "strict":
            rtol = 0.0
        else:
            rtol = DEFAULT_RTOL[dtype] if rtol_override is None else rtol_override
        scale = max((abs(x) for x in a if math.isfinite(x)), default=1.0) or 1.0
        bad = 0
        first = None
        for i, (x, y) in enumerate(zip(a, b)):
            if dtype == 3:
                ok = x == y
            elif not math.isfinite(x) or not math.isfinite(y):
                ok = (math.isnan(x) and math.isnan(y)) or x == y
            else:
                # Relative to the element, with an absolute floor relative to
                # the output's scale (reordered fp sums near zero).
                ok = abs(x - y) <= rtol * max(abs(x), 1e-3 * scale)
            if not ok:
                bad += 1
                if first is None:
                    first = (i, x, y)
        if bad:
            problems.append("%s: %d of %d elements differ; first at [%d]: %r vs %r"
                            % (name, bad, len(a), first[0], first[1], first[2]))
    return problems


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.stderr.write("%s failed (%d): %s\n%s%s" % (what, r.returncode,
                         " ".join(cmd), r.stdout, r.stderr))
        sys.exit(1)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-opt", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rtol", type=float, default=None)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--fp-model", choices=("strict", "reassoc"), default=None)
    ap.add_argument("--plant", default=None)
    ap.add_argument("--cusparse", action="store_true",
                    help="link both programs with cuSPARSE (-lcusparse)")
    ap.add_argument("--cudnn", action="store_true",
                    help="link both programs with cuDNN ($CUDNN_ROOT, else "
                         "the CUDA path next to nvcc)")
    ap.add_argument("--orig-runs", type=int, default=3,
                    help="--fp-model=reassoc: runs of the original per seed "
                    "whose largest error against fp64 is the yardstick")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = [a for a in args.rest if a != "--"]
    # %gpu_equiv ends in "--", so options written after it in a RUN line
    # land here: the comparison's own are taken back (--fp-model also goes
    # on to cuda-opt, below).
    for a in list(rest):
        if a.startswith("--fp-model="):
            args.fp_model = a.split("=", 1)[1]
            rest.remove(a)
        elif a.startswith("--rtol="):
            args.rtol = float(a.split("=", 1)[1])
            rest.remove(a)
        elif a.startswith("--plant="):
            args.plant = a.split("=", 1)[1]
            rest.remove(a)
        elif a == "--cudnn":
            args.cudnn = True
            rest.remove(a)
        elif a == "--cusparse":
            args.cusparse = True
            rest.remove(a)
        elif a.startswith("--orig-runs="):
            args.orig_runs = int(a.split("=", 1)[1])
            rest.remove(a)
    src = [a for a in rest if a.endswith(".cu")]
    if len(src) != 1:
        ap.error("give exactly one .cu file after --")
    src = src[0]
    os.makedirs(args.work, exist_ok=True)
    include = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "test", "GPU", "Inputs")
    rewritten = os.path.join(args.work, "rewritten.cu")
    fp = ["--fp-model=" + args.fp_model] if args.fp_model else []
    run([args.cuda_opt] + rest + fp + ["-o", rewritten, "--", "-I", include],
        "cuda-opt")
    if args.plant is not None:
        if "=>" not in args.plant:
            ap.error("--plant wants OLD=>NEW")
        old, new = args.plant.split("=>", 1)
        with open(rewritten) as f:
            lines = f.read().split("\n")
        # The first occurrence in code: the test's own RUN lines, which
        # spell OLD out, are comments.
        hit = next((i for i, l in enumerate(lines)
                    if old in l and not l.lstrip().startswith("//")), None)
        if hit is None:
            print("--plant: '%s' does not occur in the rewrite's code" % old)
            return 1
        lines[hit] = lines[hit].replace(old, new, 1)
        with open(rewritten, "w") as f:
            f.write("\n".join(lines))
    nvcc = [args.nvcc, "-O2", "-std=c++17", "-arch=" + args.arch, "-I", include]
    if args.cudnn:
        nvcc += cudnn_flags(args.nvcc)
    libs = ["-lcusparse"] if args.cusparse else []
    exe = {}
    for tag, path in (("orig", src), ("new", rewritten)):
        exe[tag] = os.path.join(args.work, tag + ".exe")
        run(nvcc + [path, "-o", exe[tag]] + libs, "nvcc " + tag)
    failures = []
    for seed in range(1, args.seeds + 1):
        dumps = {}
        for tag in ("orig", "new"):
            out = os.path.join(args.work, "%s.%d.bin" % (tag, seed))
            cmd = [exe[tag], out, str(seed)]
            if tag == "new" and args.plant is not None:
                # A planted bug may fault (a misaligned vector access): the
                # tuner's worker rejects a variant that faults, so it counts.
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=600)
                if r.returncode != 0:
                    failures.append("seed %d: the rewrite's run failed (%d): "
                                    "%s" % (seed, r.returncode,
                                            (r.stdout + r.stderr).strip()[-200:]))
                    break
            else:
                run(cmd, "%s seed %d" % (tag, seed))
            dumps[tag] = read_dump(out)
        if "new" not in dumps:
            continue
        if not dumps["orig"]:
            failures.append("seed %d: the original dumped no outputs" % seed)
        reruns = []
        if args.fp_model == "reassoc":
            for k in range(1, args.orig_runs):
                out = os.path.join(args.work, "orig.%d.run%d.bin" % (seed, k))
                run([exe["orig"], out, str(seed)], "orig seed %d run %d"
                    % (seed, k + 1))
                reruns.append(read_dump(out))
        for p in compare(dumps["orig"], dumps["new"], args.rtol,
                         args.fp_model, reruns):
            failures.append("seed %d: %s" % (seed, p))
    if args.plant is not None:
        if failures:
            print("planted bug caught:\n  " + "\n  ".join(failures))
            return 0
        print("planted bug NOT caught: the outputs still compare equal")
        return 1
    if failures:
        print("NOT EQUIVALENT:\n  " + "\n  ".join(failures))
        return 1
    print("equivalent on %d seeds" % args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
