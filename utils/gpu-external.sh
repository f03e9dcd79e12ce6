#!/usr/bin/env bash
# One GPU-machine call: tune every program of the external suite
# (bench/external/*.cu: real CUDA from NVIDIA/cuda-samples and Rodinia, see
# bench/external/README.md) in program mode with tune's default budget, and
# write the reports, bench/summarize.py's summary and a per-kernel table to
# $OUT.
#   OUT=/tmp/x utils/gpu-external.sh [NAME...]        (default: every program)
# For each program (JOBS at a time, everything on the GPU under one lock):
# build and run it (must print "NAME: ok"), cuda-opt tune NAME.cu (program
# mode: every kernel it launches is captured and tuned in turn), then build
# and run NAME.opt.cu (must still print ok). Knobs: JOBS (default 4),
# EXT_CAP (seconds for the whole suite, default 480), TUNE_TIMEOUT (one tune,
# default 360), PROGRAM_TIMEOUT (one run, default 120), TUNE_ARGS (extra tune
# arguments, default none: the default budget), NVCC_FLAGS.
# A device call is limited to 600 s and gpu-setup.sh takes part of it: all
# twelve programs may not fit one call; pass NAMEs to split the suite (each
# call writes a fresh status.tsv; keep each call's OUT).
# Outputs in $OUT: status.tsv, run.log, logs/, NAME.opt.cu and its reports,
# results/external-h200.{md,json} (bench/summarize.py), kernels.md (one row
# per kernel: chosen pipeline, input ms, best ms, speedup), reports.tgz.
# Copy results/external-h200.md (and kernels.md) to bench/results/ by hand.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ext=$root/bench/external
FINAL_OUT=${OUT:-/tmp/gpu-external}
mkdir -p "$FINAL_OUT" || exit 1
FINAL_OUT=$(cd "$FINAL_OUT" && pwd)
# Everything is built and tuned under EXT_WORK; only the summaries and one
# archive of the reports go to $OUT (a device call brings back a limited
# number of files).
OUT=${EXT_WORK:-/tmp/gpu-external-work}
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)

if [ -z "${EXT_DRY_RUN:-}" ]; then
  # The carried static cuda-opt and the measurement worker (CUDA_OPT,
  # CUDA_OPT_MEASURE).
  source "$root/utils/gpu-setup.sh" || { echo "gpu-setup failed"; exit 1; }
else
  # EXT_DRY_RUN=1 (no GPU): cuda-opt from build/bin, tune --dry-run, and the
  # programs are only built, not run; checks the script's plumbing.
  export CUDA_OPT=${CUDA_OPT:-$root/build/bin/cuda-opt}
fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NVCC_FLAGS=${NVCC_FLAGS:--O3 -std=c++17 -arch=sm_90}
JOBS=${JOBS:-4}
EXT_CAP=${EXT_CAP:-480}
TUNE_TIMEOUT=${TUNE_TIMEOUT:-360}
PROGRAM_TIMEOUT=${PROGRAM_TIMEOUT:-120}
TUNE_ARGS=${TUNE_ARGS:-}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$ext"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi

mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/work" "$OUT/lock"
export CUDA_OPT_LOCK_DIR=$OUT/lock
gpu_lock=$CUDA_OPT_LOCK_DIR/cuda-opt-gpu0.lock
status=$OUT/status.tsv
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/run.log"; }
: >"$OUT/run.log"
log "external suite: ${#names[@]} programs, JOBS=$JOBS, cap ${EXT_CAP}s; OUT=$OUT"
log "cuda-opt: $CUDA_OPT; worker: ${CUDA_OPT_MEASURE:-none}; nvcc: $NVCC $NVCC_FLAGS"
printf 'program\tbuild\trun\ttune\topt_build\topt_run\ttune_s\n' >"$status"

