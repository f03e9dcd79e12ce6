#!/usr/bin/env bash
# bench/check-local.sh [NAME...] - on the build machine (no GPU): compile every
# corpus program with nvcc, check its tuning spec with cuda-opt (spec errors
# are reported even without a GPU) and build what cuda-opt wrote (the default
# pipeline, applied without measuring). Exit status: number of failures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
co=${CUDA_OPT:-}
if [ -z "$co" ]; then
  for c in "$root/build/bin/cuda-opt" "$root/build-t1/bin/cuda-opt" \
           "$root/build-t2/bin/cuda-opt"; do
    [ -x "$c" ] && { co=$c; break; }
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/corpus/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
fails=0
for n in "${names[@]}"; do
  src=$here/corpus/$n.cu
  if ! "$nvcc" -O3 -std=c++17 -arch=sm_90 "$src" -o "$tmp/$n" 2>"$tmp/$n.nvcc"; then
    echo "$n: nvcc FAILED"; cat "$tmp/$n.nvcc"; fails=$((fails + 1)); continue
  fi
  if [ -s "$tmp/$n.nvcc" ]; then echo "$n: nvcc warnings:"; cat "$tmp/$n.nvcc"; fi
  if ! out=$("$co" tune "$src" --spec="$here/corpus/$n.tune.json" \
             -o "$tmp/$n.opt.cu" 2>&1) || ! grep -q "not measured (no CUDA GPU" <<<"$out"; then
    echo "$n: spec FAILED"; echo "$out"; fails=$((fails + 1)); continue
  fi
  # The default pipeline's output (what tune writes without a GPU) must build;
  # it is written outside corpus/, so corpus_common.h needs the -I.
  if ! "$nvcc" -O3 -std=c++17 -arch=sm_90 -I "$here/corpus" "$tmp/$n.opt.cu" \
       -o "$tmp/$n.opt" >"$tmp/$n.opt.nvcc" 2>&1; then
    echo "$n: default-pipeline output does not build"; cat "$tmp/$n.opt.nvcc"
    fails=$((fails + 1)); continue
  fi
  echo "$n: compiles, spec ok, default-pipeline output builds"
done
exit $fails
