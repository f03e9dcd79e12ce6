#!/usr/bin/env bash
# Run the GPU-only lit tests (REQUIRES: cuda-device) on a machine that has
# CUDA and a GPU but no LLVM (the project's GPU machine); see
# utils/gpu-setup.sh for what must be carried. Usage:
#   utils/gpu-tests.sh [lit filter regex]      logs go to $OUT if set
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpu-tests-out}
mkdir -p "$out"
# A caller that already ran the set-up (gpu-corpus.sh) exports CO_BIN.
[ -n "${CO_BIN:-}" ] || source "$root/utils/gpu-setup.sh" || exit 1
echo "== static cuda-opt: --list-kernels on examples/saxpy.cu"
"$CUDA_OPT" --list-kernels "$root/examples/saxpy.cu" || exit 1
build=$(mktemp -d)
mkdir -p "$build/test"
cat > "$build/test/lit.site.cfg.py" <<CFG
import lit.llvm
config.llvm_tools_dir = "$CO_BIN"
config.cuda_opt_obj_root = "$build"
config.cuda_opt_tools_dir = "$CO_BIN"
config.cuda_opt_src_root = "$root"
# The static build carried here decides this itself; tests that need the
# MLIR pass are CPU tests.
config.cuda_opt_with_mlir = False
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$root/test/lit.cfg.py")
CFG
filter=${1:-GPU/}
python3 -c "from lit.main import main; main()" -v --filter "$filter" \
  "$build/test" 2>&1 | tee "$out/gpu-lit.log"
echo "lit summary (GPU subset):"
grep -E "^ *(Passed|Failed|Unsupported|Unresolved)" "$out/gpu-lit.log"
