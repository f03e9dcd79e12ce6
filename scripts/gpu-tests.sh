#!/usr/bin/env bash
# Run the GPU-only lit tests (REQUIRES: cuda-device) on a machine that has
# CUDA and a GPU but no LLVM (the project's GPU machine). Needs, in .carry/:
#   cuda-opt-static.tar.gz  from scripts/build-static.sh (dist/)
#   lit-*.whl               the lit test runner (pure Python)
# Usage: scripts/gpu-tests.sh [lit filter regex]; logs go to $OUT if set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/.carry
out=${OUT:-/tmp/gpu-tests-out}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xzf "$carry/cuda-opt-static.tar.gz" || exit 1
python3 -m pip install -q --no-index --no-deps --target "$work/site" "$carry"/lit-*.whl || exit 1
export PYTHONPATH=$work/site
bin=$work/cuda-opt/bin
nvidia-smi -L
cuda=${CUDA_PATH:-/usr/local/cuda}
echo "== building the measurement worker (runtime/measure) with the CUDA toolkit"
g++ -O2 -std=c++17 -I "$cuda/include" "$root"/runtime/measure/*.cpp \
  -L "$cuda/lib64/stubs" -lcuda -o "$bin/cuda-opt-measure" || exit 1
echo "== static cuda-opt: --list-kernels on examples/saxpy.cu"
"$bin/cuda-opt" --list-kernels "$root/examples/saxpy.cu" || exit 1
mkdir -p "$work/build/test"
cat > "$work/build/test/lit.site.cfg.py" <<CFG
import lit.llvm
config.llvm_tools_dir = "$bin"
config.cuda_opt_obj_root = "$work/build"
config.cuda_opt_tools_dir = "$bin"
config.cuda_opt_src_root = "$root"
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$root/test/lit.cfg.py")
CFG
filter=${1:-GPU/}
python3 -c "from lit.main import main; main()" -v --filter "$filter" "$work/build/test" 2>&1 | tee "$out/gpu-lit.log"
echo "lit summary (GPU subset):"
grep -E "^ *(Passed|Failed|Unsupported|Unresolved)" "$out/gpu-lit.log"
