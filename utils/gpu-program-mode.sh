#!/usr/bin/env bash
# One GPU-machine call for program mode: the GPU lit subset (or the tests
# matching $1), then the corpus in program mode for the programs named after
# it, with BENCH_CAP seconds for the corpus, then spec mode for the programs
# in $SPEC_PROGRAMS (SPEC_CAP seconds). Logs and results go to $OUT.
#   utils/gpu-program-mode.sh 'GPU/' relu saxpy ...
# CO_GEMM_LIB=1 builds the runtime GEMM library so gemm-specialize variants
# are measured (utils/gpu-setup.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu-program-mode}
mkdir -p "$OUT"
filter=${1:-GPU/}
shift || true
start=$(date +%s)
if [ "$filter" != none ]; then
  timeout "${TESTS_CAP:-300}" "$root/utils/gpu-tests.sh" "$filter" \
    > "$OUT/gpu-tests.log" 2>&1
  echo "gpu-tests exit $? after $(( $(date +%s) - start )) s"
  grep -E "^(PASS|FAIL|UNRESOLVED|XFAIL)|^ *(Passed|Failed|Unsupported|Unresolved)" \
    "$OUT/gpu-tests.log"
  # The failing tests' output, for the next fix.
  awk '/TEST .* FAILED \*+$/,/^\*+$/' \
    "$OUT/gpu-tests.log" | tail -c 6000
fi
if [ $# -gt 0 ]; then
  export OUT_BENCH=${OUT_BENCH:-/tmp/bench-out}
  # Unset: budget 12; set but empty (TUNE_ARGS=): tune's own default budget.
  export TUNE_ARGS=${TUNE_ARGS---budget=12}
  export JOBS=${JOBS:-4}
  timeout "${BENCH_CAP:-300}" "$root/utils/gpu-bench.sh" "$@" \
    > "$OUT/bench.log" 2>&1
  echo "gpu-bench exit $?"
  python3 "$root/bench/summarize.py" --out "$OUT_BENCH" \
    --results "$OUT/results" > "$OUT/summary.log" 2>&1
  (cd "$OUT_BENCH" && tar -czf "$OUT/reports.tgz" *.report.json *.report.md \
    *.opt.cu status.tsv last-run.json run.log logs 2>/dev/null)
  tail -45 "$OUT/bench.log"
  cat "$OUT/summary.log"
fi
if [ -n "${SPEC_PROGRAMS:-}" ]; then
  # shellcheck disable=SC2086
  MODE=spec OUT_BENCH=/tmp/bench-spec RESULTS="$OUT/results-spec" \
    RESULTS_NAME=h200-spec TUNE_ARGS=${SPEC_TUNE_ARGS:---budget=32} \
    timeout "${SPEC_CAP:-120}" "$root/utils/gpu-bench.sh" $SPEC_PROGRAMS \
    > "$OUT/bench-spec.log" 2>&1
  echo "spec-mode bench exit $?"
  (cd /tmp/bench-spec && tar -czf "$OUT/reports-spec.tgz" *.report.json \
    *.report.md status.tsv run.log logs 2>/dev/null)
  tail -12 "$OUT/bench-spec.log"
fi
echo "total $(( $(date +%s) - start )) s"
