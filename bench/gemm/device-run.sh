#!/usr/bin/env bash
# Runs on the GPU machine (the `run` tool), from the repository root:
#   bench/gemm/device-run.sh smoke|exp|wide|small|decode|clusters|pdl|pingpong|power|sgemm|fix|full [args]
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
if [ -z "${SKIP_SASS:-}" ] && command -v cuobjdump > /dev/null; then
  [ "$MODE" = full ] || cuobjdump -sass build-gemm/lib/Sm90Kernel0.cu.o > "$OUT/sass-config0.txt" 2>&1
  for f in build-gemm/lib/Sm90Kernel*.cu.o; do
    echo "$f: $(cuobjdump -sass "$f" | grep -c HGMMA) HGMMA, $(cuobjdump -sass "$f" | grep -c -E 'STL|LDL') LDL/STL"
  done > "$OUT/sass-summary.txt"
fi
# special_checks SECONDS SHAPES JSONL: gemm-bench's correctness tests
# (--special: every configuration and plan option) into $OUT/special.log,
# a one-line count and the failures; returns the bench's exit status.
special_checks() {
  timeout "$1" "$BIN" --special --shapes "$2" --tags none --out "$3" \
    > "$OUT/special.log" 2>&1
  local rc=$?
  echo "special rc=$rc $(grep -c ' ok$' "$OUT/special.log") ok, $(grep -c FAIL "$OUT/special.log") FAIL"
  grep -E "FAIL|special tests" "$OUT/special.log" | head -20
  return $rc
}
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
  wide)  # exp-wide.txt: the 192-wide configurations 9 and 10 (not offered by
    # the cost model yet) checked (--special covers every configuration)
    # and timed as extra candidates beside the model's plans, PDL off.
    X=bench/gemm/exp-wide.txt
    special_checks 60 "$X" "$OUT/special.jsonl"
    timeout 240 "$BIN" --shapes "$X" --types f16 --layouts col,row --tune-rounds 6 \
      --extra 9/8/0/1,9/8/1/1,9/16/0/1,9/8/0/1/m2,9/8/0/1/n2,10/8/0/1,10/16/0/1 \
      --out "$OUT/wide.jsonl" "$@" 2>&1 | tee "$OUT/wide.log"
    python3 bench/gemm/candidates.py "$OUT/wide.jsonl" | tee "$OUT/candidates.txt"
    ;;
  decode)  # exp-decode.txt + the LLM shapes with M <= 64 and exp-small.txt
    # with PDL off and no extra plans: what the shipped cost model (the
    # swapped tiles offered for B col, M <= 16) and tuned table give, each
    # shape's best against cuBLAS in the same run; then swap_gain.py.
    special_checks 60 bench/gemm/exp-decode.txt "$OUT/special.jsonl"
    awk '$4=="llm" && $1<=64' bench/gemm/shapes.txt > "$OUT/decode-shapes.txt"
    timeout 150 "$BIN" --shapes "$OUT/decode-shapes.txt" --types f16,bf16 \
      --layouts col,row --tune-rounds 8 --pdl off --out "$OUT/decode.jsonl" "$@" \
      > "$OUT/decode.log" 2>&1
    timeout 100 "$BIN" --shapes bench/gemm/exp-small.txt --types f16 \
      --layouts col,row --tune-rounds 6 --pdl off --out "$OUT/small.jsonl" "$@" \
      > "$OUT/small.log" 2>&1
    python3 bench/gemm/swap_gain.py "$OUT/decode.jsonl" "$OUT/small.jsonl" | tail -2
    ;;
  small)  # exp-small.txt: small problems with PDL off (the headline method),
    # the register-direct mma.sync kernels (7: 16 rows, 8: 64 rows; not
    # offered by the cost model beyond M <= 16) as extra candidates beside
    # the model's plans: issue 16 item 3's question, which layout wins small
    # problems once PDL no longer hides the TMA kernels' prologue. Also the
    # swapped narrow tiles (11: 128x16, 12: 64x16, 13: 128x32; C^T = B^T A^T)
    # with workspace and cluster K splits.
    X=bench/gemm/exp-small.txt
    special_checks 90 "$X" "$OUT/special.jsonl"
    timeout 300 "$BIN" --shapes "$X" --types f16 --layouts col,row \
      --tune-rounds 6 --pdl off \
      --extra 8/1/0/1,8/1/0/2,8/1/0/4,7/1/0/1,7/1/0/4,11/1/0/1,11/1/0/2,11/1/0/4,11/1/0/4/c,11/1/0/8/c,12/1/0/1,12/1/0/2,12/1/0/2/c,13/1/0/1,13/1/0/4/c \
      --out "$OUT/small.jsonl" "$@" 2>&1 | tee "$OUT/small.log"
    python3 bench/gemm/candidates.py "$OUT/small.jsonl" | tee "$OUT/candidates.txt"
    ;;
  clusters)  # exp-clusters.txt: correctness of every variant, then A/B
    # timings (8 tuning rounds) of the new plan options on few-tile and
    # large shapes; each part in its own process with its own deadline.
    # The run tool returns at most 8 files: results go to a scratch folder
    # and only the logs and result lines are copied to $OUT.
    X=bench/gemm/exp-clusters.txt
    W=$(mktemp -d)
    special_checks 40 "$X" "$W/special.jsonl"
    timeout 60 "$BIN" --shapes "$X" --tags few --types f16 --layouts col \
      --tune-rounds 8 --out "$W/few.jsonl" "$@" > "$OUT/few.log" 2>&1
    echo "few rc=$?"
    timeout 90 "$BIN" --shapes "$X" --tags big --types f16,bf16 \
      --layouts col --tune-rounds 6 --out "$W/big.jsonl" "$@" > "$OUT/big.log" 2>&1
    echo "big rc=$?"
    timeout 40 "$BIN" --shapes "$X" --tags big --types f16 --layouts row \
      --tune-rounds 6 --out "$W/big.jsonl" "$@" >> "$OUT/big.log" 2>&1
    echo "big row rc=$?"
    cp "$W/few.jsonl" "$W/big.jsonl" "$OUT/" 2>/dev/null
    python3 bench/gemm/candidates.py "$W/few.jsonl" "$W/big.jsonl" | tee "$OUT/candidates.txt"
    ;;
  pdl)  # exp.txt shapes, fp16 / B col, without then with programmatic
    # dependent launch (CUDAOPT_GEMM_PDL), special tests with it on
    W=$(mktemp -d)
    timeout 60 env CUDAOPT_GEMM_PDL=0 "$BIN" --shapes bench/gemm/exp.txt \
      --types f16 --layouts col --out "$W/nopdl.jsonl" "$@" > "$OUT/nopdl.log" 2>&1
    echo "no pdl rc=$?"
    timeout 90 "$BIN" --special --shapes bench/gemm/exp.txt --types f16 \
      --layouts col --out "$W/pdl.jsonl" "$@" > "$OUT/pdl.log" 2>&1
    echo "pdl rc=$?"
    grep -E "FAIL|special tests|back-to-back" "$OUT/pdl.log"
    cp "$W/nopdl.jsonl" "$W/pdl.jsonl" "$OUT/"
    python3 bench/gemm/ab.py "$W/nopdl.jsonl" "$W/pdl.jsonl" | tee "$OUT/ab.txt"
    ;;
  pingpong)  # exp-pingpong.txt: correctness of every plan option (the
    # ping-pong ones included), then the A/B of the ping-pong schedule on
    # large shapes, fp16/bf16 x B col/row: --pingpong adds its plans to the
    # candidates and times the best ping-pong and the best other plan again
    # in the 20 interleaved rounds (pingpong.py prints the comparison).
    X=bench/gemm/exp-pingpong.txt
    W=$(mktemp -d)
    special_checks 90 "$X" "$W/special.jsonl"
    rc=$?
    # A ping-pong plan that fails or hangs there is not timed.
    if [ "$rc" != 0 ] || grep FAIL "$OUT/special.log" | grep -q "/p "; then
      echo "ping-pong special tests did not pass: A/B skipped"
      tail -3 "$OUT/special.log"
      exit 1
    fi
    timeout 200 "$BIN" --pingpong --no-clusters --shapes "$X" \
      --types f16,bf16 --layouts col,row --tune-rounds 6 \
      --out "$W/pingpong.jsonl" "$@" > "$OUT/pingpong.log" 2>&1
    echo "pingpong rc=$?"
    # At most 8 files come back: the per-candidate medians go into the
    # same text file as the comparison.
    cp "$W/pingpong.jsonl" "$OUT/"
    python3 bench/gemm/pingpong.py "$W/pingpong.jsonl" | tee "$OUT/pingpong.txt"
    python3 bench/gemm/candidates.py "$W/pingpong.jsonl" >> "$OUT/pingpong.txt"
    ;;
  power)  # exp-power.txt, fp16 / B col: N(0,1) inputs, then random {0,1},
    # with nvidia-smi sampling the SM clock and board power (a loop of
    # single queries: a killed `nvidia-smi -lms` loses its buffered lines).
    for KIND in normal binary; do
      (while :; do
         nvidia-smi --query-gpu=timestamp,utilization.gpu,clocks.sm,power.draw \
           --format=csv,noheader; sleep 0.05
       done) > "$OUT/smi-$KIND.csv" 2>&1 &
      SMI=$!
      timeout 120 "$BIN" --shapes "${POWER_SHAPES:-bench/gemm/exp-power.txt}" --types f16 --rounds "${POWER_ROUNDS:-20}" \
        --layouts col --inputs "$KIND" --out "$OUT/power-$KIND.jsonl" "$@" \
        > "$OUT/power-$KIND.log" 2>&1
      echo "power $KIND rc=$?"
      kill "$SMI"; wait "$SMI" 2> /dev/null
    done
    python3 bench/gemm/power.py "$OUT" | tee "$OUT/power.txt"
    ;;
  sgemm)  # the exact fp32 kernel's variants: bit-exactness, then timing
    # against cublasSgemm (bench/gemm/SgemmBench.cu).
    timeout 120 build-gemm/sgemm-bench "$@" 2>&1 | tee "$OUT/sgemm.txt"
    ;;
  fix)  # re-measure a subset after a fix: fp16, B col, grid + llm shapes
    timeout "${F16_LIMIT:-20}" "$BIN" --special --shapes bench/gemm/shapes.txt \
      --types f16 --layouts col --tags grid,llm --tune-rounds 2 \
      --out "$OUT/gemm-fix.jsonl" "$@" >> "$OUT/full.log" 2>&1
    grep -E "special tests|FAIL" "$OUT/full.log"; wc -l "$OUT/gemm-fix.jsonl"
    ;;
  full)
    # One process per element type; a crashed process (exit 3: a CUDA error
    # poisoned the context) is restarted and resumes after the bad shape.
    part() {
      local out=$1 limit=$2; shift 2
      for i in 1 2 3; do
        timeout "$limit" "$BIN" --shapes bench/gemm/shapes.txt --out "$OUT/$out" "$@" \
          >> "$OUT/full.log" 2>&1
        local rc=$?
        [ "$rc" = 3 ] || [ "$rc" -ge 128 ] || break
        echo "restart after rc=$rc" >> "$OUT/full.log"
      done
    }
    part gemm-f16.jsonl "${F16_LIMIT:-220}" --special --types f16 --layouts col,row "$@"
    part gemm-bf16.jsonl "${BF16_LIMIT:-160}" --types bf16 --layouts col,row "$@"
    grep -E "special tests|FAIL|restart" "$OUT/full.log"
    wc -l "$OUT"/gemm-*.jsonl
    ;;
esac
cat "$OUT/smi.txt" "$OUT/sass-summary.txt" 2>/dev/null
