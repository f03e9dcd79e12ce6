#!/usr/bin/env bash
# bench/run.sh [NAME...] - run the benchmark corpus on a GPU machine.
#
# For every program in bench/corpus (or only the NAMEs given):
#   1. build it with nvcc and run it; it must print "NAME: ok";
#   2. cuda-opt tune NAME.cu: program mode (its main() is run instrumented,
#      each kernel's launch captured and replayed), or with MODE=spec
#      --spec=NAME.tune.json;
#   3. build and run the optimised program; it must still print "NAME: ok".
# JOBS programs are processed at once so compiles overlap; everything that
# runs on the GPU (programs, captures, measurement) takes one lock, so
# timings never overlap. With GPUS=N > 1 the programs are dealt out in turn
# to N GPUs of the machine (CUDA_VISIBLE_DEVICES=0..N-1, one lock per GPU),
# JOBS at a time on each: one run of the whole corpus in 1/N of the time,
# each timing still alone on its GPU.
# Then bench/summarize.py writes RESULTS/RESULTS_NAME.{md,json}; copy them to
# bench/results/ only to replace the committed summary.
#
# Environment (defaults in brackets):
#   CUDA_OPT          the cuda-opt binary                   [cuda-opt on PATH]
#   CUDA_OPT_MEASURE  the measurement worker          [cuda-opt-measure on PATH]
#   NVCC              nvcc                [nvcc on PATH, else /usr/local/cuda/bin/nvcc]
#   NVCC_FLAGS        flags for the programs     [-O3 -std=c++17 -arch=sm_90]
#   OUT               logs, binaries, optimised sources, reports
#                                                        [build/bench-out]
#   RESULTS           where summarize.py writes         [build/bench-results]
#   RESULTS_NAME      file stem of the results                          [h200]
#   TUNE_ARGS         extra arguments for cuda-opt tune (e.g. --budget=20)  []
#   PROGRAM_TIMEOUT   seconds allowed for one program run                [600]
#   TUNE_TIMEOUT      seconds allowed for one tune                      [3600]
#   FORCE_TUNE=1      tune even when the original program did not print ok
#   MODE              program | spec                               [program]
#   JOBS              programs processed concurrently (per GPU)            [4]
#   GPUS              GPUs to deal the programs out to                     [1]
#   CUDNN_ROOT        cuDNN for conv-cudnn rewrites  [the toolkit's]
#   CO_GEMM_INCLUDE,  the runtime GEMM library's include directory and static
#   CO_GEMM_ARCHIVE   archive (utils/gpu-setup.sh sets them with
#                     CO_GEMM_LIB=1): cuda-opt then sees cudaopt/gemm.h when
#                     it checks a gemm-specialize rewrite, and an optimised
#                     program that calls cudaoptGemm is linked with it.
#
# One program failing never stops the others. Runs of different subsets into
# the same OUT add up: status.tsv keeps other programs' rows, and the summary
# covers every report under OUT. Exit status: 0 when every
# program passed every step, 1 otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
OUT=${OUT:-$here/../build/bench-out}
RESULTS=${RESULTS:-$here/../build/bench-results}
RESULTS_NAME=${RESULTS_NAME:-h200}
CUDA_OPT=${CUDA_OPT:-cuda-opt}
CUDA_OPT_MEASURE=${CUDA_OPT_MEASURE:-cuda-opt-measure}
if [ -z "${NVCC:-}" ]; then
  if command -v nvcc >/dev/null 2>&1; then NVCC=nvcc
  else NVCC=/usr/local/cuda/bin/nvcc; fi
fi
NVCC_FLAGS=${NVCC_FLAGS:--O3 -std=c++17 -arch=sm_90}
TUNE_ARGS=${TUNE_ARGS:-}
PROGRAM_TIMEOUT=${PROGRAM_TIMEOUT:-600}
TUNE_TIMEOUT=${TUNE_TIMEOUT:-3600}
FORCE_TUNE=${FORCE_TUNE:-0}
MODE=${MODE:-program}
JOBS=${JOBS:-4}
GPUS=${GPUS:-1}

mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/work" "$OUT/lock" || exit 1
OUT=$(cd "$OUT" && pwd)
status=$OUT/status.tsv
# The lock cuda-opt takes around GPU work (see include/cuda-opt/Support/GpuLock.h).
export CUDA_OPT_LOCK_DIR=$OUT/lock
gpu_lock=$CUDA_OPT_LOCK_DIR/cuda-opt-gpu0.lock

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/run.log"; }

