//===- Timer.cpp - graph-replay timing with L2 flushes --------------------===//
//
// Each measured unit is one replay of a CUDA graph holding Calls back-to-back
// calls, call i reading operand set i (so no call finds its inputs in L2),
// bracketed by one event pair and preceded by a memset of a buffer larger
// than the 60 MB L2. Implementations are interleaved round by round.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>

namespace bench {

Stats summarize(std::vector<double> V) {
  Stats S;
  if (V.empty())
    return S;
  std::sort(V.begin(), V.end());
  auto At = [&](double Q) {
    double Pos = Q * (V.size() - 1);
    size_t Lo = static_cast<size_t>(Pos);
    size_t Hi = std::min(Lo + 1, V.size() - 1);
    return V[Lo] + (V[Hi] - V[Lo]) * (Pos - Lo);
  };
  S.Median = At(0.5);
  S.P10 = At(0.1);
  S.P90 = At(0.9);
  S.Min = V.front();
  S.Max = V.back();
  S.Samples = static_cast<int>(V.size());
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
