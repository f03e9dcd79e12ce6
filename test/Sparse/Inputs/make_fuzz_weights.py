#!/usr/bin/env python3
"""Writes the weight files behind the reader fixes of docs/fuzzing.md.

Each file once crashed or hit undefined behaviour in
runtime/sparse/lib/WeightFile.cpp; test/Sparse/fuzz-regressions.test reads
them with cuda-opt sparse-encode. Usage: make_fuzz_weights.py OUTDIR
"""
import json
import os
import struct
import sys


def npy(path, header, data, pad=True):
    if pad:
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(data)


def safetensors(path, header_text, data):
    raw = header_text.encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        f.write(data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # 4294901761 x 2147516416 = 2^63 + 32768 elements: twice that wraps to
    # 65536 bytes, which the file has; the reader then sized a vector of
    # 2^63 elements.
    npy(os.path.join(out, "wrapping-shape.npy"),
        "{'descr': '<f2', 'fortran_order': False, "
        "'shape': (4294901761, 2147516416), }", b"\0" * 65536)
    # A header that ends at the dtype's colon: the dtype is empty, and
    # taking the text between its quotes threw std::out_of_range.
    npy(os.path.join(out, "empty-descr.npy"),
        "{'shape': (2, 2), 'descr':", b"\0" * 8, pad=False)
    # NaN in a shape and a negative data offset (the JSON reader takes what
    # strtod takes): converting them to integers was undefined behaviour.
    safetensors(os.path.join(out, "nan-shape.safetensors"),
                '{"w": {"dtype": "F16", "shape": [NaN, 2], '
                '"data_offsets": [0, 8]}}', b"\0" * 8)
    safetensors(os.path.join(out, "negative-offset.safetensors"),
                '{"w": {"dtype": "F16", "shape": [2, 2], '
                '"data_offsets": [-8, 0]}}', b"\0" * 8)
    # Offsets just below 2^64 (doubles there are 2048 apart) behind a
    # 2992-byte header: the end check's sum (data start + end) wrapped
    # around to 952 and the reader read 1096 bytes before the file's buffer.
    end = 18446744073709549568
    header = ('{"w": {"dtype": "F16", "shape": [1024, 1], '
              '"data_offsets": [%d, %d]}}' % (end - 2048, end))
    safetensors(os.path.join(out, "wrapping-offsets.safetensors"),
                header + " " * (2992 - len(header)), b"\0" * 8)


if __name__ == "__main__":
    main()
