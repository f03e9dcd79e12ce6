#!/usr/bin/env python3
"""Writes the small weight files the sparse-encode tests read.

Only the standard library (no numpy): .npy and .safetensors are written by
hand with struct. Usage: make_weights.py OUTDIR
"""
import json
import os
import struct
import sys


def lcg(seed):
    state = seed
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield state >> 33


def fp16_bits(value):
    return struct.unpack("<H", struct.pack("<e", value))[0]


def matrix(rows, cols, sparsity, seed):
    """Deterministic values in (-2, 2), zero with probability `sparsity`."""
    rng = lcg(seed)
    out = []
    for _ in range(rows * cols):
        if next(rng) % 10000 < sparsity * 10000:
            out.append(0)
        else:
            v = (next(rng) % 4000 + 1) / 1000.0 - 2.0005
            out.append(fp16_bits(v))
    return out


def npy(path, descr, shape, words, fortran=False, raw_tail=None):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False",
        "".join("%d, " % d for d in shape) if len(shape) == 1
        else ", ".join(str(d) for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%dH" % len(words), *words))
        if raw_tail:
            f.write(raw_tail)


def safetensors(path, tensors, truncate=0):
    header, blob = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob[:len(blob) - truncate])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rows, cols = 48, 520  # not multiples of the 16 x 256 block
    for s in (30, 50, 70, 90):
        npy(os.path.join(out, "w%d.npy" % s), "<f2", (rows, cols),
            matrix(rows, cols, s / 100, s))
    w = matrix(rows, cols, 0.5, 7)
    # The same matrix stored in Fortran order: must encode identically.
    t = [w[r * cols + c] for c in range(cols) for r in range(rows)]
    npy(os.path.join(out, "w50f.npy"), "<f2", (rows, cols), w)
    npy(os.path.join(out, "w50-fortran.npy"), "<f2", (rows, cols), t, True)
    npy(os.path.join(out, "bf16.npy"), "<V2", (rows, cols), w)
    npy(os.path.join(out, "f32.npy"), "<f4", (4, 4), [0] * 32)
    npy(os.path.join(out, "three-d.npy"), "<f2", (2, 3, 4), [0] * 24)
    npy(os.path.join(out, "one-d.npy"), "<f2", (8,), [0] * 8)
    npy(os.path.join(out, "truncated.npy"), "<f2", (rows, cols), w[:100])
    with open(os.path.join(out, "bad-magic.npy"), "wb") as f:
        f.write(b"PK\x03\x04 not a numpy file")
    data = struct.pack("<%dH" % len(w), *w)
    safetensors(os.path.join(out, "model.safetensors"), [
        ("layer.0.weight", "F16", [rows, cols], data),
        ("layer.1.weight", "BF16", [rows, cols], data),
        ("layer.0.bias", "F16", [cols], data[:2 * cols]),
        ("layer.2.weight", "F32", [2, 2], b"\0" * 16),
    ])
    safetensors(os.path.join(out, "single.safetensors"),
                [("w", "F16", [rows, cols], data)])
    safetensors(os.path.join(out, "truncated.safetensors"),
                [("w", "F16", [rows, cols], data)], truncate=10)
    with open(os.path.join(out, "garbage.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", 1 << 40) + b"{}")


if __name__ == "__main__":
    main()
