#!/usr/bin/env bash
# One-step set-up for a fresh Debian 12 machine with CUDA 13 at /usr/local/cuda:
# installs the build dependencies, builds cuda-opt, then
#   scripts/bootstrap.sh example   runs cuda-opt on examples/ (the main job)
#   scripts/bootstrap.sh test      runs the lit test suite, then the
#                                  ASan+UBSan build, fuzz smoke and lit run
#                                  (CI; ~68 min on 2 cores;
#                                  CUDA_OPT_SANITIZERS=0: the plain suite only)
# Idempotent: a second run reuses the packages and the build directory.
set -euo pipefail
mode=${1:-example}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# libpq-dev: the PostgreSQL tuning database (docs/cluster-tuning.md).
packages="clang-22 libclang-22-dev llvm-22-dev llvm-22-tools libmlir-22-dev
  mlir-22-tools cmake ninja-build python3 zlib1g-dev libzstd-dev libsqlite3-dev
  libpq-dev"
# The sanitizer runtimes and libFuzzer (scripts/sanitizer-tests.sh).
if [ "${CUDA_OPT_SANITIZERS:-1}" = 1 ] && [ "$mode" = test ]; then
  packages="$packages libclang-rt-22-dev"
fi
# test/Cluster starts a PostgreSQL server and a one-node Slurm cluster (with
# munge) on loopback.
if [ "$mode" = test ]; then
  packages="$packages postgresql slurm-wlm munge"
fi
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
if [ ! -e "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ]; then
  echo "error: no CUDA toolkit at ${CUDA_PATH:-/usr/local/cuda}; install CUDA 13 or set CUDA_PATH" >&2
  exit 1
fi

# test/CMake/example-clang.test builds examples/cmake with clang as the CUDA
# compiler, which Debian 12's CMake 3.25 cannot identify with CUDA 13
# (docs/cmake.md): CMake 4.4.5 from PyPI, in a venv of the build tree, for
# that test only.
if [ "$mode" = test ] && ! [ -x "$build/cmake-clang-cuda/bin/cmake" ]; then
  mkdir -p "$build"
  { python3 -m venv "$build/cmake-clang-cuda" &&
    "$build/cmake-clang-cuda/bin/pip" install -q cmake==4.4.5; } ||
    echo "warning: no CMake 4.4.5 from PyPI; test/CMake/example-clang.test will be unsupported" >&2
fi

echo "== building cuda-opt in $build"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
case "$mode" in
  example)
    # The example needs the tool and, to measure on a GPU, its measurement
    # worker (built when CMake found the CUDA toolkit): build those first, run
    # the example, then build the rest (runtime libraries, test helpers,
    # plugin).
    targets=cuda-opt
    # (grep reads all of ninja's list: with pipefail, -q could SIGPIPE it.)
    if ninja -C "$build" -t targets all | grep '^cuda-opt-measure:' >/dev/null; then
      targets="$targets cuda-opt-measure"
    fi
    ninja -C "$build" $targets
    "$root/scripts/run-example.sh" "$build/bin/cuda-opt"
    echo "== building the rest of cuda-opt"
    exec ninja -C "$build" ;;
  test)
    ninja -C "$build"
    if [ "${CUDA_OPT_SANITIZERS:-1}" != 1 ]; then
      exec "$root/scripts/run-tests.sh" "$build"
    fi
    # CI (.ci/run): then the ASan+UBSan build, the fuzz smoke runs and the
    # lit suite again with the instrumented tools (scripts/sanitizer-tests.sh);
    # the last line sums both lit runs.
    set +e
    log=$(mktemp)
    "$root/scripts/run-tests.sh" "$build" | tee "$log"
    status=${PIPESTATUS[0]}
    "$root/scripts/sanitizer-tests.sh" | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    main=$(grep -E '^lit: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    san=$(grep -E '^sanitizer lit: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    rm -f "$log"
    count() { echo "$1" | grep -oE "[0-9]+ $2" | grep -oE '^[0-9]+' || echo 0; }
    echo "lit: $(( $(count "$main" passed) + $(count "$san" passed) )) passed, $(( $(count "$main" failed) + $(count "$san" failed) )) failed"
    exit "$status" ;;
  *) echo "usage: $0 [example|test]" >&2; exit 64 ;;
esac
