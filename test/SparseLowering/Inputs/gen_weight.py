#!/usr/bin/env python3
"""Writes a deterministic M x K fp16 weight as MLIR, for the tests here.

  gen_weight.py M K SPARSITY_PERCENT SEED           a dense<...> literal
  gen_weight.py M K SPARSITY_PERCENT SEED --matmul N
      a module: that weight as a #sparse_tensor.encoding constant times a
      K x N argument (zero-initialized accumulator)

An element is zero with probability SPARSITY_PERCENT (i.i.d., fixed seed);
nonzeros are small integers, exact in fp16. The number of nonzeros is
printed as a comment (`// nonzeros: NNZ`), which tests check against the
pass's statistics.
"""
import random
import sys


def weight(m, k, pct, seed):
    rng = random.Random(seed)
    rows, nnz = [], 0
    for _ in range(m):
        row = []
        for _ in range(k):
            if rng.random() * 100 < pct:
                row.append("0.0")
            else:
                row.append("%d.0" % rng.choice([-3, -2, -1, 1, 2, 3]))
                nnz += 1
        rows.append("[" + ", ".join(row) + "]")
    return "dense<[" + ",\n ".join(rows) + "]>", nnz


def main():
    m, k, pct, seed = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]),
                       int(sys.argv[4]))
    literal, nnz = weight(m, k, pct, seed)
    print("// nonzeros: %d" % nnz)
    if len(sys.argv) < 7 or sys.argv[5] != "--matmul":
        print(literal)
        return
    n = int(sys.argv[6])
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
