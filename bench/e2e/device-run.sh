#!/bin/bash
# Runs on the GPU machine (the `run` tool) from the repository root: builds
# llama-decode (bench/e2e/CMakeLists.txt in build-e2e), a 2-layer smoke run,
# then the models named in MODELS (default: llama2-7b llama2-13b), each over
# BATCHES x CONTEXTS. JSON and logs under $OUT; the markdown table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/e2e-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader
# Always through ninja: a warm machine keeps build-e2e from the last call,
# and only ninja notices that the sources changed since.
if ! [ -f build-e2e/build.ninja ]; then
  cmake -S bench/e2e -B build-e2e -G Ninja -DCMAKE_BUILD_TYPE=Release \
    > "$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
fi
ninja -C build-e2e llama-decode > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
BIN=build-e2e/bin/llama-decode
if [ -z "${NO_SMOKE:-}" ]; then
  timeout 120 $BIN --layers 2 --batches 1,8 --contexts 128 --reps 5 \
    > "$OUT/smoke.md" 2> "$OUT/smoke.err"
  rc=$?; cat "$OUT/smoke.md"; tail -3 "$OUT/smoke.err"
  [ $rc -eq 0 ] || { echo "smoke rc=$rc"; exit 1; }
fi
for M in ${MODELS:-llama2-7b llama2-13b}; do
  timeout ${MODEL_TIMEOUT:-280} $BIN --model "$M" \
    --batches "${BATCHES:-1,8,16,32}" --contexts "${CONTEXTS:-128,512,2048}" \
    --reps "${REPS:-20}" --json "$OUT/$M.json" > "$OUT/$M.md" 2> "$OUT/$M.err"
  echo "$M rc=$?"; cat "$OUT/$M.md"; tail -2 "$OUT/$M.err"
done
