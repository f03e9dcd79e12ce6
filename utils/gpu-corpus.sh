#!/usr/bin/env bash
# One run of the benchmark corpus (or of the programs named as arguments)
# on the GPU machine, for bench/results/h200.md:
#   - with several GPUs (the nvidia-h200-x8 kind) the programs are dealt out
#     to GPUs 0..N-2 (bench/run.sh GPUS=N-1, JOBS at a time on each, every
#     timing alone on its GPU) while the last GPU runs the GPU lit tests
#     matching TESTS (default none) and then PyTorch eager's times for the
#     same programs (bench/pytorch_eager.py): both columns from one run;
#   - with one GPU the programs, PyTorch eager and the tests run one after
#     the other on it;
#   - the summary (h200.md/json with the eager column), the logs and the
#     reports are copied to $OUT (eight files at most: what a device call
#     brings back).
# Environment: OUT, JOBS [3], TESTS (a lit filter regex), BENCH_CAP,
# EAGER_CAP and TESTS_CAP (seconds) [480, 420, 300], TUNE_ARGS, CO_GEMM_LIB
# [1: the GEMM programs need it]. Arguments: program names (default all).
# Needs what utils/gpu-setup.sh needs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu-corpus}
mkdir -p "$OUT"
export CO_GEMM_LIB=${CO_GEMM_LIB:-1}
source "$root/utils/gpu-setup.sh" || exit 1
gpus=$(nvidia-smi -L | grep -c '^GPU ')
last=$((gpus - 1))
lanes=$((gpus > 1 ? gpus - 1 : 1))
eager_args=()
[ $# -gt 0 ] && eager_args=(--programs "$(IFS=,; echo "$*")")

run_tests() {
  [ -n "${TESTS:-}" ] || return 0
  OUT=$OUT/tests timeout "${TESTS_CAP:-300}" "$root/utils/gpu-tests.sh" "$TESTS" \
    > "$OUT/gpu-tests.log" 2>&1
  echo "gpu-tests exit $?" >> "$OUT/gpu-tests.log"
}
run_eager() {
  timeout "${EAGER_CAP:-420}" python3 "$root/bench/pytorch_eager.py" \
    "${eager_args[@]}" --out "$OUT/pytorch-eager-h200.json" \
    > "$OUT/eager.log" 2>&1
  echo "pytorch_eager exit $?" >> "$OUT/eager.log"
}

side=
if [ "$gpus" -gt 1 ]; then
  echo "== $gpus GPUs: programs on 0..$((last - 1)), tests and PyTorch eager on $last"
  (export CUDA_VISIBLE_DEVICES=$last; run_tests; run_eager) &
  side=$!
else
  echo "== one GPU: programs, PyTorch eager, tests in turn"
fi

export OUT_BENCH=/tmp/bench-out RESULTS=/tmp/bench-out/results
# run.sh's programs run in background lanes: at the cap the whole process
# group goes, not just run.sh.
GPUS=$lanes JOBS=${JOBS:-3} OUT=$OUT_BENCH setsid "$root/bench/run.sh" "$@" \
  > "$OUT/bench.log" 2>&1 &
bench=$!
deadline=$((SECONDS + ${BENCH_CAP:-480}))
while kill -0 $bench 2>/dev/null; do
  if [ $SECONDS -ge $deadline ]; then
    echo "bench cap reached" >> "$OUT/bench.log"
    kill -TERM -- -$bench 2>/dev/null
    break
  fi
  sleep 5
done
wait $bench
echo "bench/run.sh exit $?"
if [ -n "$side" ]; then
  wait $side
else
  run_eager
  run_tests
fi
eager=()
[ -s "$OUT/pytorch-eager-h200.json" ] && eager=(--eager "$OUT/pytorch-eager-h200.json")
python3 "$root/bench/summarize.py" --out "$OUT_BENCH" --results "$OUT" \
  --corpus "$root/bench/corpus" --status "$OUT_BENCH/status.tsv" \
  "${eager[@]}" >> "$OUT/bench.log" 2>&1
(cd "$OUT_BENCH" && tar -czf "$OUT/reports.tgz" *.report.json *.report.md \
  *.opt.cu status.tsv run.log last-run.json logs 2>/dev/null)
grep -E "^(PASS|FAIL|UNRESOLVED)|Passed|Failed|exit" "$OUT/gpu-tests.log" 2>/dev/null
tail -3 "$OUT/eager.log"
tail -60 "$OUT/bench.log"
sed -n '/## Totals/,$p' "$OUT/h200.md" 2>/dev/null
