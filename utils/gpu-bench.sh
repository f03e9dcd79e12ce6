#!/usr/bin/env bash
# Tune the benchmark corpus on the GPU machine with the carried static
# cuda-opt (see utils/gpu-setup.sh) and write $RESULTS/$RESULTS_NAME.{md,json}
# (default $OUT_BENCH/results/h200.*; copied to $OUT too when set).
# Arguments: program names (default: all).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# A caller that already ran the set-up (gpu-corpus.sh) exports CO_BIN.
[ -n "${CO_BIN:-}" ] || source "$root/utils/gpu-setup.sh" || exit 1
export OUT_BENCH=${OUT_BENCH:-/tmp/bench-out}
export RESULTS=${RESULTS:-$OUT_BENCH/results}
OUT=$OUT_BENCH "$root/bench/run.sh" "$@"
status=$?
if [ -n "${OUT:-}" ]; then
  cp "$RESULTS/${RESULTS_NAME:-h200}".* "$OUT"/ 2>/dev/null
  tar -C "$OUT_BENCH" -czf "$OUT/bench-logs.tgz" logs status.tsv run.log 2>/dev/null
fi
exit $status
