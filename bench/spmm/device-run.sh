#!/bin/bash
# The script the SpMM work sends to the lent GPU (one call = smoke test,
# variant sweep, grid). Writes logs and JSON under $OUT; prints a short
# summary last. Usage: bench/spmm/device-run.sh
# [check|abi|smoke|quick|quickdirty|ab|variants|ablate|ncu|grid50|other]...
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/spmm-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader
BIN=build-spmm/bin/spmm-bench
source bench/spmm/build.sh
spmm_build spmm-bench || exit 1
CSLT=$(python3 - <<'PY' 2>/dev/null
import glob, os, sys
for p in sys.path:
    for f in glob.glob(os.path.join(p, "nvidia", "*", "lib", "libcusparseLt.so*")):
        print(f); sys.exit(0)
PY
)
echo "cuSPARSELt: ${CSLT:-not found}"
C=${CSLT:+--cusparselt $CSLT}
[ -n "${NO_CSLT:-}" ] && C=""
for PHASE in "${@:-smoke}"; do
  case $PHASE in
  check)
    CHK=build-spmm/bin/tls-spmm-check
    spmm_build tls-spmm-check || exit 1
    timeout ${CHECK_TIMEOUT:-60} $CHK > "$OUT/check.log" 2>&1; echo "check rc=$?"
    grep -E "FAIL|PASS" "$OUT/check.log" | head -20 ;;
  abi)
    # The host function the MLIR lowering calls (TlsMlirAbi.cu), end to end.
    ABI=build-spmm/bin/tls-mlir-abi-check
    spmm_build tls-mlir-abi-check || exit 1
    timeout 60 $ABI > "$OUT/abi.log" 2>&1; echo "abi rc=$?"; cat "$OUT/abi.log" ;;
  smoke)
    timeout 90 $BIN --shapes 1,7 --n 8,16,32,64,128,256 --reps 5 $C 2>&1 | tee "$OUT/smoke.log"
    if ! grep -q "^ok " "$OUT/smoke.log" || grep -q "FAIL" "$OUT/smoke.log"; then
      echo "SMOKE FAILED"; exit 1
    fi ;;
  quick)
    timeout 60 $BIN --shapes ${QUICK_SHAPES:-1,7,8,15} --n ${QUICK_NS:-8,32,128} --reps 10 ${QUICK_FLAGS:-} $C --json "$OUT/quick${QUICK_TAG:-}.json" 2>&1 | tee "$OUT/quick${QUICK_TAG:-}.log" | grep -v "^#" | cut -c1-40,56-75,88-110,136-160,210-300 ;;
  quickdirty)
    # The same with the memset-only L2 flush of the earlier runs.
    QUICK_FLAGS="--dirty-flush --no-tune" QUICK_TAG=-dirty bash "$0" quick | grep -v "^NVIDIA\|^cuSPARSELt\|^|" ;;
  ab)
    # A/B of kernel variants: each plan of AB_SPECS ("PLAN@N,N,..", PLAN as
    # for spmm-bench --alt) timed interleaved with the default plan (the
    # "tuned" slot of the records) on AB_SHAPES; per case the default and
    # the alternative, then the geomeans (the "tuned" column is the alt).
    for SPEC in ${AB_SPECS:-pipe=2@8,16,32,64,128 pipe=2,warps=16@8,32 maxnt=128@128,256 pipe=2,maxnt=128@128,256}; do
      PLAN=${SPEC%@*}; NS=${AB_NS:-8,32,128}
      [ "$PLAN" != "$SPEC" ] && NS=${SPEC#*@}
      TAG=$(echo "$PLAN" | tr ',=' '_-')
      timeout ${AB_TIMEOUT:-90} $BIN --shapes ${AB_SHAPES:-1,7,8,15} --n $NS --reps ${AB_REPS:-10} --no-tune --alt "$PLAN" $C --json "$OUT/ab-$TAG.json" > "$OUT/ab-$TAG.log" 2>&1
      echo "== alt $PLAN (rc=$?)"
      grep -E "^(ok|FAIL) |^# --alt" "$OUT/ab-$TAG.log" | sed -E 's/^(\S+) +([0-9]+ +[0-9]+ +[0-9]+) .* tls +([0-9.]+) us.* cublas +([0-9.]+) us.* plan (nt[0-9]+ w[0-9]+ s[0-9]+) k[0-9]+ +tuned +([0-9.]+ us) x([0-9.]+) \((.*)\)/\1 M K N \2: default \3 us (\5) alt \6 (\8) alt speedup x\7, cublas \4 us/'
      python3 bench/spmm/summarize.py "$OUT/ab-$TAG.json" 2>/dev/null | grep -E "^\| (iid|magnitude)" | cut -d'|' -f2-9
    done ;;
  variants)
    timeout ${VAR_TIMEOUT:-60} $BIN --shapes ${VAR_SHAPES:-1,15,29} --n ${VAR_NS:-8,32,128} --reps 10 --variants $C > "$OUT/variants.log" 2>&1
    # Per case: the default's speedup, then the best variant.
    awk '/^(ok|FAIL) /{if(b)print b; split($0,f," "); c=f[2]"x"f[3]" N="f[4]; match($0,/x[0-9.]+ vs cublas/); d=substr($0,RSTART,RLENGTH); b=""; bv=0}
         /^  variant/{match($0,/x[0-9.]+ vs cublas/); v=substr($0,RSTART+1,RLENGTH-11)+0; if(v>bv){bv=v; b=c" default "d" best "$0}}
         END{if(b)print b}' "$OUT/variants.log" | sed 's/  */ /g' ;;
  ablate)
    # Time the default plan with parts of the kernel switched off
    # (TLS_SPMM_ABLATE bits: 1 gather, 2 decode, 4 mma, 8 W copies, 16 fixup).
    for A in ${ABL_SET:-0 1 3 7 15 8 16 31}; do
      TLS_SPMM_ABLATE=$A timeout 30 $BIN --shapes ${ABL_SHAPES:-8} --n ${ABL_NS:-8,32} --reps 10 --no-tune > "$OUT/ablate.tmp" 2>&1
      cat "$OUT/ablate.tmp" >> "$OUT/ablate.log"
      grep -E "^(ok|FAIL) " "$OUT/ablate.tmp" | sed -E "s/^(\S+) +([0-9]+) +([0-9]+) +([0-9]+) .*tls +([0-9.]+) us.*cublas +([0-9.]+) us.*/ablate $A: \1 \2x\3 N=\4 tls \5 us cublas \6 us/"
    done
    rm -f "$OUT/ablate.tmp" ;;
  ncu)
    timeout 90 ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
      --section Occupancy --section LaunchStats --section SchedulerStats \
      -k regex:${NCU_KERNEL:-tlsSpmm} --launch-skip ${NCU_SKIP:-1} --launch-count 1 \
      --section InstructionStats --section MemoryWorkloadAnalysis \
      --metrics smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio \
      $BIN --shapes ${NCU_SHAPE:-1} --n ${NCU_N:-8} --reps 3 ${NCU_FLAGS:-} > "$OUT/ncu${NCU_TAG:-}.log" 2>&1
    grep -E "Grid Size|Block Size|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Issued Ipc|Eligible Warps|Active Warps|No Eligible|inst_executed|stalled|Dynamic Shared|Executed Instructions  " "$OUT/ncu${NCU_TAG:-}.log" | head -60 ;;
  ncuring)
    # The same for the ring kernel (pipeline 2, planner's choice at N = 8).
    NCU_KERNEL=tlsSpmmRing NCU_SKIP=0 NCU_TAG=-ring NCU_FLAGS="--no-tune --alt pipe=2" bash "$0" ncu | grep -v "^NVIDIA\|^cuSPARSELt\|^|" ;;
  grid50)
    timeout ${GRID_TIMEOUT:-180} $BIN --shapes ${GRID_SHAPES:-all} --n ${GRID_NS:-8,16,32,64,128,256} --sparsity 50 \
      --pattern ${GRID_PATTERNS:-iid,magnitude} --reps ${GRID_REPS:-20} ${GRID_FLAGS:-} $C --json "$OUT/spmm-50.json" > "$OUT/grid50.log" 2>&1
    tail -3 "$OUT/grid50.log" ;;
  other)
    timeout ${OTHER_TIMEOUT:-200} $BIN --shapes ${OTHER_SHAPES:-all} --n ${OTHER_NS:-8,16,32,64,128,256} \
      --sparsity ${OTHER_SPARSITIES:-40,60,70} --pattern ${OTHER_PATTERNS:-iid} --reps 20 \
      ${OTHER_FLAGS:---no-tune} $C --json "$OUT/spmm-other${OTHER_TAG:-}.json" > "$OUT/other${OTHER_TAG:-}.log" 2>&1
    tail -3 "$OUT/other.log" ;;
  esac
done
grep -h "^FAIL\|accumulation" "$OUT"/*.log | head -20
J=$(ls "$OUT"/*.json 2>/dev/null | grep -v -- -dirty | grep -v "/ab-")
[ -n "$J" ] && python3 bench/spmm/summarize.py $J
[ -f "$OUT/quick-dirty.json" ] && echo "memset-only flush:" && python3 bench/spmm/summarize.py "$OUT/quick-dirty.json"
