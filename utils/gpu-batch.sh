#!/usr/bin/env bash
# One GPU-machine call that runs several of the project's GPU jobs in turn,
# each under its own time cap, and brings everything back as one tarball
# ($OUT/batch.tgz; the run tool returns at most 8 files). Usage, from the
# repository root on the GPU machine:
#   utils/gpu-batch.sh STEP...
# STEP is one of
#   spmm           bench/spmm/device-run.sh check ab ($SPMM_SPECS, cap $SPMM_CAP)
#   sgemm-lt       bench/explore/sgemm-lt-algos.cu: cublasSgemm against every
#                  cuBLASLt fp32 heuristic candidate (cap $SGEMM_CAP)
#   gemm-wide      bench/gemm/device-run.sh wide (cap $GEMM_CAP)
#   gemm-full      bench/gemm/device-run.sh full --pdl off (cap $GEMM_CAP)
#   gemm-small     bench/gemm/device-run.sh small (PDL off; cap $GEMM_CAP)
#   gemm-decode    bench/gemm/device-run.sh decode (the shipped model and
#                  table on decode and small shapes, PDL off; cap $GEMM_CAP)
#   tests:FILTER   utils/gpu-tests.sh FILTER (needs .carry, cap $TESTS_CAP)
#   explore:NAME[:LIB,...]  bench/explore/NAME.cu built with -lLIB... and run
#                  (cap $EXPLORE_CAP)
# Prints a short summary per step; the logs are in the tarball.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-/tmp/gpu-batch}
mkdir -p "$OUT"
work=$(mktemp -d)
start=$(date +%s)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
for step in "$@"; do
  t0=$(date +%s)
  echo "== $step (at $((t0 - start)) s)"
  case $step in
  spmm)
    mkdir -p "$work/spmm"
    OUT=$work/spmm NO_CSLT=${NO_CSLT-1} CHECK_TIMEOUT=${CHECK_TIMEOUT:-150} \
      AB_SPECS=${SPMM_SPECS:-decode=3,stages=2@8,16,32 decode=3,warps=12,stages=2@8,16,32 decode=3@32 decode=4@8,16} \
      timeout "${SPMM_CAP:-330}" bash bench/spmm/device-run.sh check ab \
      > "$work/spmm/run.log" 2>&1
    echo "rc=$?"
    tail -40 "$work/spmm/run.log" ;;
  sgemm-lt)
    "$nvcc" -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
      bench/explore/sgemm-lt-algos.cu -o "$work/sgemm-lt-algos" \
      -lcublasLt -lcublas || continue
    timeout "${SGEMM_CAP:-120}" "$work/sgemm-lt-algos" \
      > "$work/sgemm-lt.txt" 2>&1
    echo "rc=$?"
    cut -c1-90 "$work/sgemm-lt.txt" ;;
  gemm-wide|gemm-full|gemm-small|gemm-decode)
    mkdir -p "$work/$step"
    mode=${step#gemm-}
    extra=()
    [ "$mode" = full ] && extra=(--pdl off)
    OUT=$work/$step timeout "${GEMM_CAP:-420}" bench/gemm/device-run.sh \
      "$mode" "${extra[@]}" > "$work/$step/run.log" 2>&1
    echo "rc=$?"
    tail -30 "$work/$step/run.log" ;;
  explore:*)
    # explore:NAME[:LIB,LIB...]: build bench/explore/NAME.cu (sm_90a) with
    # -lLIB for each LIB and run it.
    spec=${step#explore:}
    name=${spec%%:*}
    libs=()
    [ "$name" != "$spec" ] && IFS=, read -r -a libs <<< "${spec#*:}"
    flags=()
    for l in "${libs[@]}"; do flags+=("-l$l"); done
    "$nvcc" -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
      "bench/explore/$name.cu" -o "$work/$name" "${flags[@]}" || continue
    timeout "${EXPLORE_CAP:-120}" "$work/$name" > "$work/$name.txt" 2>&1
    echo "rc=$?"
    cut -c1-120 "$work/$name.txt" | tail -30 ;;
  tests:*)
    mkdir -p "$work/tests"
    OUT=$work/tests timeout "${TESTS_CAP:-300}" utils/gpu-tests.sh \
      "${step#tests:}" > "$work/tests/run.log" 2>&1
    echo "rc=$?"
    grep -E "^(PASS|FAIL|UNRESOLVED)|^ *(Passed|Failed|Unsupported|Unresolved)" \
      "$work/tests/run.log"
    awk '/TEST .* FAILED \*+$/,/^\*+$/' "$work/tests/run.log" | tail -c 4000 ;;
  *)
    echo "unknown step '$step' (spmm, sgemm-lt, gemm-wide, gemm-full, gemm-small, gemm-decode, tests:FILTER, explore:NAME)" ;;
  esac
  echo "-- $step took $(($(date +%s) - t0)) s"
  tar -czf "$OUT/batch.tgz" -C "$work" . 2>/dev/null
done
echo "total $(($(date +%s) - start)) s"