# Absolute paths for the tools when they are given as relative paths.
abspath() {
  case $1 in
    */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    *) command -v "$1" || echo "$1" ;;
  esac
}
CUDA_OPT=$(abspath "$CUDA_OPT")
CUDA_OPT_MEASURE=$(abspath "$CUDA_OPT_MEASURE")

missing=0
for tool in "$CUDA_OPT" "$CUDA_OPT_MEASURE" "$NVCC"; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
    log "error: '$tool' not found (set CUDA_OPT, CUDA_OPT_MEASURE or NVCC)"
    missing=1
  fi
done
[ $missing = 0 ] || exit 2

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$corpus"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi

: >"$OUT/run.log"
log "corpus: ${#names[@]} programs; OUT=$OUT"
log "cuda-opt: $CUDA_OPT; worker: $CUDA_OPT_MEASURE; nvcc: $NVCC $NVCC_FLAGS"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    2>&1 | tee -a "$OUT/run.log"
fi

# Keep earlier rows for programs not in this run, so runs of subsets into one
# OUT add up (the summary reads every report under OUT).
header=$'program\tbuild\trun\ttune\topt_build\topt_run\ttune_s'
{
  echo "$header"
  if [ -f "$status" ]; then
    tail -n +2 "$status" | while IFS= read -r line; do
      keep=1
      for n in "${names[@]}"; do
        [ "${line%%$'\t'*}" = "$n" ] && keep=0
      done
      [ $keep = 1 ] && echo "$line"
    done
  fi
} >"$status.new"
mv "$status.new" "$status"

# run_program NAME BINARY LOG: runs the binary, returns 0 when it printed
# exactly "NAME: ok" and exited 0.
run_program() {
  local name=$1 bin=$2 logf=$3 rc
  (cd "$OUT" && flock "$gpu_lock" timeout "$PROGRAM_TIMEOUT" "$bin") >"$logf" 2>&1
  rc=$?
  echo "exit status: $rc" >>"$logf"
  [ $rc = 0 ] && grep -qx "$name: ok" "$logf"
}

# process NAME: the three steps for one program; appends its status row.
process() {
  local name=$1
  local src=$corpus/$name.cu
  local spec=$corpus/$name.tune.json
  local b=skip r=skip t=skip ob=skip orun=skip tsec= start mode_args
  if [ ! -f "$src" ] || { [ "$MODE" = spec ] && [ ! -f "$spec" ]; }; then
    log "$name: missing $src or $spec"
    printf '%s\tmissing\t-\t-\t-\t-\t\n' "$name" >>"$status"
    return
  fi
  mode_args=
  [ "$MODE" = spec ] && mode_args="--spec=$spec"
  # Compiler flags for cuda-opt's parses (after --): the runtime GEMM header.
  local tune_flags=
  [ -n "${CO_GEMM_INCLUDE:-}" ] && tune_flags="-- -I$CO_GEMM_INCLUDE"
  rm -f "$OUT/$name.opt.cu" "$OUT/$name.opt.cu.report.json" \
    "$OUT/$name.opt.cu.report.md" "$OUT/bin/$name" "$OUT/bin/$name.opt"

  # 1. The original program.
  # shellcheck disable=SC2086
  if "$NVCC" $NVCC_FLAGS "$src" -o "$OUT/bin/$name" >"$OUT/logs/$name.build.log" 2>&1; then
    b=ok
    if run_program "$name" "$OUT/bin/$name" "$OUT/logs/$name.run.log"; then
      r=ok
    else
      r=FAIL
    fi
  else
    b=FAIL
  fi
  log "$name: build $b, run $r"

  # 2. Tune the main kernel.
  if [ "$r" = ok ] || [ "$FORCE_TUNE" = 1 ]; then
    rm -rf "$OUT/work/$name"
    mkdir -p "$OUT/work/$name"
    start=$(date +%s)
    # shellcheck disable=SC2086
    if timeout "$TUNE_TIMEOUT" "$CUDA_OPT" tune "$src" $mode_args \
        --measure-worker="$CUDA_OPT_MEASURE" --work-dir="$OUT/work/$name" \
        $TUNE_ARGS -o "$OUT/$name.opt.cu" $tune_flags \
        >"$OUT/logs/$name.tune.log" 2>&1 &&
       [ -f "$OUT/$name.opt.cu" ]; then
      t=ok
      grep -q "not measured" "$OUT/logs/$name.tune.log" && t=unmeasured
    else
      t=FAIL
    fi
    tsec=$(( $(date +%s) - start ))
    log "$name: tune $t (${tsec}s)"
  fi

  # 3. The optimised program.
  if [ "$t" = ok ] || [ "$t" = unmeasured ]; then
    # NAME.opt.cu lies outside corpus/; -I finds its corpus_common.h. A
    # gemm-specialize rewrite calls the runtime GEMM library (sm_90a).
    local link=
    if grep -q '"cudaopt/gemm.h"' "$OUT/$name.opt.cu" 2>/dev/null; then
      link="-gencode=arch=compute_90a,code=sm_90a -I ${CO_GEMM_INCLUDE:-} ${CO_GEMM_ARCHIVE:-} -lcublas -lcublasLt -lcuda"
    fi
    # A conv-cudnn rewrite calls cuDNN ($CUDNN_ROOT, else the toolkit's).
    if grep -q '^#include <cudnn.h>' "$OUT/$name.opt.cu" 2>/dev/null; then
      local cudnn=${CUDNN_ROOT:-$(dirname "$(dirname "$(command -v "$NVCC")")")}
      local lib
      lib=$(ls "$cudnn"/lib*/libcudnn.so "$cudnn"/lib*/libcudnn.so.9 2>/dev/null | head -1)
      link="$link -I $cudnn/include -Xlinker --no-as-needed -Xlinker $lib -Xlinker -rpath,$(dirname "$lib")"
    fi
    # Other libraries the output calls: its "// cuda-opt: link with" line
    # (the GEMM and SpMM runtimes are linked above by path).
    local flag
    for flag in $(sed -n 's|^// cuda-opt: link with \([^(]*\)(.*|\1|p' "$OUT/$name.opt.cu" 2>/dev/null); do
      case $flag in
        -lcudaopt_gemm|-lcudaopt_spmm|-lCudaOptSparse|-lCudaOptRuntimeCommon|-lcudnn) ;;
        -l*) link="$link $flag" ;;
      esac
    done
    # shellcheck disable=SC2086
    if "$NVCC" $NVCC_FLAGS -I "$corpus" "$OUT/$name.opt.cu" $link \
        -o "$OUT/bin/$name.opt" >"$OUT/logs/$name.opt.build.log" 2>&1; then
      ob=ok
      if run_program "$name" "$OUT/bin/$name.opt" "$OUT/logs/$name.opt.run.log"; then
        orun=ok
      else
        orun=FAIL
      fi
    else
      ob=FAIL
    fi
    log "$name: optimised build $ob, run $orun"
  fi

  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$b" "$r" "$t" "$ob" "$orun" \
    "$tsec" >>"$status"
}

