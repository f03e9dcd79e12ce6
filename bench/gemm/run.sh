#!/usr/bin/env bash
# The GEMM benchmark of issue 4 in one command, on the GPU machine:
#   bench/gemm/run.sh [OUTDIR]
# Builds the runtime and gemm-bench (nvcc, sm_90a), runs the correctness
# tests and every shape of shapes.txt for fp16/bf16 x B col/row against
# cuBLAS, cuBLASLt top-1 and cuBLASLt autotuned, then writes
# OUTDIR/gemm-h200.{json,md,png} and a tuned table (OUTDIR/TunedTable.inc,
# OUTDIR/gemm-h200-table.json). Takes ~4 minutes on an idle H200.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build-gemm/results}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
"$ROOT/bench/gemm/build.sh" "$ROOT/build-gemm" > "$OUT/build.log" 2>&1
BIN=$ROOT/build-gemm/gemm-bench
rm -f "$OUT"/gemm-*.jsonl "$OUT"/gemm-*.jsonl.started
"$BIN" --special --shapes "$ROOT/bench/gemm/shapes.txt" --types f16 \
  --layouts col,row --out "$OUT/gemm-f16.jsonl" | tee "$OUT/bench.log"
"$BIN" --shapes "$ROOT/bench/gemm/shapes.txt" --types bf16 --layouts col,row \
  --out "$OUT/gemm-bf16.jsonl" | tee -a "$OUT/bench.log"
python3 "$ROOT/bench/gemm/report.py" "$OUT/gemm-h200" "$OUT/gemm-f16.jsonl" \
  "$OUT/gemm-bf16.jsonl"
echo "results in $OUT; to install the tuned table:"
echo "  bench/gemm/make_table.py VERSION $OUT/gemm-f16.jsonl $OUT/gemm-bf16.jsonl"
