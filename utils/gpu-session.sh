#!/usr/bin/env bash
# One GPU-machine session: the GPU lit subset, then as much of the corpus
# benchmark as fits. Caps (seconds): TESTS_CAP, BENCH_CAP. Everything worth
# keeping is copied to $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu-session}
mkdir -p "$OUT"
timeout "${TESTS_CAP:-240}" "$root/utils/gpu-tests.sh" > "$OUT/gpu-tests.log" 2>&1
echo "gpu-tests exit $?"
grep -E "^(PASS|FAIL|UNRESOLVED|XFAIL)|^ *(Passed|Failed|Unsupported|Unresolved)" "$OUT/gpu-tests.log"
export OUT_BENCH=/tmp/bench-out
export TUNE_ARGS=${TUNE_ARGS:---budget=24}
timeout "${BENCH_CAP:-300}" "$root/utils/gpu-bench.sh" "$@" > "$OUT/bench.log" 2>&1
echo "gpu-bench exit $?"
# Summarise whatever finished, even when the cap cut the run short.
python3 "$root/bench/summarize.py" --out "$OUT_BENCH" \
  --results "$OUT" > "$OUT/summary.log" 2>&1
(cd "$OUT_BENCH" && tar -czf "$OUT/reports.tgz" *.report.json *.report.md *.opt.cu 2>/dev/null)
tail -40 "$OUT/bench.log"
head -60 "$OUT/h200.md" 2>/dev/null
