//===- Timer.cpp - graph-replay timing with L2 flushes --------------------===//
//
// Each measured unit is one replay of a CUDA graph holding Calls back-to-back
// calls, call i reading operand set i (so no call finds its inputs in L2),
// bracketed by one event pair and preceded by a memset of a buffer larger
// than the 60 MB L2. Implementations are interleaved round by round.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Stats.h"

#include <algorithm>

namespace bench {

// One definition of the percentiles for the whole project: the measurement
// worker's (runtime/measure/Stats.h).
Stats summarize(std::vector<double> V) {
  co_runtime::TimingStats T = co_runtime::summarize(std::move(V));
  Stats S;
  S.Median = T.MedianMs;
  S.P10 = T.P10Ms;
  S.P90 = T.P90Ms;
  S.Min = T.MinMs;
  S.Max = T.MaxMs;
  S.Samples = T.Runs;
  return S;
}

Timer::Timer(cudaStream_t S, size_t Bytes) : Stream(S), FlushBytes(Bytes) {
  BENCH_CHECK(cudaMalloc(&Flush, FlushBytes));
}

Timer::~Timer() { cudaFree(Flush); }

bool Timer::build(const Enqueue &E, int Calls, int Sets, cudaGraphExec_t *Out) {
  cudaGraph_t Graph;
  BENCH_CHECK(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeThreadLocal));
  bool Ok = true;
  for (int I = 0; I < Calls && Ok; ++I)
    Ok = E(Stream, I % Sets);
  cudaError_t Err = cudaStreamEndCapture(Stream, &Graph);
  if (!Ok || Err != cudaSuccess) {
    cudaGetLastError();
    if (Err == cudaSuccess)
      cudaGraphDestroy(Graph);
    return false;
  }
  Err = cudaGraphInstantiate(Out, Graph, 0);
  cudaGraphDestroy(Graph);
  if (Err != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

std::vector<Stats> Timer::run(const std::vector<cudaGraphExec_t> &Graphs,
                              int Calls, int Rounds) {
  size_t N = Graphs.size();
  std::vector<cudaEvent_t> Start(N * Rounds), Stop(N * Rounds);
  for (size_t I = 0; I < Start.size(); ++I) {
    BENCH_CHECK(cudaEventCreate(&Start[I]));
    BENCH_CHECK(cudaEventCreate(&Stop[I]));
  }
  // Warm-up replay of each graph (clocks, first touch of the graph).
  for (cudaGraphExec_t G : Graphs)
    BENCH_CHECK(cudaGraphLaunch(G, Stream));
  for (int R = 0; R < Rounds; ++R)
    for (size_t I = 0; I < N; ++I) {
      BENCH_CHECK(
          cudaMemsetAsync(Flush, (R * 7 + I) & 0xFF, FlushBytes, Stream));
      BENCH_CHECK(cudaEventRecord(Start[R * N + I], Stream));
      BENCH_CHECK(cudaGraphLaunch(Graphs[I], Stream));
      BENCH_CHECK(cudaEventRecord(Stop[R * N + I], Stream));
    }
  BENCH_CHECK(cudaStreamSynchronize(Stream));
  std::vector<Stats> Out;
  for (size_t I = 0; I < N; ++I) {
    std::vector<double> Ms;
    for (int R = 0; R < Rounds; ++R) {
      float T = 0;
      BENCH_CHECK(cudaEventElapsedTime(&T, Start[R * N + I], Stop[R * N + I]));
      Ms.push_back(double(T) / Calls);
    }
    Out.push_back(summarize(Ms));
  }
  for (size_t I = 0; I < Start.size(); ++I) {
    cudaEventDestroy(Start[I]);
    cudaEventDestroy(Stop[I]);
  }
  return Out;
}

} // namespace bench
