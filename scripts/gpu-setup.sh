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
  "$co_root"/runtime/measure/{Worker,Json,DType,Compare,CublasReference}.cpp -ldl \
  -L "$co_cuda/lib64/stubs" -lcuda -o "$CO_BIN/cuda-opt-measure" || return 1
export CUDA_OPT=$CO_BIN/cuda-opt
export CUDA_OPT_MEASURE=$CO_BIN/cuda-opt-measure
nvidia-smi -L
