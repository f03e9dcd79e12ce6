#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets (tools/fuzzers, docs/fuzzing.md)
# from the files already in the tree, one directory per target:
#   analyze    bench/corpus/*.cu and every .cu under test/
#   transform  the same files behind two bytes: the transform (its index in
#              --list-passes order; a test/**/<pass>*.cu file gets its
#              pass, every other file one pass by turn) and the parameter
#              choice (0: each parameter's first tuning value)
#   pipeline   every --passes pipeline in test/, docs/ and README.md
#   tune-spec  bench/corpus/*.tune.json and the JSON specs under test/
#   weights    the .npy/.safetensors files test/Sparse/Inputs writes
#   tls        those weights encoded by cuda-opt sparse-encode, and
#              test/Sparse/Inputs/fuzz/*.tls
# Nothing binary is committed: the seeds are made from the tree each time.
# Usage: utils/fuzz-seeds.sh BUILD_DIR OUT_DIR   (BUILD_DIR has bin/cuda-opt)
set -euo pipefail
build=$(cd "${1:?usage: fuzz-seeds.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: fuzz-seeds.sh BUILD_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cuda_opt=$build/bin/cuda-opt
mkdir -p "$out"/{analyze,transform,pipeline,tune-spec,weights,tls}

cu_files() {
  { ls "$root"/bench/corpus/*.cu; find "$root/test" -name '*.cu'; } | sort
}

# analyze: the files as they are.
n=0
while read -r f; do
  n=$((n + 1))
  cp "$f" "$out/analyze/$n-$(basename "$f")"
done < <(cu_files)

# transform: the pass names in the fuzzer's order (sorted, as
# TransformRegistry::createAll returns them).
mapfile -t passes < <("$cuda_opt" --list-passes | awk 'NF && $1 !~ /:$/ {print $1}' | grep -E '^[a-z][a-z0-9-]*$' | sort -u)
if [ "${#passes[@]}" -eq 0 ]; then
  echo "fuzz-seeds.sh: '$cuda_opt --list-passes' listed no passes" >&2
  exit 1
fi
n=0
while read -r f; do
  base=$(basename "$f" .cu)
  pick=$((n % ${#passes[@]}))
  best=0
  for i in "${!passes[@]}"; do
    p=${passes[$i]}
    if [[ $f == */test/* && ( $base == "$p" || $base == "$p"-* ) && ${#p} -gt $best ]]; then
      pick=$i
      best=${#p}
    fi
  done
  n=$((n + 1))
  { printf "\\$(printf %03o "$pick")\\000"; cat "$f"; } > "$out/transform/$n-${passes[$pick]}-$base.cu"
done < <(cu_files)

# pipeline: the --passes arguments written in the tests and docs.
n=0
grep -rhoE -- "--passes[= ]('[^']*'|\"[^\"]*\"|[^ \`]*)" "$root/test" "$root/docs" "$root/README.md" |
  sed -E "s/^--passes[= ]//; s/^'(.*)'\$/\\1/; s/^\"(.*)\"\$/\\1/" | sort -u |
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    n=$((n + 1))
    printf '%s' "$p" > "$out/pipeline/$n"
  done

# tune-spec: the specs of the corpus and of the tests.
cp "$root"/bench/corpus/*.tune.json "$out/tune-spec/"
find "$root/test" -name '*.json' -exec grep -l '"kernel"' {} + |
  while read -r f; do cp "$f" "$out/tune-spec/test-$(basename "$f")"; done

# weights and tls.
python3 "$root/test/Sparse/Inputs/make_weights.py" "$out/weights"
python3 "$root/test/Sparse/Inputs/make_fuzz_weights.py" "$out/weights"
cp "$root"/test/Sparse/Inputs/fuzz/*.npy "$out/weights/"
for w in w30 w50 w70 w90 w50f w50-fortran; do
  "$cuda_opt" sparse-encode "$out/weights/$w.npy" -o "$out/tls/$w.tls" >/dev/null
done
"$cuda_opt" sparse-encode "$out/weights/bf16.npy" --bf16 -o "$out/tls/bf16.tls" >/dev/null
cp "$root"/test/Sparse/Inputs/fuzz/*.tls "$out/tls/"

for d in "$out"/*/; do
  echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"
done
