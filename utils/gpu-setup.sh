# Sourced by the GPU-machine scripts (gpu-tests.sh, gpu-bench.sh): unpacks the
# carried static cuda-opt and lit, builds the measurement worker, and exports
#   CO_BIN            directory holding cuda-opt and cuda-opt-measure
#   CUDA_OPT, CUDA_OPT_MEASURE, PYTHONPATH (lit)
# Needs .carry/cuda-opt-static.tar.gz (scripts/build-static.sh) and
# .carry/lit-*.whl.
co_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
co_carry=$co_root/.carry
co_work=$(mktemp -d)
tar -C "$co_work" -xzf "$co_carry/cuda-opt-static.tar.gz" || return 1
python3 -m pip install -q --no-index --no-deps --target "$co_work/site" \
  "$co_carry"/lit-*.whl || return 1
export PYTHONPATH=$co_work/site${PYTHONPATH:+:$PYTHONPATH}
export CO_BIN=$co_work/cuda-opt/bin
co_cuda=${CUDA_PATH:-/usr/local/cuda}
echo "== building the measurement worker (runtime/measure)"
g++ -O2 -std=c++17 -I "$co_cuda/include" \
  -I "$co_root/runtime/gemm/include" -I "$co_root/runtime/common" \
  "$co_root"/runtime/measure/{Worker,WorkerContext,Job,Verify,Shadow,Timing,CublasReference,DeviceCheck,LibraryCall,DType,Compare}.cpp \
  "$co_root"/runtime/common/Json.cpp \
  -ldl -L "$co_cuda/lib64" -lnvrtc -L "$co_cuda/lib64/stubs" -lcuda \
  -Wl,-rpath,"$co_cuda/lib64" -o "$CO_BIN/cuda-opt-measure" || return 1
export CUDA_OPT=$CO_BIN/cuda-opt
export CUDA_OPT_MEASURE=$CO_BIN/cuda-opt-measure
nvidia-smi -L
# cuDNN for conv-cudnn: the toolkit's when it has cudnn.h, else pip's
# nvidia-cudnn-cu13 (the GPU machine's Python image).
if [ -z "${CUDNN_ROOT:-}" ] && [ ! -f "$co_cuda/include/cudnn.h" ]; then
  CUDNN_ROOT=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__) if nvidia.cudnn.__file__ else list(nvidia.cudnn.__path__)[0])' 2>/dev/null) &&
    export CUDNN_ROOT && echo "== cuDNN: $CUDNN_ROOT" &&
    export LD_LIBRARY_PATH=$CUDNN_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# CO_GEMM_LIB=1: also build the shared runtime GEMM library next to the
# worker, so tune measures gemm-specialize variants (the worker dlopens it).
# Built from .carry/gemm-src.tar (`git archive HEAD runtime/gemm`, committed
# sources only), cached in build-gpu/ across calls to a warm machine.
co_build_gemm_lib() {
  co_gemm=$co_root/build-gpu/gemm
  if [ ! -f "$co_gemm/libcudaopt_gemm.so" ] ||
     ! cmp -s "$co_carry/gemm-src.tar" "$co_gemm/src.tar"; then
    echo "== building libcudaopt_gemm.so (runtime/gemm, -fPIC)"
    rm -rf "$co_gemm" && mkdir -p "$co_gemm/src"
    tar -C "$co_gemm/src" -xf "$co_carry/gemm-src.tar" || return 1
    make -C "$co_gemm/src/runtime/gemm" -j"$(nproc)" BUILD="$co_gemm/obj" \
      FLAGS="-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Ilib -Xcompiler -fPIC" \
      > "$co_gemm/build.log" 2>&1 || { tail -20 "$co_gemm/build.log"; return 1; }
    "$co_cuda/bin/nvcc" -shared -o "$co_gemm/libcudaopt_gemm.so" \
      "$co_gemm"/obj/*.o -L "$co_cuda/lib64" -lcublas -lcublasLt \
      -Xlinker -rpath,"$co_cuda/lib64" -L "$co_cuda/lib64/stubs" -lcuda \
      || return 1
    cp "$co_carry/gemm-src.tar" "$co_gemm/src.tar"
  fi
  cp "$co_gemm/libcudaopt_gemm.so" "$CO_BIN/"
  export CO_GEMM_INCLUDE=$co_gemm/src/runtime/gemm/include
  export CO_GEMM_ARCHIVE=$co_gemm/obj/libcudaopt_gemm.a
}
if [ "${CO_GEMM_LIB:-0}" = 1 ]; then
  # Without the library tune still runs; gemm-specialize is then listed as
  # a library call it could not measure.
  co_build_gemm_lib || echo "warning: libcudaopt_gemm.so not built"
fi
