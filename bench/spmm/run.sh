#!/bin/bash
# One command on the GPU machine: build the SpMM benchmark with nvcc and run
# it. Usage: bench/spmm/run.sh [OUTDIR] [extra spmm-bench options...]
# Default grid: the 31 SpInfer shapes x N in {8..256} at 50% (i.i.d. and
# magnitude pruning), then 40/60/70% i.i.d.; raw JSON + logs in OUTDIR
# (default build-spmm/results), then summarize.py writes spmm-h200.{md,json,png}
# there (tables only; bench/results/spmm-h200.md adds the write-up).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build-spmm/results}
shift || true
mkdir -p "$OUT" build-spmm
BIN=build-spmm/spmm-bench
# A binary built on the CPU machine (same CUDA 13.0) can be carried along;
# rebuild when there is none or it cannot resolve its libraries here.
if ! [ -x "$BIN" ] || ldd "$BIN" | grep -q "not found"; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
    -Iruntime/sparse -Ibench/spmm bench/spmm/SpmmBench.cu \
    bench/spmm/CusparseLt.cpp runtime/sparse/TlsSpmm.cu \
    runtime/sparse/TlsEncoder.cpp runtime/sparse/TlsFile.cpp \
    -lcublas -ldl -o "$BIN" || exit 1
fi
# cuSPARSELt lives in PyTorch's Python environment.
CSLT=$(python3 - <<'PY' 2>/dev/null
import glob, os, sys
for p in sys.path:
    for f in glob.glob(os.path.join(p, "nvidia", "*", "lib", "libcusparseLt.so*")):
        print(f); sys.exit(0)
PY
)
echo "cuSPARSELt: ${CSLT:-not found}"
"$BIN" --shapes all --n 8,16,32,64,128,256 --sparsity 50 \
  --pattern iid,magnitude --reps 20 ${CSLT:+--cusparselt "$CSLT"} \
  --json "$OUT/spmm-h200-50.json" "$@" 2>&1 | tee "$OUT/spmm-h200-50.log"
"$BIN" --shapes all --n 8,16,32,64,128,256 --sparsity 40,60,70 \
  --pattern iid --reps 20 ${CSLT:+--cusparselt "$CSLT"} \
  --json "$OUT/spmm-h200-other.json" "$@" 2>&1 | tee "$OUT/spmm-h200-other.log"
python3 bench/spmm/summarize.py "$OUT/spmm-h200-50.json" "$OUT/spmm-h200-other.json" \
  --md "$OUT/spmm-h200.md" --json "$OUT/spmm-h200.json" --png "$OUT/spmm-h200.png"
