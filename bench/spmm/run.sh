#!/bin/bash
# One command on the GPU machine: build the SpMM benchmark (CMake, build.sh)
# and run it. Usage: bench/spmm/run.sh [OUTDIR] [extra spmm-bench options...]
# Default grid: the 31 SpInfer shapes x N in {8..256} at 50% i.i.d., then
# 40/60/70% i.i.d. at N in $OTHER_NS (default all six), then 50% magnitude
# pruning; raw JSON + logs in OUTDIR (default build-spmm/results), then
# summarize.py writes spmm-h200.{md,json,png} there (tables only;
# bench/results/spmm-h200.md adds the write-up). Each record is written as
# soon as it is measured, so a run cut short still summarizes.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build-spmm/results}
shift || true
mkdir -p "$OUT" build-spmm
BIN=build-spmm/bin/spmm-bench
# A binary built on the CPU machine (same CUDA 13.0) can be carried along;
# built here when there is none or it cannot resolve its libraries here.
source bench/spmm/build.sh
spmm_build spmm-bench || exit 1
# cuSPARSELt lives in PyTorch's Python environment.
CSLT=$(python3 - <<'PY' 2>/dev/null
import glob, os, sys
for p in sys.path:
    for f in glob.glob(os.path.join(p, "nvidia", "*", "lib", "libcusparseLt.so*")):
        print(f); sys.exit(0)
PY
)
echo "cuSPARSELt: ${CSLT:-not found}"
# Most important first, so that a run cut short keeps it: 50% i.i.d. at
# every N, then 40/60/70% i.i.d., then 50% magnitude pruning.
bench() {
  local Tag=$1
  shift
  "$BIN" --reps 20 ${CSLT:+--cusparselt "$CSLT"} --json "$OUT/spmm-h200-$Tag.json" \
    "$@" > "$OUT/spmm-h200-$Tag.log" 2>&1
  grep -E "^(FAIL|ok accumulation)" "$OUT/spmm-h200-$Tag.log"
}
bench 50 --shapes all --n 8,16,32,64,128,256 --sparsity 50 --pattern iid "$@"
bench other --shapes all --n ${OTHER_NS:-8,16,32,64,128,256} --sparsity 40,60,70 \
  --pattern iid "$@"
bench 50-magnitude --shapes all --n 8,16,32,64,128,256 --sparsity 50 \
  --pattern magnitude "$@"
python3 bench/spmm/summarize.py "$OUT"/spmm-h200-50.json "$OUT"/spmm-h200-other.json \
  "$OUT"/spmm-h200-50-magnitude.json \
  --md "$OUT/spmm-h200.md" --json "$OUT/spmm-h200.json" --png "$OUT/spmm-h200.png"
