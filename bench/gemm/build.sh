#!/usr/bin/env bash
# Builds libcudaopt_gemm.a and gemm-bench with nvcc (sm_90a) into $1
# (default build-gemm/ at the repository root). Parallel across files.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build-gemm}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
JOBS=${JOBS:-$(nproc)}
make -s -C "$ROOT/runtime/gemm" -j"$JOBS" NVCC="$NVCC" BUILD="$OUT/lib"
ARCH="-gencode=arch=compute_90a,code=sm_90a"
FLAGS="-std=c++17 -O2 $ARCH -I$ROOT/runtime/gemm/include -I$ROOT/runtime/measure"
mkdir -p "$OUT/bench"
pids=()
for f in GemmBench.cpp Timer.cpp Baselines.cpp Kernels.cu; do
  "$NVCC" $FLAGS -x cu -c "$ROOT/bench/gemm/$f" -o "$OUT/bench/$f.o" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$NVCC" $ARCH -o "$OUT/gemm-bench" "$OUT"/bench/*.o "$OUT/lib/libcudaopt_gemm.a" \
  -lcublas -lcublasLt
echo "built $OUT/gemm-bench"
# The exact fp32 kernel's variants against cuBLAS SGEMM (reuses the Timer).
"$NVCC" $FLAGS -I"$ROOT/runtime/gemm/lib" -o "$OUT/sgemm-bench" \
  "$ROOT/bench/gemm/SgemmBench.cu" "$OUT/bench/Timer.cpp.o" "$OUT/bench/Kernels.cu.o" \
  "$OUT/lib/libcudaopt_gemm.a" -lcublas -lcublasLt
echo "built $OUT/sgemm-bench"
