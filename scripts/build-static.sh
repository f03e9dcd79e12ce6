#!/usr/bin/env bash
# Build a self-contained cuda-opt (static LLVM/Clang, static libstdc++) and pack
# it with clang's resource headers, for machines that have CUDA but no LLVM
# (the GPU machine). Output: dist/cuda-opt-static.tar.gz holding
#   cuda-opt/bin/cuda-opt  cuda-opt/bin/clang-resource/include/...
# Unpack anywhere; cuda-opt finds the headers next to itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-static}
jobs=${JOBS:-2}
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCUDA_OPT_STATIC=ON -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
ninja -C "$build" -j "$jobs" cuda-opt
stage=$(mktemp -d)
mkdir -p "$stage/cuda-opt/bin/clang-resource"
cp "$build/bin/cuda-opt" "$stage/cuda-opt/bin/"
cp -r /usr/lib/llvm-22/lib/clang/22/include "$stage/cuda-opt/bin/clang-resource/"
# Only the headers a CUDA parse can reach; the rest are for other targets.
rm -rf "$stage"/cuda-opt/bin/clang-resource/include/{ppc_wrappers,llvm_libc_wrappers,openmp_wrappers,hlsl*,riscv*,arm_*}
mkdir -p "$root/dist"
tar -C "$stage" -czf "$root/dist/cuda-opt-static.tar.gz" cuda-opt
rm -rf "$stage"
ls -la "$root/dist/cuda-opt-static.tar.gz"
ldd "$build/bin/cuda-opt" || true
