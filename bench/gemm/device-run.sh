#!/usr/bin/env bash
# Runs on the GPU machine (the `run` tool), from the repository root:
#   bench/gemm/device-run.sh smoke|full [extra gemm-bench args]
# Uses build-gemm/gemm-bench when it was carried and links, else builds.
# Logs and results go to $OUT (default ./out).
set -uo pipefail
MODE=${1:-smoke}
shift || true
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
BIN=build-gemm/gemm-bench
if [ ! -x "$BIN" ] || ldd "$BIN" | grep -q "not found"; then
  echo "building on the device machine"
  bench/gemm/build.sh "$PWD/build-gemm" > "$OUT/build.log" 2>&1 || {
    tail -30 "$OUT/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,pstate --format=csv > "$OUT/smi.txt" 2>&1
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass build-gemm/lib/Sm90Kernel0.cu.o > "$OUT/sass-config0.txt" 2>&1
  for f in build-gemm/lib/Sm90Kernel*.cu.o; do
    echo "$f: $(cuobjdump -sass "$f" | grep -c HGMMA) HGMMA, $(cuobjdump -sass "$f" | grep -c -E 'STL|LDL') LDL/STL"
  done > "$OUT/sass-summary.txt"
fi
case "$MODE" in
  smoke)
    timeout 150 "$BIN" --special --shapes bench/gemm/smoke.txt \
      --types f16 --layouts col,row --rounds 10 --out "$OUT/smoke.jsonl" "$@" 2>&1 | tee "$OUT/smoke.log"
    timeout 60 "$BIN" --shapes bench/gemm/smoke.txt --types bf16 --layouts col \
      --rounds 10 --out "$OUT/smoke.jsonl" "$@" 2>&1 | tee -a "$OUT/smoke.log"
    ;;
  exp)
    timeout 200 "$BIN" --special --shapes bench/gemm/smoke.txt \
      --types f16 --layouts col,row --rounds 10 --out "$OUT/exp.jsonl" "$@" 2>&1 | tee "$OUT/exp.log" | grep -v "^special.* ok$"
    ;;
  full)
    for i in 1 2 3; do  # resume after a crash (the bench skips done shapes)
      timeout "${BUDGET:-400}" "$BIN" --special --shapes bench/gemm/shapes.txt \
        --out "$OUT/gemm.jsonl" "$@" 2>&1 | tee -a "$OUT/full.log" | grep -E "special.*FAIL|x[0-9]" | tail -3
      [ "${PIPESTATUS[0]}" = 0 ] && break
    done
    ;;
esac
cat "$OUT/smi.txt" "$OUT/sass-summary.txt" 2>/dev/null
