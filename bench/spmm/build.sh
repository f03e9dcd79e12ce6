#!/bin/bash
# Sourced by run.sh and device-run.sh from the repository root:
#   spmm_build TARGET...
# builds targets of bench/spmm's CMake project (runtime/sparse's libraries
# and checks, spmm-bench) in build-spmm, binaries in build-spmm/bin. A
# binary already there (built on this machine, or carried from the CPU
# machine with the same CUDA) is used as it is while it finds its libraries;
# after changing the kernel, delete it or carry a fresh one.
spmm_build() {
  local Need=() T
  for T in "$@"; do
    if ! [ -x "build-spmm/bin/$T" ] || ldd "build-spmm/bin/$T" | grep -q "not found"; then
      Need+=("$T")
    fi
  done
  [ ${#Need[@]} -eq 0 ] && return 0
  mkdir -p build-spmm
  # A build tree configured in another checkout cannot be reused.
  if [ -f build-spmm/CMakeCache.txt ] &&
     ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD/bench/spmm" build-spmm/CMakeCache.txt; then
    rm -rf build-spmm/CMakeCache.txt build-spmm/CMakeFiles
  fi
  local Gen=()
  command -v ninja > /dev/null && ! [ -f build-spmm/Makefile ] && Gen=(-G Ninja)
  echo "building ${Need[*]} (bench/spmm/CMakeLists.txt in build-spmm)"
  cmake -S bench/spmm -B build-spmm "${Gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    > build-spmm/cmake.log 2>&1 || { cat build-spmm/cmake.log; return 1; }
  cmake --build build-spmm --target "${Need[@]}" -j "$(nproc)" \
    > build-spmm/build.log 2>&1 || { tail -30 build-spmm/build.log; return 1; }
}
