#!/usr/bin/env bash
# Run the lit suite of a configured build directory and end with the summary
# line `lit: N passed, N failed` (GPU-only tests are skipped without a GPU).
set -uo pipefail
build=${1:?usage: run-tests.sh BUILD_DIR}
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -oE '^ *Passed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '^ *Failed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
unsupported=$(grep -oE '^ *Unsupported *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
rm -f "$log"
echo "(${unsupported:-0} tests unsupported here, e.g. GPU-only: REQUIRES: cuda-device)"
echo "lit: ${passed:-0} passed, ${failed:-0} failed"
exit "$status"
