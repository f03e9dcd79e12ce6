#!/usr/bin/env python3
"""Time PyTorch eager equivalents of the benchmark-corpus programs.

For every program in bench/corpus with an entry in TABLE below, build the
program's inputs (same sizes and dtypes as its NAME.tune.json / main; random
values of the same kind, not the same values), time the PyTorch op that
computes the same result and write {program: {op, median_ms, bytes, GB/s,
...}} to a JSON file that bench/summarize.py turns into the
"PyTorch eager ms (best / eager)" column of results/h200.md.

    python3 bench/pytorch_eager.py --out bench/results/pytorch-eager-h200.json
    python3 bench/pytorch_eager.py --programs 'softmax*,gemv' --quick --out /tmp/e.json
    python3 bench/pytorch_eager.py --dry-run          # no GPU or torch needed

Timing (bench/../MEASURING rules): device time from CUDA events around one
call of the op on the current stream; before every timed call the L2 is
flushed by zeroing a 256 MB buffer (the H200's L2 is 60 MB), outside the
events; warm-up calls first (cuBLAS/cuDNN heuristics, allocator); the median
of --reps calls (default 100, --quick 20) with min, p10, p90 and max.
TF32 and reduced-precision fp16/bf16 GEMM reductions are switched off so the
fp32 ops keep fp32 arithmetic, as the corpus programs do.

"bytes" is the program's minimum traffic as the corpus counts it (every
input read once, every output written once, in the program's dtypes), so
GB/s compares with the min_bytes-based GB/s of results/h200.md. Programs
without an entry are listed under "no_equivalent" with the reason.
"""
import argparse
import datetime
import fnmatch
import json
import math
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
DEFAULT_OUT = os.path.join(HERE, "results", "pytorch-eager-h200.json")
COPY_CEILING_GBS = 4234.0  # H200 device-to-device copy (GPU.md)
FLUSH_BYTES = 256 << 20

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4,
               "int64": 8, "uint8": 1}


class T:
    """One tensor of a program: name, shape, dtype (torch name), init.

    init is ("uniform", lo, hi), ("randint", lo, hi) (inclusive),
    ("quarters",) (multiples of 1/4 in [-8, 8): ties, as in row_argmax),
    ("custom", fn) with fn(torch, shape, gen) -> tensor, or None for an
    output (only counted in bytes, never built)."""

    def __init__(self, name, shape, dtype, init=None):
        self.name, self.shape, self.dtype, self.init = (
            name, tuple(int(d) for d in shape), dtype, init)

    def numel(self):
        return math.prod(self.shape)

    def nbytes(self):
        return self.numel() * DTYPE_BYTES[self.dtype]

    def describe(self):
        return "%s %s[%s]" % (self.name, self.dtype,
                              "x".join(str(d) for d in self.shape))


class Entry:
    """A program's PyTorch equivalent.

    inputs: tensors built before timing; outputs: what the program writes
    (for bytes); fn(t, torch, F) runs the op on the dict of built inputs;
    prepare(t, torch) (optional) turns inputs into what fn needs, outside the
    timing (a CSR tensor, int64 labels); note: how it differs from the
    program, if at all."""

    def __init__(self, op, inputs, outputs, fn, prepare=None, note=""):
        self.op, self.inputs, self.outputs, self.fn = op, inputs, outputs, fn
        self.prepare, self.note = prepare, note

    def nbytes(self):
        return sum(t.nbytes() for t in self.inputs + self.outputs)


def U(lo, hi):
    return ("uniform", lo, hi)


def RI(lo, hi):
    return ("randint", lo, hi)


# --- custom inputs -----------------------------------------------------------

def skewed_bytes(torch, shape, gen):
    """histogram.cu: (r & 0xff) & ((r >> 8) | 0x3f) - skewed to low values."""
    r = torch.randint(0, 1 << 16, shape, generator=gen, device="cuda",
                      dtype=torch.int32)
    return ((r & 0xff) & ((r >> 8) | 0x3f)).to(torch.uint8)


def skewed_bins1024(torch, shape, gen):
    """histogram1024.cu: 10-bit values skewed low, 1 in 64 out of range."""
    r = torch.randint(0, 1 << 27, shape, generator=gen, device="cuda",
                      dtype=torch.int64)
    v = (r & 0x3ff) & ((r >> 10) | 0x7f)
    out = ((r >> 20) & 63) == 0
    v = torch.where(out & (((r >> 26) & 1) == 1), -1 - v, v)
    v = torch.where(out & (((r >> 26) & 1) == 0), 1024 + v, v)
    return v.to(torch.int32)


