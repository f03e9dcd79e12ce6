#!/usr/bin/env bash
# The main job: cuda-opt on an example kernel. Lists its kernels, prints the
# kernel model, and tunes it (without a GPU: rewrites with the default
# pipeline and says it could not measure).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda_opt=${1:-$root/build/bin/cuda-opt}
example=$root/examples/saxpy.cu
out=${OUT_DIR:-$root/build/example}
mkdir -p "$out"
echo "== cuda-opt --list-kernels $example"
"$cuda_opt" --list-kernels "$example"
echo "== cuda-opt --analyze --json $example"
"$cuda_opt" --analyze --json "$example"
echo "== cuda-opt tune $example -o $out/saxpy.opt.cu"
"$cuda_opt" tune "$example" -o "$out/saxpy.opt.cu"
echo "== the rewrite (diff against the input)"
diff -u "$example" "$out/saxpy.opt.cu" || true
echo "== report"
cat "$out/saxpy.opt.cu.report.md"
