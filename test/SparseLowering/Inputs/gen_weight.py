#!/usr/bin/env python3
"""Writes a deterministic M x K fp16 weight as MLIR, for the tests here.

  gen_weight.py M K SPARSITY_PERCENT SEED           a dense<...> literal
  gen_weight.py M K SPARSITY_PERCENT SEED --matmul N [--npy PATH]
      a module: that weight as a #sparse_tensor.encoding constant times a
      K x N argument (zero-initialized accumulator); --npy also writes the
      weight as a .npy file (for cuda-opt sparse-encode)

An element is zero with probability SPARSITY_PERCENT (i.i.d., fixed seed);
nonzeros are small integers, exact in fp16. The number of nonzeros is
printed as a comment (`// nonzeros: NNZ`), which tests check against the
pass's statistics.
"""
import random
import struct
import sys


def weight(m, k, pct, seed):
    rng = random.Random(seed)
    rows, values, nnz = [], [], 0
    for _ in range(m):
        row = []
        for _ in range(k):
            if rng.random() * 100 < pct:
                v = 0
            else:
                v = rng.choice([-3, -2, -1, 1, 2, 3])
                nnz += 1
            row.append("%d.0" % v)
            values.append(float(v))
        rows.append("[" + ", ".join(row) + "]")
    return "dense<[" + ",\n ".join(rows) + "]>", nnz, values


def write_npy(path, m, k, values):
    header = "{'descr': '<f2', 'fortran_order': False, 'shape': (%d, %d), }" % (
        m, k)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%de" % len(values), *values))


def main():
    m, k, pct, seed = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]),
                       int(sys.argv[4]))
    literal, nnz, values = weight(m, k, pct, seed)
    print("// nonzeros: %d" % nnz)
    if len(sys.argv) < 7 or sys.argv[5] != "--matmul":
        print(literal)
        return
    n = int(sys.argv[6])
    if len(sys.argv) > 8 and sys.argv[7] == "--npy":
        write_npy(sys.argv[8], m, k, values)
    print("#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> "
          "(d0 : dense, d1 : compressed) }>")
    print("func.func @generated(%%x: tensor<%dx%dxf16>) -> tensor<%dx%dxf16> {"
          % (k, n, m, n))
    print("  %%w = arith.constant %s : tensor<%dx%dxf16, #CSR>"
          % (literal, m, k))
    print("  %zero = arith.constant 0.0 : f16")
    print("  %%e = tensor.empty() : tensor<%dx%dxf16>" % (m, n))
    print("  %%acc = linalg.fill ins(%%zero : f16) outs(%%e : tensor<%dx%dxf16>)"
          " -> tensor<%dx%dxf16>" % (m, n, m, n))
    print("  %%y = linalg.matmul ins(%%w, %%x : tensor<%dx%dxf16, #CSR>, "
          "tensor<%dx%dxf16>) outs(%%acc : tensor<%dx%dxf16>) -> "
          "tensor<%dx%dxf16>" % (m, k, k, n, m, n, m, n))
    print("  return %%y : tensor<%dx%dxf16>" % (m, n))
    print("}")


if __name__ == "__main__":
    main()