# lane G NAME...: the programs of GPU G, JOBS at a time (a subshell: its
# own GPU, lock and jobs).
lane() {
  local g=$1
  shift
  if [ "$GPUS" -gt 1 ]; then
    export CUDA_VISIBLE_DEVICES=$g
    export CUDA_OPT_LOCK_DIR=$OUT/lock/gpu$g
    mkdir -p "$CUDA_OPT_LOCK_DIR"
    gpu_lock=$CUDA_OPT_LOCK_DIR/cuda-opt-gpu0.lock
    log "GPU $g: $*"
  fi
  for name in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
    process "$name" &
  done
  wait
}

run_start=$(date +%s)
for ((g = 0; g < GPUS; g++)); do
  mine=()
  for ((i = g; i < ${#names[@]}; i += GPUS)); do mine+=("${names[$i]}"); done
  [ ${#mine[@]} -gt 0 ] && lane "$g" "${mine[@]}" &
done
wait
# The whole run's wall time: the tuner's throughput on this machine counts
# it, not the sum of the per-program tune times (which overlap).
printf '{"programs": [%s], "wall_s": %d, "jobs": %d, "gpus": %d}\n' \
  "$(printf '"%s",' "${names[@]}" | sed 's/,$//')" \
  $(( $(date +%s) - run_start )) "$JOBS" "$GPUS" >"$OUT/last-run.json"
failures=$(tail -n +2 "$status" | awk -F'\t' -v names=" ${names[*]} " \
  'index(names, " " $1 " ") && !($2=="ok" && $3=="ok" && $4=="ok" && $5=="ok" && $6=="ok")' | wc -l)

# Summary files and the table.
if command -v python3 >/dev/null 2>&1; then
  python3 "$here/summarize.py" --out "$OUT" --corpus "$corpus" \
    --results "$RESULTS" --name "$RESULTS_NAME" --status "$status" \
    2>&1 | tee -a "$OUT/run.log"
else
  log "python3 not found: no summary written"
fi

echo
echo "steps per program (logs in $OUT/logs):"
if command -v column >/dev/null 2>&1; then
  column -t -s $'\t' "$status"
else
  cat "$status"
fi
echo
log "$failures of ${#names[@]} programs had a failing step"
[ $failures = 0 ]