# run_program NAME BINARY LOG: 0 when it printed exactly "NAME: ok" and exited 0.
run_program() {
  local name=$1 bin=$2 logf=$3 rc
  if [ -n "${EXT_DRY_RUN:-}" ]; then echo "not run (dry run)" >"$logf"; return 0; fi
  (cd "$OUT" && flock "$gpu_lock" timeout "$PROGRAM_TIMEOUT" "$bin") >"$logf" 2>&1
  rc=$?
  echo "exit status: $rc" >>"$logf"
  [ $rc = 0 ] && grep -qx "$name: ok" "$logf"
}

process() {
  local name=$1 src=$ext/$1.cu b=skip r=skip t=skip ob=skip orun=skip tsec= t0
  local tune_mode_args=
  [ -n "${EXT_DRY_RUN:-}" ] && tune_mode_args=--dry-run
  rm -f "$OUT/$name.opt.cu" "$OUT/$name.opt.cu.report."* "$OUT/bin/$name" "$OUT/bin/$name.opt"
  # shellcheck disable=SC2086
  if "$NVCC" $NVCC_FLAGS "$src" -o "$OUT/bin/$name" >"$OUT/logs/$name.build.log" 2>&1; then
    b=ok
    if run_program "$name" "$OUT/bin/$name" "$OUT/logs/$name.run.log"; then r=ok; else r=FAIL; fi
  else
    b=FAIL
  fi
  log "$name: build $b, run $r"
  if [ "$r" = ok ]; then
    rm -rf "$OUT/work/$name" && mkdir -p "$OUT/work/$name"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    if (cd "$OUT/work/$name" && timeout "$TUNE_TIMEOUT" "$CUDA_OPT" tune "$src" \
          ${CUDA_OPT_MEASURE:+--measure-worker="$CUDA_OPT_MEASURE"} \
          --work-dir="$OUT/work/$name" $tune_mode_args $TUNE_ARGS \
          -o "$OUT/$name.opt.cu") >"$OUT/logs/$name.tune.log" 2>&1 &&
       [ -f "$OUT/$name.opt.cu" ]; then
      t=ok
      grep -q "not measured" "$OUT/logs/$name.tune.log" && t=unmeasured
    else
      t=FAIL
    fi
    tsec=$(( $(date +%s) - t0 ))
    log "$name: tune $t (${tsec}s)"
  fi
  if [ "$t" = ok ] || [ "$t" = unmeasured ]; then
    # shellcheck disable=SC2086
    if "$NVCC" $NVCC_FLAGS "$OUT/$name.opt.cu" -o "$OUT/bin/$name.opt" \
         >"$OUT/logs/$name.opt.build.log" 2>&1; then
      ob=ok
      if run_program "$name" "$OUT/bin/$name.opt" "$OUT/logs/$name.opt.run.log"; then
        orun=ok; else orun=FAIL; fi
    else
      ob=FAIL
    fi
    log "$name: optimised build $ob, run $orun"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$b" "$r" "$t" "$ob" "$orun" "$tsec" >>"$status"
}

# The programs, JOBS at a time, the whole suite under EXT_CAP seconds: a
# program not started by then is listed as "capped"; running ones are killed
# at the cap (their tune and later steps then read FAIL or are missing).
run_start=$(date +%s)
pids=()
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
  if [ $(( $(date +%s) - run_start )) -ge "$EXT_CAP" ]; then
    log "$name: not started (EXT_CAP ${EXT_CAP}s reached)"
    printf '%s\tcapped\t-\t-\t-\t-\t\n' "$name" >>"$status"
    continue
  fi
  setsid bash -c "$(declare -f log run_program process); $(declare -p OUT ext NVCC NVCC_FLAGS TUNE_TIMEOUT PROGRAM_TIMEOUT TUNE_ARGS CUDA_OPT gpu_lock status); ${CUDA_OPT_MEASURE:+CUDA_OPT_MEASURE='$CUDA_OPT_MEASURE';} ${EXT_DRY_RUN:+EXT_DRY_RUN=1;} export CUDA_OPT_LOCK_DIR='$CUDA_OPT_LOCK_DIR'; process '$name'" &
  pids+=($!)
