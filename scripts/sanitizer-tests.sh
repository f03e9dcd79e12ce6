#!/usr/bin/env bash
# The ASan + UBSan half of CI (docs/fuzzing.md): builds cuda-opt with
# -DCUDA_OPT_BUILD_FUZZERS=ON (clang-22; every object instrumented with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer coverage) in
# SAN_BUILD_DIR (default build-fuzz), runs each fuzz target for
# FUZZ_SECONDS (default 20) from the seeds utils/fuzz-seeds.sh makes, then
# the CPU lit suite with the instrumented tools. Sanitizer reports go to
# files (log_path), so a report counts even in a test that expects cuda-opt
# to fail; any report, fuzzer finding or failed test fails the run.
# Ends with `sanitizer lit: N passed, N failed`.
# Usage: scripts/sanitizer-tests.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SAN_BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-20}
status=0

echo "== building the ASan+UBSan cuda-opt and the fuzz targets in $build"
CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DCUDA_OPT_BUILD_FUZZERS=ON >/dev/null || exit 1
# What the CPU lit suite runs, and the fuzzers; not the nvcc-built GPU
# libraries (runtime/gemm, runtime/sparse kernels), which the sanitizers do
# not instrument and the normal build already compiled.
ninja -C "$build" cuda-opt cuda-opt-mlir cuda-opt-measure \
  cuda-opt-measure-selftest tls-roundtrip tls-bit-decode-test \
  cuda-opt-fuzzers || exit 1

reports=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$reports" "$work"' EXIT
# Leaks of LLVM's and clang's own globals only (the file says which and why).
supp=$root/utils/sanitizers/lsan.supp
export ASAN_OPTIONS="log_path=$reports/asan:abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0"

echo "== fuzz smoke: each target for ${seconds}s"
"$root/utils/fuzz-seeds.sh" "$build" "$work/all-seeds" >/dev/null || status=1
for fuzzer in "$build"/bin/cuda-opt-*-fuzzer; do
  name=$(basename "$fuzzer" -fuzzer)
  name=${name#cuda-opt-}
  # libFuzzer runs every seed before it looks at the clock, and a source
  # seed costs parses (a multi-kernel test file through a transform takes
  # ~30 s of CPU with ASan, a timeout on a loaded machine): a smoke run
  # starts from the 12 smallest.
  mkdir -p "$work/corpus/$name" "$work/seeds/$name"
  ls -S "$work/all-seeds/$name" | tail -12 |
    while read -r f; do cp "$work/all-seeds/$name/$f" "$work/seeds/$name/"; done
  if (cd "$work" && "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=4096 \
        -timeout=30 -print_final_stats=1 "$work/corpus/$name" \
        "$work/seeds/$name" >"$work/$name.log" 2>&1); then
    echo "fuzz $name: $(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$name.log" | grep -oE '[0-9]+$') runs, no finding"
  else
    echo "fuzz $name: FAILED"; tail -40 "$work/$name.log"; status=1
  fi
done

echo "== lit with the instrumented tools"
log=$work/lit.log
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
passed=$(grep -oE '^ *Passed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '^ *Failed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
# A report that only says LeakSanitizer could not run (its tracer needs
# ptrace, which some sandboxes block) is no finding: it is listed and
# counted apart, never as a pass of the leak check.
skipped=0
if ls "$reports"/* >/dev/null 2>&1; then
  for r in "$reports"/*; do
    if ! grep -qvE 'WARNING: ptrace appears to be blocked|Child exited with signal|^\s*$' "$r"; then
      echo "leak check could not run (ptrace blocked) in: $(basename "$r")"
      rm -f "$r"
      skipped=$((skipped + 1))
    fi
  done
fi
[ "$skipped" = 0 ] || echo "== $skipped processes ran without LeakSanitizer (ptrace blocked here)"
if ls "$reports"/* >/dev/null 2>&1; then
  echo "== sanitizer reports:"
  for r in "$reports"/*; do echo "--- $r"; cat "$r"; done
  status=1
  failed=$((failed + $(ls "$reports" | wc -l)))
fi
echo "sanitizer lit: ${passed:-0} passed, ${failed:-0} failed"
exit "$status"
