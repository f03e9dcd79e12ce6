#!/usr/bin/env bash
# Exploration on the GPU machine, not the results table: tune corpus programs
# in program mode on pipelines given by hand, all programs in parallel, and
# print each measured candidate (median, GB/s, check). One argument per
# program, NAME=PIPELINE;PIPELINE...:
#   utils/gpu-candidates.sh 'spmv_csr=cooperative-rows{lanes=8};cooperative-rows{lanes=4}'
# Logs and reports go to $OUT/candidates/candidates.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/utils/gpu-setup.sh" || exit 1
dest=${OUT:-/tmp/gpu-candidates}/candidates
mkdir -p "$dest"
for spec in "$@"; do
  name=${spec%%=*}
  work=/tmp/candidates-$name
  rm -rf "$work" && mkdir -p "$work"
  OUT="$work" RESULTS="$work/results" TUNE_ARGS="--candidates=${spec#*=}" \
    timeout "${CANDIDATES_CAP:-400}" "$root/bench/run.sh" "$name" \
    > "$work.log" 2>&1 &
done
wait
for spec in "$@"; do
  name=${spec%%=*}
  report=$(ls /tmp/candidates-"$name"/*.report.json 2>/dev/null | head -1)
  python3 - "$report" "$name" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]}: no report ({e})"); sys.exit()
print(f"== {sys.argv[2]}: original {r.get('baseline_ms', 0):.4f} ms, best {r.get('best_ms', 0):.4f} ms")
for c in r.get("candidates", []):
    if "median_ms" in c:
        print(f"  {c['median_ms']:8.4f} ms {c.get('gb_per_s', 0):6.0f} GB/s "
              f"{c['status']:<9} {c.get('check', '')}  {c['pipeline']}")
    else:
        print(f"  {'':>8}    {'':>6}      {c['status']:<9} {c['pipeline']} {c.get('detail', '')[:120]}")
PY
done
# One archive: the device returns a limited number of files.
tar -C /tmp -czf "$dest/candidates.tgz" $(cd /tmp && ls -d candidates-*) 2>/dev/null