done
# Wait for the running ones until the cap, then end them (their own process
# groups: setsid above).
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
  if [ $(( $(date +%s) - run_start )) -ge "$EXT_CAP" ]; then
    log "EXT_CAP ${EXT_CAP}s reached: stopping the programs still running"
    for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null; done
    break
  fi
  sleep 2
done
wait
printf '{"programs": [%s], "wall_s": %d, "jobs": %d}\n' \
  "$(printf '"%s",' "${names[@]}" | sed 's/,$//')" \
  $(( $(date +%s) - run_start )) "$JOBS" >"$OUT/last-run.json"

# Per program: bench/summarize.py (its --corpus only decides fp16 and reads
# NAME.tune.json for FLOPs, absent here).
python3 "$root/bench/summarize.py" --out "$OUT" --corpus "$ext" \
  --results "$OUT/results" --name external-h200 --status "$status" --eager '' \
  >"$OUT/summary.log" 2>&1

# Per kernel: the reports' "kernels" arrays.
python3 - "$OUT" "$status" >"$OUT/kernels.md" <<'PY'
import glob, json, os, sys
out, status = sys.argv[1], sys.argv[2]
checks = {}
with open(status) as f:
    head = f.readline().rstrip("\n").split("\t")
    for line in f:
        c = dict(zip(head, line.rstrip("\n").split("\t")))
        checks[c["program"]] = c
print("# External suite: what `cuda-opt tune` did to each kernel\n")
print("| program | kernel | checks orig/opt | chosen pipeline | input ms | best ms | speedup | note |")
print("|---|---|---|---|---|---|---|---|")
for name in sorted(checks):
    st = checks[name]
    chk = "%s/%s" % (st.get("run", "?"), st.get("opt_run", "?"))
    path = os.path.join(out, name + ".opt.cu.report.json")
    if not os.path.exists(path):
        print("| %s | - | %s | - | - | - | - | no report (tune %s) |" % (name, chk, st.get("tune", "?")))
        continue
    rep = json.load(open(path))
    ks = rep.get("kernels") or [{"kernel": rep.get("kernel", ""), "measured": rep.get("measured"),
                                 "pipeline": rep.get("pipeline", ""), "baseline_ms": rep.get("baseline_ms"),
                                 "best_ms": rep.get("best_ms"),
                                 "detail": rep.get("not_measured_reason", "")}]
    for k in ks:
        if not k.get("measured"):
            print("| %s | %s | %s | not measured | - | - | - | %s |" % (
                name, k.get("kernel"), chk, str(k.get("detail", "")).replace("|", "/")[:160]))
            continue
        b, m = k.get("baseline_ms") or 0, k.get("best_ms") or 0
        pipe = "`%s`" % k["pipeline"] if k.get("pipeline") else "(original kept)"
        print("| %s | %s | %s | %s | %.4f | %.4f | %.2fx | %s |" % (
            name, k.get("kernel"), chk, pipe.replace("|", "/"), b, m, b / m if m else 0,
            str(k.get("verification", "")).replace("|", "/")[:120]))
PY

echo
column -t -s $'\t' "$status" 2>/dev/null || cat "$status"
echo
cat "$OUT/kernels.md"
echo
tail -25 "$OUT/summary.log"
echo "total $(( $(date +%s) - start )) s"
failures=$(tail -n +2 "$status" | awk -F'\t' '!($2=="ok" && $3=="ok" && $4=="ok" && $5=="ok" && $6=="ok")' | wc -l)
[ "$failures" = 0 ]

# The summaries and one archive for $OUT.
mkdir -p "$FINAL_OUT/results"
cp "$OUT"/results/* "$FINAL_OUT/results/" 2>/dev/null
cp "$OUT/kernels.md" "$OUT/status.tsv" "$OUT/run.log" "$OUT/summary.log" \
  "$OUT/last-run.json" "$FINAL_OUT/" 2>/dev/null
(cd "$OUT" && tar -czf "$FINAL_OUT/reports.tgz" ./*.report.json ./*.report.md \
  ./*.opt.cu logs 2>/dev/null)