def csr_parts(torch, rows, cols, gen):
    """spmv_csr.cu's matrix kind: 8-24 non-zeros per row, 3 in 4 within 2048
    of the diagonal, the rest anywhere; columns sorted within a row."""
    lengths = torch.randint(8, 25, (rows,), generator=gen, device="cuda",
                            dtype=torch.int64)
    crow = torch.cat([torch.zeros(1, dtype=torch.int64, device="cuda"),
                      torch.cumsum(lengths, 0)])
    nnz = int(crow[-1])
    row_of = torch.repeat_interleave(
        torch.arange(rows, device="cuda", dtype=torch.int64), lengths)
    del lengths
    near = row_of + torch.randint(-2048, 2049, (nnz,), generator=gen,
                                  device="cuda", dtype=torch.int64)
    anywhere = torch.randint(0, cols, (nnz,), generator=gen, device="cuda",
                             dtype=torch.int64)
    pick = torch.randint(0, 4, (nnz,), generator=gen, device="cuda") == 0
    col = torch.where(pick, anywhere, near).remainder_(cols)
    del near, anywhere, pick
    key, _ = torch.sort(row_of * cols + col)
    col = (key % cols).to(torch.int32)
    del key, row_of
    vals = torch.empty(nnz, device="cuda").uniform_(-1, 1, generator=gen)
    return crow.to(torch.int32), col, vals


# --- the table ---------------------------------------------------------------

def pool_out(n, k, s, p):
    return (n + 2 * p - k) // s + 1


def entries(s):
    """program -> Entry, from the program's sizes s (its spec's sizes and
    scalar arguments, with the program's own where the spec differs)."""
    E = {}
    f32, f16, bf16, i32 = "float32", "float16", "bfloat16", "int32"

    def rowwise(name, op, dtype, lo, hi, fn, extra_in=(), out_shape=None,
                out_dtype=None, **kw):
        E[name] = Entry(op, [T("x", (s[name].rows, s[name].cols), dtype,
                               U(lo, hi))] + list(extra_in),
                        [T("out", out_shape or (s[name].rows, s[name].cols),
                           out_dtype or dtype)], fn, **kw)

    # Elementwise.
    for name, op, lo, hi, fn in (
            ("relu", "torch.relu(x)", -2, 2, lambda t, th, F: th.relu(t["x"])),
            ("sigmoid", "torch.sigmoid(x)", -10, 10,
             lambda t, th, F: th.sigmoid(t["x"])),
            ("gelu", "F.gelu(x, approximate='tanh')", -5, 5,
             lambda t, th, F: F.gelu(t["x"], approximate="tanh"))):
        if name in s:
            n = s[name].n
            E[name] = Entry(op, [T("x", (n,), f32, U(lo, hi))],
                            [T("out", (n,), f32)], fn)
    if "vector_add" in s:
        n = s["vector_add"].n
        E["vector_add"] = Entry(
            "a + b", [T("a", (n,), f32, U(-4, 4)), T("b", (n,), f32, U(-1, 2))],
            [T("c", (n,), f32)], lambda t, th, F: t["a"] + t["b"])
    if "saxpy" in s:
        n, a = s["saxpy"].n, s["saxpy"].a
        E["saxpy"] = Entry(
            "y.add_(x, alpha=a)", [T("y", (n,), f32, U(-3, 3)),
                                   T("x", (n,), f32, U(-1, 1))],
            [T("y", (n,), f32)], lambda t, th, F: t["y"].add_(t["x"], alpha=a),
            note="in place, like the program")
    if "bias_add_fp16" in s:
        z = s["bias_add_fp16"]
        E["bias_add_fp16"] = Entry(
            "x + bias (fp16, bias broadcast over rows)",
            [T("x", (z.rows, z.cols), f16, U(-8, 8)),
             T("bias", (z.cols,), f16, U(-1, 1))],
            [T("out", (z.rows, z.cols), f16)],
            lambda t, th, F: t["x"] + t["bias"])

    # Whole-array reductions.
    if "reduce_sum" in s:
        n = s["reduce_sum"].n
        E["reduce_sum"] = Entry("x.sum()", [T("x", (n,), f32, U(-1, 1.2))],
                                [T("sum", (1,), f32)],
                                lambda t, th, F: t["x"].sum())
    if "reduce_max" in s:
        n = s["reduce_max"].n
        E["reduce_max"] = Entry("x.amax()", [T("x", (n,), f32, U(-1000, 10))],
                                [T("max", (1,), f32)],
                                lambda t, th, F: t["x"].amax())
    if "dot" in s:
        n = s["dot"].n
        E["dot"] = Entry("torch.dot(a, b)", [T("a", (n,), f32, U(-0.5, 1.5)),
                                              T("b", (n,), f32, U(-0.25, 1))],
                         [T("dot", (1,), f32)],
                         lambda t, th, F: th.dot(t["a"], t["b"]))
    if "mse_loss" in s:
        n = s["mse_loss"].n
        E["mse_loss"] = Entry(
            "F.mse_loss(pred, target)", [T("pred", (n,), f32, U(-2, 2)),
                                         T("target", (n,), f32, U(-1.5, 2.5))],
            [T("loss", (1,), f32)],
            lambda t, th, F: F.mse_loss(t["pred"], t["target"]))
    if "count_above" in s:
        z = s["count_above"]
        thr = z.threshold
        E["count_above"] = Entry(
            "(x > threshold).sum()", [T("x", (z.n,), f32, U(-1, 1))],
            [T("count", (1,), i32)],
            lambda t, th, F: (t["x"] > thr).sum(),
            note="two kernels (compare, sum); int64 count")
    if "scan" in s:
        n = s["scan"].n
        E["scan"] = Entry(
            "torch.cumsum(x, 0, dtype=torch.int32)",
            [T("x", (n,), i32, RI(-8, 8))], [T("out", (n,), i32)],
            lambda t, th, F: th.cumsum(t["x"], 0, dtype=th.int32))
    if "bitonic_sort" in s:
        n = s["bitonic_sort"].n
        E["bitonic_sort"] = Entry(
            "torch.sort(keys).values",
            [T("keys", (n,), i32, RI(-(1 << 30), 1 << 30))],
            [T("sorted", (n,), i32)],
            lambda t, th, F: th.sort(t["keys"]).values,
            note="torch.sort also returns the indices (a key-value sort); "
                 "there is no keys-only sort op")
    if "histogram" in s:
        n = s["histogram"].n
        E["histogram"] = Entry(
            "torch.bincount(data, minlength=256)",
            [T("data", (n,), "uint8", ("custom", skewed_bytes))],
            [T("bins", (256,), i32)],
            lambda t, th, F: th.bincount(t["data"], minlength=256),
            note="int64 bins; bincount reads the maximum back to the host "
                 "first (a sync inside the op)")
    if "histogram1024" in s:
        z = s["histogram1024"]
        nb = z.nbins
        E["histogram1024"] = Entry(
            "torch.histc(data, bins=1024, min=0, max=1024)",
            [T("data", (z.n,), i32, ("custom", skewed_bins1024))],
            [T("bins", (nb,), i32)],
            lambda t, th, F: th.histc(t["data"], bins=nb, min=0, max=nb),
            prepare=histc_input,
            note="histc skips values outside [0, 1024] like the program's "
                 "guard, but counts 1024 itself in the last bin")

    # Row-wise ops (one thread per row in the programs).
    if "softmax" in s:
        rowwise("softmax", "torch.softmax(x, dim=1)", f32, -8, 8,
                lambda t, th, F: th.softmax(t["x"], dim=1))
    if "softmax_fp16" in s:
        rowwise("softmax_fp16", "torch.softmax(x, dim=1) (fp16)", f16, -8, 8,
                lambda t, th, F: th.softmax(t["x"], dim=1))
    if "layernorm" in s:
        z = s["layernorm"]
        rowwise("layernorm", "F.layer_norm(x, (cols,), gamma, beta, eps)",
                f32, -3, 5,
                # Bound now: z is rebound below before the op runs.
                (lambda c, e: lambda t, th, F: F.layer_norm(
                    t["x"], (c,), t["gamma"], t["beta"], e))(z.cols, z.eps),
                extra_in=(T("gamma", (z.cols,), f32, U(0.5, 1.5)),
                          T("beta", (z.cols,), f32, U(-0.5, 0.5))))
    for name, dt in (("rmsnorm", f32), ("rmsnorm_bf16", bf16)):
        if name in s:
            z = s[name]
            rowwise(name, "F.rms_norm(x, (cols,), weight, eps)" +
                    (" (bf16)" if dt == bf16 else ""), dt, -3, 5,
                    (lambda c, e: lambda t, th, F: F.rms_norm(
                        t["x"], (c,), t["weight"], e))(z.cols, z.eps),
                    extra_in=(T("weight", (z.cols,), dt, U(0.5, 1.5)),))
    if "row_sum" in s:
        rowwise("row_sum", "x.sum(dim=1)", f32, -1, 2,
                lambda t, th, F: t["x"].sum(dim=1),
                out_shape=(s["row_sum"].rows,))
    for name, op in (("row_argmax", "argmax"), ("row_argmin", "argmin")):
        if name in s:
            z = s[name]
            E[name] = Entry(
                "x.%s(dim=1)" % op,
                [T("x", (z.rows, z.cols), f32, ("quarters",))],
                [T("out", (z.rows,), i32)],
                (lambda o: lambda t, th, F: getattr(t["x"], o)(dim=1))(op),
                note="ties: first index (as the program); int64 indices")
    if "row_cumsum" in s:
        rowwise("row_cumsum", "torch.cumsum(x, dim=1)", f32, -1, 1.5,
                lambda t, th, F: th.cumsum(t["x"], dim=1))
    if "cross_entropy" in s:
        z = s["cross_entropy"]
        E["cross_entropy"] = Entry(
            "F.cross_entropy(logits, labels, reduction='none')",
            [T("logits", (z.rows, z.classes), f32, U(-6, 10)),
             T("labels", (z.rows,), i32, RI(0, z.classes - 1))],
            [T("loss", (z.rows,), f32)],
            lambda t, th, F: F.cross_entropy(t["logits"], t["labels64"],
                                             reduction="none"),
            prepare=labels_to_int64,
            note="labels as int64 (PyTorch requires it), converted before "
                 "timing")

    # Matrix-vector and matrix-matrix products.
    for name in ("gemv", "gemv16"):
        if name in s:
            z = s[name]
            E[name] = Entry(
                "torch.mv(A, x)", [T("A", (z.rows, z.cols), f32, U(-1, 1)),
                                   T("x", (z.cols,), f32, U(-1, 1))],
                [T("y", (z.rows,), f32)],
                lambda t, th, F: th.mv(t["A"], t["x"]))
    if "gemv_t" in s:
        z = s["gemv_t"]
        E["gemv_t"] = Entry(
            "torch.mv(A.t(), x) (A row-major rows x cols)",
            [T("A", (z.rows, z.cols), f32, U(-1, 1)),
             T("x", (z.rows,), f32, U(-1, 1))],
            [T("y", (z.cols,), f32)],
            lambda t, th, F: th.mv(t["A"].t(), t["x"]))
    if "gemv_t_colmajor" in s:
        z = s["gemv_t_colmajor"]
        E["gemv_t_colmajor"] = Entry(
            "torch.mv(Ac, x) (Ac: cols x rows row-major = A column-major)",
            [T("Ac", (z.cols, z.rows), f32, U(-1, 1)),
             T("x", (z.rows,), f32, U(-0.5, 1.5))],
            [T("y", (z.cols,), f32)],
            lambda t, th, F: th.mv(t["Ac"], t["x"]))
    if "gemm_square" in s:
        n = s["gemm_square"].n
        E["gemm_square"] = Entry(
            "A @ B (fp32, TF32 off)", [T("A", (n, n), f32, U(-1, 1)),
                                       T("B", (n, n), f32, U(-1, 1))],
            [T("C", (n, n), f32)], lambda t, th, F: t["A"] @ t["B"])
    if "gemm_rect" in s:
        z = s["gemm_rect"]
        E["gemm_rect"] = Entry(
            "A @ B (fp32, TF32 off)", [T("A", (z.M, z.K), f32, U(-1, 1)),
                                       T("B", (z.K, z.N), f32, U(-0.5, 1.5))],
            [T("C", (z.M, z.N), f32)], lambda t, th, F: t["A"] @ t["B"])
    for name in ("gemm_skinny", "gemm_smallk", "gemm_irregular"):
        if name in s:
            z = s[name]
            E[name] = Entry(
                "A @ B (fp32, TF32 off)",
                [T("A", (z.M, z.K), f32, U(-1, 1)),
                 T("B", (z.K, z.N), f32, U(-0.5, 1.5))],
                [T("C", (z.M, z.N), f32)], lambda t, th, F: t["A"] @ t["B"])
    if "gemm_fp16" in s:
        z = s["gemm_fp16"]
        E["gemm_fp16"] = Entry(
            "A @ B (fp16, fp32 accumulation)",
            [T("A", (z.M, z.K), f16, U(-1, 1)), T("B", (z.K, z.N), f16, U(-1, 1))],
            [T("C", (z.M, z.N), f16)], lambda t, th, F: t["A"] @ t["B"])
    if "gemm_batched" in s:
        z = s["gemm_batched"]
        E["gemm_batched"] = Entry(
            "torch.bmm(A, B) (fp32, TF32 off)",
            [T("A", (z.batch, z.M, z.K), f32, U(-1, 1)),
             T("B", (z.batch, z.K, z.N), f32, U(-1, 1))],
            [T("C", (z.batch, z.M, z.N), f32)],
            lambda t, th, F: th.bmm(t["A"], t["B"]))
    if "spmv_csr" in s:
        rows = 1 << 23  # the program's (its spec uses 64M rows of 1 nnz)
        nnz_est = rows * 16
        E["spmv_csr"] = Entry(
            "torch.mv(A_csr, x) (cuSPARSE SpMV)",
            [T("row_ptr", (rows + 1,), i32), T("col_idx", (nnz_est,), i32),
             T("vals", (nnz_est,), f32), T("x", (rows,), f32, U(-2, 2))],
            [T("y", (rows,), f32)],
            lambda t, th, F: t["spmv"](),
            prepare=(lambda r: lambda t, th, g: build_csr(t, th, g, r))(rows),
            note="same kind of matrix as the program (8M x 8M, 8-24 nnz per "
                 "row, mostly near the diagonal), drawn anew; bytes count "
                 "the actual nnz")

    if "segment_max" in s:
        segs = s["segment_max"].segments
        total = segs * 30  # the program's mean length (0 to 60)
        E["segment_max"] = Entry(
            "torch.full(..., INT_MIN).scatter_reduce_(0, ids, x, 'amax')",
            [T("offsets", (segs + 1,), i32,
               ("custom", lambda th, shape, g: segment_offsets(
                   th, shape[0] - 1, total, g))),
             T("x", (total,), i32, RI(-(1 << 30), 1 << 30))],
            [T("out", (segs,), i32)],
            lambda t, th, F: th.full(
                (segs,), -(1 << 31), dtype=th.int32,
                device="cuda").scatter_reduce_(0, t["ids"], t["x"], "amax"),
            prepare=segment_ids,
            note="eager has no int32 segmented max; the segment of each "
                 "element (repeat_interleave of the lengths) is built "
                 "before timing")

    # Images: pooling, convolution, stencil, transpose.
    if "maxpool" in s:
        z = s["maxpool"]
        E["maxpool"] = Entry(
            "F.max_pool2d(x, 2, 2)",
            [T("x", (1, z.channels, z.h, z.w), f32, U(-50, 50))],
            [T("out", (1, z.channels, z.h // 2, z.w // 2), f32)],
            lambda t, th, F: F.max_pool2d(t["x"], 2, 2))
    if "avgpool" in s:
        z = s["avgpool"]
        E["avgpool"] = Entry(
            "F.avg_pool2d(x, 3, 2)", [T("x", (1, 1, z.h, z.w), f32, U(-10, 30))],
            [T("out", (1, 1, z.oh, z.ow), f32)],
            lambda t, th, F: F.avg_pool2d(t["x"], 3, 2))
    if "maxpool2d" in s:
        z = s["maxpool2d"]
        E["maxpool2d"] = Entry(
            "F.max_pool2d(x, %d, %d, %d) on 128 x 64 planes" % (
                z.k, z.stride, z.pad),
            [T("x", (128, z.planes // 128, z.h, z.w), f32, U(-50, 50))],
            [T("out", (128, z.planes // 128, z.oh, z.ow), f32)],
            (lambda k, st, p: lambda t, th, F: F.max_pool2d(
                t["x"], k, st, p))(z.k, z.stride, z.pad))
    if "avgpool2d" in s:
        z = s["avgpool2d"]
        E["avgpool2d"] = Entry(
            "F.avg_pool2d(x, %d, %d, %d, count_include_pad=False) on 64 x 128 "
            "planes" % (z.k, z.stride, z.pad),
            [T("x", (64, z.planes // 64, z.h, z.w), f32, U(-10, 30))],
            [T("out", (64, z.planes // 64, z.oh, z.ow), f32)],
            (lambda k, st, p: lambda t, th, F: F.avg_pool2d(
                t["x"], k, st, p, count_include_pad=False))(
                    z.k, z.stride, z.pad))
    if "conv2d" in s:
        z = s["conv2d"]
        E["conv2d"] = Entry(
            "F.conv2d(x, filt, padding=2) (1 channel, 5x5, cuDNN, TF32 off)",
            [T("x", (1, 1, z.h, z.w), f32, U(0, 255)),
             T("filt", (1, 1, 5, 5), f32, U(-0.2, 0.3))],
            [T("out", (1, 1, z.h, z.w), f32)],
            lambda t, th, F: F.conv2d(t["x"], t["filt"], padding=2))
    if "conv3x3_nchw" in s:
        z = s["conv3x3_nchw"]
        E["conv3x3_nchw"] = Entry(
            "F.conv2d(x, w, padding=1) (NCHW, 3x3, cuDNN, TF32 off)",
            [T("x", (z.N, z.C, z.H, z.W), f32, U(-1, 1)),
             T("w", (z.K, z.C, 3, 3), f32, U(-0.1, 0.1))],
            [T("out", (z.N, z.K, z.H, z.W), f32)],
            lambda t, th, F: F.conv2d(t["x"], t["w"], padding=1))
    if "conv_nhwc_s2" in s:
        z = s["conv_nhwc_s2"]
        E["conv_nhwc_s2"] = Entry(
            "F.conv2d(x, w, stride=2, padding=1) (channels-last, 3x3, cuDNN, "
            "TF32 off)",
            [T("x", (z.N, z.C, z.H, z.W), f32, U(-1, 1)),
             T("w", (z.K, z.C, 3, 3), f32, U(-0.1, 0.1))],
            [T("out", (z.N, z.K, z.P, z.Q), f32)],
            lambda t, th, F: F.conv2d(t["x"], t["w"], stride=2, padding=1),
            prepare=channels_last)
    if "stencil5" in s:
        z = s["stencil5"]
        E["stencil5"] = Entry(
            "F.conv2d(x, 3x3 cross [.125 around .5]) (interior only)",
            [T("x", (1, 1, z.h, z.w), f32, U(-1, 1)),
             T("k", (1, 1, 3, 3), f32, ("custom", stencil_weights))],
            [T("out", (1, 1, z.h, z.w), f32)],
            lambda t, th, F: F.conv2d(t["x"], t["k"]),
            note="approximate: the program also copies the border cells; the "
                 "convolution writes only the (h-2) x (w-2) interior")
    if "transpose" in s:
        z = s["transpose"]
        E["transpose"] = Entry(
            "x.t().contiguous()", [T("x", (z.h, z.w), f32, U(-100, 100))],
            [T("out", (z.w, z.h), f32)],
            lambda t, th, F: t["x"].t().contiguous())

    # Multi-launch programs (issue 14): the whole chain or time loop, as one
    # eager expression; bytes are the fused floor (the chain's inputs read
    # once, its final output written once; the intermediates, dead after the
    # chain, are not counted).
    if "chain_scale_bias" in s:
        z = s["chain_scale_bias"]
        beta = -0.25  # bias_relu's, the second kernel (the spec is scale's)
        E["chain_scale_bias"] = Entry(
            "torch.relu(alpha * x + beta)",
            [T("x", (z.n,), f32, U(-2, 2))], [T("y", (z.n,), f32)],
            (lambda a, b: lambda t, th, F: th.relu(a * t["x"] + b))(
                z.alpha, beta),
            note="three kernels in eager (mul, add, relu); the program "
                 "launches two")
    if "chain3_fp16" in s:
        n = s["chain3_fp16"].n
        E["chain3_fp16"] = Entry(
            "F.hardswish(x * y + z) (fp16)",
            [T("x", (n,), f16, U(-2, 2)), T("y", (n,), f16, U(-2, 2)),
             T("z", (n,), f16, U(-1, 1))],
            [T("out", (n,), f16)],
            lambda t, th, F: F.hardswish(t["x"] * t["y"] + t["z"]),
            note="three kernels, like the program (x * y and + z rounded to "
                 "fp16 as there)")
    if "map_reduce_sumsq" in s:
        n = s["map_reduce_sumsq"].n
        E["map_reduce_sumsq"] = Entry(
            "(x * x).sum()", [T("x", (n,), f32, U(-1, 1))],
            [T("sum", (1,), f32)],
            lambda t, th, F: (t["x"] * t["x"]).sum(),
            note="two kernels (square, sum), like the program")
    if "stencil5_iter" in s:
        z = s["stencil5_iter"]
        E["stencil5_iter"] = Entry(
            "10 x: dst[1:-1, 1:-1] = 0.5 * src[1:-1, 1:-1] + 0.125 * (four "
            "shifted slices of src)",
            [T("x", (z.ny, z.nx), f32, U(-1, 1))],
            [T("out", (z.ny, z.nx), f32)],
            lambda t, th, F: jacobi_sweeps(t, 10),
            prepare=jacobi_buffers,
            note="eager slicing: ~8 kernels per sweep; two ping-pong "
                 "buffers holding x's border, made before timing; the first "
                 "sweep reads x")
    if "box9_iter" in s:
        z = s["box9_iter"]
        E["box9_iter"] = Entry(
            "20 x: dst[1:-1, 1:-1] = (sum of the nine shifted slices of src) "
            "/ 9",
            [T("x", (z.height, z.width), f32, U(0, 1))],
            [T("out", (z.height, z.width), f32)],
            lambda t, th, F: box9_sweeps(t, 20),
            prepare=jacobi_buffers,
            note="eager slicing: ~10 kernels per sweep; two ping-pong "
                 "buffers holding x's border, made before timing")
    return E


def box9_sweeps(t, sweeps):
    """box9_iter's sweeps: interior = the mean of the 3 x 3 neighbourhood,
    from x into buf0, then back and forth; returns the last."""
    src, bufs = t["x"], (t["buf0"], t["buf1"])
    for k in range(sweeps):
        dst = bufs[k % 2]
        h, w = src.shape
        acc = None
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                part = src[dy:h - 2 + dy, dx:w - 2 + dx]
                acc = part.clone() if acc is None else acc.add_(part)
        dst[1:-1, 1:-1] = acc * (1.0 / 9.0)
        src = dst
    return src


def histc_input(t, torch, gen):
    """histc on int32 where this PyTorch supports it, else on a float copy
    made before timing."""
    try:
        torch.histc(t["data"][:1024], bins=4, min=0, max=4)
    except RuntimeError:
        t["data"] = t["data"].float()


def segment_offsets(torch, segs, total, gen):
    """segment_max: CSR offsets of segments of 0 to 60 elements, the last
    ones cut at total."""
    lengths = torch.randint(0, 61, (segs,), generator=gen, device="cuda",
                            dtype=torch.int32)
    off = torch.zeros(segs + 1, device="cuda", dtype=torch.int64)
    off[1:] = torch.cumsum(lengths, 0)
    return off.clamp_(max=total).to(torch.int32)


def segment_ids(t, torch, gen):
    """segment_max: the segment of each element, for scatter_reduce."""
    off = t["offsets"].long()
    lengths = off[1:] - off[:-1]
    ids = torch.repeat_interleave(
        torch.arange(lengths.numel(), device="cuda"), lengths)
    t["x"] = t["x"][:ids.numel()]
    t["ids"] = ids


def channels_last(t, torch, gen):
    """conv_nhwc_s2: NHWC input and KRSC weights, as the program keeps them."""
    for name in ("x", "w"):
        t[name] = t[name].contiguous(memory_format=torch.channels_last)


def labels_to_int64(t, torch, gen):
    t["labels64"] = t["labels"].long()


def build_csr(t, torch, gen, rows):
    crow, col, vals = csr_parts(torch, rows, rows, gen)
    t["row_ptr"], t["col_idx"], t["vals"] = crow, col, vals
    A = torch.sparse_csr_tensor(crow, col, vals, size=(rows, rows))
    x = t["x"]
    t["spmv"] = lambda: torch.mv(A, x)
    path = "torch.mv"
    try:
        t["spmv"]()
    except RuntimeError:  # no mv for CSR in this PyTorch: a one-column SpMM
        t["spmv"] = lambda: (A @ x.unsqueeze(1)).squeeze(1)
        path = "A @ x[:, None]"
    return {"nnz": int(col.numel()), "call": path}


def jacobi_buffers(t, torch, gen):
    """stencil5_iter: the two ping-pong grids, x's copies (the border cells
    stay fixed, as in the program, which copies them through each sweep)."""
    t["buf0"], t["buf1"] = t["x"].clone(), t["x"].clone()


def jacobi_sweeps(t, sweeps):
    """stencil5_iter's sweeps: interior = 0.5 * centre + 0.125 * the four
    neighbours, from x into buf0, then back and forth; returns the last."""
    src, bufs = t["x"], (t["buf0"], t["buf1"])
    for k in range(sweeps):
        dst = bufs[k % 2]
        dst[1:-1, 1:-1] = 0.5 * src[1:-1, 1:-1] + 0.125 * (
            src[1:-1, :-2] + src[1:-1, 2:] + src[:-2, 1:-1] + src[2:, 1:-1])
        src = dst
    return src


def stencil_weights(torch, shape, gen):
    k = torch.zeros(shape, device="cuda")
    k[0, 0, 1, 1] = 0.5
    for y, x in ((0, 1), (1, 0), (1, 2), (2, 1)):
        k[0, 0, y, x] = 0.125
    return k


# --- sizes from the specs ----------------------------------------------------

def corpus_sizes(corpus):
    """program -> namespace of its spec's sizes and scalar arguments."""
    out = {}
    for fn in sorted(os.listdir(corpus)):
        if not fn.endswith(".cu"):
            continue
        name = fn[:-3]
        spec = os.path.join(corpus, name + ".tune.json")
        vals = {}
        if os.path.exists(spec):
            with open(spec) as f:
                d = json.load(f)
            vals.update(d.get("sizes", {}))
            for k, v in d.get("args", {}).items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    vals[k] = v
        out[name] = types.SimpleNamespace(**vals)
    return out


def select(names, patterns):
    if not patterns:
        return list(names)
    pats = [p for arg in patterns for p in arg.split(",") if p]
    return [n for n in names if any(fnmatch.fnmatch(n, p) for p in pats)]


# --- building and timing -----------------------------------------------------

def build_input(torch, spec, gen):
    kind = spec.init[0]
    dt = getattr(torch, spec.dtype)
    if kind == "uniform":
        x = torch.empty(spec.shape, device="cuda", dtype=torch.float32)
        x.uniform_(spec.init[1], spec.init[2], generator=gen)
        return x.to(dt) if dt != torch.float32 else x
    if kind == "randint":
        return torch.randint(spec.init[1], spec.init[2] + 1, spec.shape,
                             generator=gen, device="cuda", dtype=dt)
    if kind == "quarters":
        q = torch.randint(0, 64, spec.shape, generator=gen, device="cuda",
                          dtype=torch.int32)
        return (q.to(torch.float32) * 0.25 - 8.0).to(dt)
    if kind == "custom":
        return spec.init[1](torch, spec.shape, gen)
    raise ValueError("unknown init %r" % (kind,))


def time_op(torch, fn, reps, warmup):
    """Device ms of fn() per call: L2 flushed before each, CUDA events."""
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ms = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    del flush

    def q(p):
        return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))]
    return {"median_ms": q(0.5), "min_ms": ms[0], "p10_ms": q(0.1),
            "p90_ms": q(0.9), "max_ms": ms[-1], "reps": reps}


def run_one(torch, F, name, e, reps, warmup, seed):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    t = {}
    for spec in e.inputs:
        if spec.init is not None:
            t[spec.name] = build_input(torch, spec, gen)
    extra = e.prepare(t, torch, gen) if e.prepare else None
    torch.cuda.synchronize()
    res = time_op(torch, lambda: e.fn(t, torch, F), reps, warmup)
    nbytes = e.nbytes()
    if extra and "nnz" in extra:  # spmv: the actual nnz, not the estimate
        nnz = extra["nnz"]
        nbytes = sum(s.nbytes() for s in e.inputs + e.outputs
                     if s.name not in ("col_idx", "vals")) + nnz * 8
        res["nnz"] = nnz
    if extra and "call" in extra:
        res["call"] = extra["call"]
    res.update({"op": e.op, "bytes": nbytes,
                "GB/s": nbytes / (res["median_ms"] * 1e-3) / 1e9,
                "inputs": [s.describe() for s in e.inputs]})
    res["pct_of_copy"] = 100.0 * res["GB/s"] / COPY_CEILING_GBS
    if e.note:
        res["note"] = e.note
    t.clear()
    torch.cuda.empty_cache()
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="JSON to write [%(default)s]")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--programs", action="append", default=[],
                    help="comma-separated names or globs (repeatable); "
                         "default all")
    ap.add_argument("--quick", action="store_true",
                    help="20 timed calls and 2 warm-ups instead of 100 and 5")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--warmup", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dry-run", action="store_true",
                    help="print what would be timed (no torch or GPU needed)")
    args = ap.parse_args(argv)
    reps = args.reps or (20 if args.quick else 100)
    warmup = args.warmup if args.warmup is not None else (2 if args.quick else 5)

    sizes = corpus_sizes(args.corpus)
    table = entries(sizes)
    names = select(sorted(sizes), args.programs)
    if not names:
        print("pytorch_eager: no corpus program matches %s" % args.programs,
              file=sys.stderr)
        return 2

    if args.dry_run:
        print("%-16s %10s  %s" % ("program", "MB", "op / inputs"))
        for n in names:
            e = table.get(n)
            if e is None:
                print("%-16s %10s  no equivalent: no entry in the table" % (n, "-"))
                continue
            print("%-16s %10.1f  %s" % (n, e.nbytes() / 1e6, e.op))
            print("%-16s %10s  %s -> %s%s" % (
                "", "", ", ".join(s.describe() for s in e.inputs),
                ", ".join(s.describe() for s in e.outputs),
                ("  [" + e.note + "]") if e.note else ""))
        print("%d programs, %d timed calls each after %d warm-ups" %
              (len(names), reps, warmup))
        return 0

    import torch
    import torch.nn.functional as F
    if not torch.cuda.is_available():
        print("pytorch_eager: no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False

    results, missing, failed = {}, {}, {}
    for n in names:
        e = table.get(n)
        if e is None:
            missing[n] = "no PyTorch equivalent in bench/pytorch_eager.py's table"
            continue
        try:
            results[n] = run_one(torch, F, n, e, reps, warmup, args.seed)
        except Exception as ex:  # one program failing never stops the rest
            failed[n] = "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0]
                                    if str(ex) else "")
            torch.cuda.empty_cache()
        r = results.get(n)
        if r:
            print("%-16s %9.4f ms  (p10 %.4f, p90 %.4f)  %7.0f GB/s (%3.0f%%)  %s"
                  % (n, r["median_ms"], r["p10_ms"], r["p90_ms"], r["GB/s"],
                     r["pct_of_copy"], r["op"]), flush=True)
        else:
            print("%-16s FAILED %s" % (n, failed.get(n, "")), flush=True)

    doc = {
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"),
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "method": "CUDA events around one call, 256 MB L2 flush before each, "
                  "%d warm-ups, median of %d; TF32 and reduced-precision "
                  "GEMM reductions off" % (warmup, reps),
        "quick": bool(args.quick),
        "copy_ceiling_gb_per_s": COPY_CEILING_GBS,
        "programs": results,
        "no_equivalent": missing,
        "failed": failed,
    }
    # Merge into an existing file: runs of subsets add up.
    if os.path.exists(args.out):
        try:
            with open(args.out) as f:
                old = json.load(f)
            for key in ("programs", "no_equivalent", "failed"):
                merged = dict(old.get(key, {}))
                for n in names:
                    merged.pop(n, None)
                merged.update(doc[key])
                doc[key] = merged
        except (OSError, ValueError):
            pass
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    print("wrote %s (%d timed, %d without equivalent, %d failed)" %
          (args.out, len(results), len(missing), len(failed)))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
