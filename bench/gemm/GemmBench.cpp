//===- GemmBench.cpp - cuda-opt GEMM vs cuBLAS / cuBLASLt on one GPU ------===//
//
// Usage: gemm-bench --shapes FILE [--types f16,bf16] [--layouts col,row]
//          [--rounds 20] [--tune-rounds 3] [--ours 4] [--lt 8]
//          [--out results.jsonl] [--special] [--limit N]
//          [--extra Kernel/Group/RasterN/Splits,...] [--tags big,llm,grid]
//          [--pingpong] [--inputs normal|binary] [--pdl off|on]
//          [--host-reps 50]
//
// Per shape: check every candidate against an fp32-accumulated reference,
// tune (measure the cost model's first few plans, and cuBLASLt's first few
// heuristic algorithms), then time ours, cublasGemmEx, cuBLASLt top-1 and
// cuBLASLt autotuned interleaved. One JSON object per line to --out.
// --pingpong adds ping-pong plans (not offered by the cost model yet) to
// the candidates and times the best ping-pong and the best other plan in
// the final interleaved rounds too ("ours_pp", "ours_nopp"): an A/B.
// --inputs binary fills A and B with random {0, 1} instead of N(0, 1), the
// inputs some published GEMM results were measured with: the same kernels
// then draw less power, so it shows how much the data moves the clocks.
// --pdl off (the default, the headline method) launches our kernels without
// programmatic dependent launch, so consecutive calls in a timed graph are
// joined by full-completion edges as cuBLAS's are; --pdl on lets our next
// call's prologue overlap (issue 16: worth ~3 %). Recorded as "pdl".
// --lt N: cuBLASLt's first N heuristic algorithms are checked and timed;
// the autotuned baseline is the fastest of them (default 100, i.e. every
// candidate the heuristic returns, as the seed paper's baseline).
// --host-reps R: a second, host-inclusive latency per method ("host_us"),
// timed as a user's loop would: the host clock around R calls, each
// followed by cudaStreamSynchronize, median per call, L2 not flushed; the
// CPU is named in "host_cpu".
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using namespace bench;

namespace {

constexpr size_t GuardBytes = 4096;
constexpr double Tolerance = 1e-2;

struct Options {
  std::string ShapesFile, OutFile = "gemm-results.jsonl";
  std::vector<std::string> Types{"f16"}, Layouts{"col"};
  int Rounds = 20, TuneRounds = 3, Ours = 4, Lt = 100, Limit = 1 << 30;
  int HostReps = 50;          // --host-reps: host-inclusive latency samples
  bool Pdl = false;           // --pdl on: programmatic dependent launch
  double ArenaGiB = 8;
  std::vector<cudaoptGemmPlan> Extra; // --extra Kernel/Group/RasterN/Splits,...
  bool Special = false;
  bool Clusters = true;       // --no-clusters: no multicast-pair candidates
  bool PingPong = false;      // --pingpong: A/B of the ping-pong schedule
  bool BinaryInputs = false;  // --inputs binary: A, B in {0, 1}
  std::set<std::string> Tags; // empty: every shape
};

struct Shape {
  int M, N, K;
  std::string Tag;
};

/// The CPU model from /proc/cpuinfo (the host-inclusive column depends on
/// it), quotes and backslashes dropped for the JSON.
std::string hostCpu() {
  static const std::string Name = [] {
    std::ifstream In("/proc/cpuinfo");
    std::string Line;
    while (std::getline(In, Line))
      if (Line.rfind("model name", 0) == 0) {
        std::string V = Line.substr(Line.find(':') + 1);
        V.erase(0, V.find_first_not_of(' '));
        std::string Clean;
        for (char C : V)
          if (C != '"' && C != '\\')
            Clean += C;
        return Clean;
      }
    return std::string("unknown");
  }();
  return Name;
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  std::stringstream In(S);
  std::string Item;
  while (std::getline(In, Item, ','))
    Out.push_back(Item);
  return Out;
}

size_t roundUp(size_t X) { return (X + 1023) / 1024 * 1024; }

/// Device memory carved into operand sets per shape.
class Arena {
public:
  explicit Arena(size_t Bytes) : Size(Bytes) {
    BENCH_CHECK(cudaMalloc(&Base, Size));
  }
  ~Arena() { cudaFree(Base); }
  size_t size() const { return Size; }
  char *base() const { return static_cast<char *>(Base); }

private:
  void *Base;
  size_t Size;
};

const char *typeName(cudaoptGemmType T) {
  return T == CUDAOPT_GEMM_BF16 ? "bf16" : "f16";
}
const char *layoutName(cudaoptGemmBLayout L) {
  return L == CUDAOPT_GEMM_B_ROW ? "row" : "col";
}

/// The register-direct mma.sync kernels: no raster order, only K splits.
bool isMmaSync(const cudaoptGemmPlan &P) {
  const char *Name = cudaoptGemmKernelName(P.Kernel);
  return Name && std::strstr(Name, "_sync") != nullptr;
}

/// A swapped narrow tile (runtime Sm90Configs.h): C^T = B^T A^T; its
/// kernel name starts with "swap".
bool isSwapped(const cudaoptGemmPlan &P) {
  const char *Name = cudaoptGemmKernelName(P.Kernel);
  return Name && std::strncmp(Name, "swap", 4) == 0;
}

/// "name/gG/rR/kS" plus, where set, "/d" (two accumulator sets), "/m2"
/// or "/n2" (multicast cluster), "/c" (the K splits form a cluster) and
/// "/p" (ping-pong consumers).
std::string planName(const cudaoptGemmPlan &P) {
  std::ostringstream S;
  S << cudaoptGemmKernelName(P.Kernel) << "/g" << P.Group << "/r" << P.RasterN
    << "/k" << P.Splits;
  if (P.DualAcc)
    S << "/d";
  if (P.ClusterM > 1)
    S << "/m" << P.ClusterM;
  if (P.ClusterN > 1)
    S << "/n" << P.ClusterN;
  if (P.SplitCluster && P.Splits > 1)
    S << "/c";
  if (P.PingPong)
    S << "/p";
  return S.str();
}

/// Output tiles of a plan's configuration ("BMxBNx64_..." names), 0 if
/// the name does not say.
long long tilesOf(const cudaoptGemmPlan &P, const Shape &S) {
  const char *Name = cudaoptGemmKernelName(P.Kernel);
  int BM = 0, BN = 0;
  if (!Name || std::sscanf(Name, "%dx%dx", &BM, &BN) != 2 || BM < 1 || BN < 1)
    return 0;
  return (long long)((S.M + BM - 1) / BM) * ((S.N + BN - 1) / BN);
}

bool samePlan(const cudaoptGemmPlan &A, const cudaoptGemmPlan &B) {
  auto Norm = [](int X) { return X < 1 ? 1 : X; };
  return A.Kernel == B.Kernel && A.Group == B.Group && A.RasterN == B.RasterN &&
         A.Splits == B.Splits && A.DualAcc == B.DualAcc &&
         Norm(A.ClusterM) == Norm(B.ClusterM) &&
         Norm(A.ClusterN) == Norm(B.ClusterN) &&
         (A.SplitCluster && A.Splits > 1) == (B.SplitCluster && B.Splits > 1) &&
         (A.PingPong != 0) == (B.PingPong != 0);
}

void jsonStats(std::ostream &O, const char *Name, const Stats &S, double Flop) {
  O << "\"" << Name << "\":{\"ms\":" << S.Median << ",\"p10\":" << S.P10
    << ",\"p90\":" << S.P90 << ",\"min\":" << S.Min << ",\"max\":" << S.Max
    << ",\"n\":" << S.Samples
    << ",\"tflops\":" << (S.Median > 0 ? Flop / (S.Median * 1e-3) / 1e12 : 0)
    << "}";
}

/// Everything needed to check outputs of one shape on operand set 0.
struct Checker {
  const ShapeBuffers *Buf;
  int *RowsDev = nullptr;
  float *Ref = nullptr;
  int NumRows = 0;
  cudaStream_t Stream;

  Checker(const ShapeBuffers &B, float *RefBuf, size_t RefBytes, int *RowBuf,
          cudaStream_t S)
      : Buf(&B), RowsDev(RowBuf), Ref(RefBuf), Stream(S) {
    // Work and memory caps decide how many rows of C the reference covers.
    double Work = double(B.N) * B.K;
    long long ByWork = static_cast<long long>(4.0e9 / Work);
    long long ByMem = static_cast<long long>(RefBytes / (4.0 * B.N));
    NumRows = static_cast<int>(
        std::max<long long>(1, std::min<long long>({B.M, ByWork, ByMem})));
    std::vector<int> Rows(NumRows);
    for (int I = 0; I < NumRows; ++I)
      Rows[I] =
          NumRows == 1
              ? B.M - 1
              : static_cast<int>((long long)I * (B.M - 1) / (NumRows - 1));
    BENCH_CHECK(cudaMemcpy(RowsDev, Rows.data(), NumRows * sizeof(int),
                           cudaMemcpyHostToDevice));
    referenceRows(B.problem(0), RowsDev, NumRows, Ref, S);
    BENCH_CHECK(cudaStreamSynchronize(S));
  }

  /// Poisons C of set 0, runs E on it and compares. Returns the relative
  /// error (inf when the run failed, wrote NaN/Inf, left an element
  /// unwritten, or touched a guard band).
  double check(const Enqueue &E, const void *Cold = nullptr, float Alpha = 1.0f,
               float Beta = 0.0f) {
    const Operands &O = Buf->Sets[0];
    size_t CBytes = size_t(Buf->M) * Buf->N * 2;
    if (Cold)
      BENCH_CHECK(
          cudaMemcpyAsync(O.C, Cold, CBytes, cudaMemcpyDeviceToDevice, Stream));
    else
      BENCH_CHECK(cudaMemsetAsync(O.C, 0xFF, CBytes, Stream));
    bool Ok = E(Stream, 0);
    cudaError_t Err = cudaStreamSynchronize(Stream);
    if (Err != cudaSuccess) {
      std::fprintf(stderr, "run failed: %s\n", cudaGetErrorString(Err));
      std::exit(3); // the context is gone; the driver script restarts
    }
    if (!Ok)
      return INFINITY; // the plan cannot run this problem
    cudaoptGemmProblem P = Buf->problem(0, Alpha, Beta);
    const char *C = static_cast<const char *>(O.C);
    CompareResult R =
        compareRows(P, RowsDev, NumRows, Ref, Cold, C - Buf->GuardBytes,
                    C + roundUp(CBytes), Buf->GuardBytes, Stream);
    return R.relErr();
  }
};

struct Candidate {
  std::string Name;
  Enqueue Run;
  double RelErr = INFINITY;
  cudaGraphExec_t Graph = nullptr;
  Stats Time;
};

class Bench {
public:
  Bench(const Options &O)
      : Opt(O), Ar(static_cast<size_t>(O.ArenaGiB * (1ull << 30))) {
    BENCH_CHECK(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
    Base = new Baselines(Stream);
    Tm = new Timer(Stream, 256u << 20);
    RefBytes = 64u << 20;
    BENCH_CHECK(cudaMalloc(&Ref, RefBytes));
    BENCH_CHECK(cudaMalloc(&Rows, 1 << 20));
    WsBytes = 512u << 20;
    BENCH_CHECK(cudaMalloc(&Ws, WsBytes));
    BENCH_CHECK(cudaMemset(Ws, 0, WsBytes));
    BENCH_CHECK(cudaMalloc(&Cold, 64u << 20));
  }

  /// Lays out Sets operand sets of a shape in the arena and fills them.
  ShapeBuffers layout(const Shape &S, cudaoptGemmType T, cudaoptGemmBLayout L,
                      int Sets, bool Uniform = false) {
    ShapeBuffers B;
    B.M = S.M;
    B.N = S.N;
    B.K = S.K;
    B.Type = T;
    B.Layout = L;
    B.GuardBytes = GuardBytes;
    size_t A = roundUp(size_t(S.M) * S.K * 2),
           Bb = roundUp(size_t(S.K) * S.N * 2),
           C = roundUp(size_t(S.M) * S.N * 2) + 2 * GuardBytes;
    char *P = Ar.base();
    bool Bf16 = T == CUDAOPT_GEMM_BF16;
    for (int I = 0; I < Sets; ++I) {
      Operands O;
      O.A = P;
      O.B = P + A;
      O.C = P + A + Bb + GuardBytes;
      P += A + Bb + C;
      unsigned long long Seed = Counter++ * 1000003ull;
      if (Uniform) {
        fillUniform(O.A, size_t(S.M) * S.K, Bf16, Seed, 2.0f, 4.0f, Stream);
        fillUniform(O.B, size_t(S.K) * S.N, Bf16, Seed + 1, 2.0f, 4.0f, Stream);
      } else if (Opt.BinaryInputs) {
        fillBinary(O.A, size_t(S.M) * S.K, Bf16, Seed, Stream);
        fillBinary(O.B, size_t(S.K) * S.N, Bf16, Seed + 1, Stream);
      } else {
        fillNormal(O.A, size_t(S.M) * S.K, Bf16, Seed, 0.0f, 1.0f, Stream);
        fillNormal(O.B, size_t(S.K) * S.N, Bf16, Seed + 1, 0.0f, 1.0f, Stream);
      }
      BENCH_CHECK(cudaMemsetAsync(static_cast<char *>(O.C) - GuardBytes, 0xA5,
                                  C, Stream));
      B.Sets.push_back(O);
    }
    BENCH_CHECK(cudaStreamSynchronize(Stream));
    return B;
  }

  int setsFor(const Shape &S) const {
    double Flop = 2.0 * S.M * S.N * S.K;
    double Bytes =
        2.0 * (double(S.M) * S.K + double(S.K) * S.N + double(S.M) * S.N);
    double Est = std::max(Flop / 600e12, Bytes / 3e12) + 3e-6;
    int R = static_cast<int>(std::ceil(100e-6 / Est));
    R = std::clamp(R, 1, 64);
    size_t Set = roundUp(Bytes / 2 * 2) + 4 * GuardBytes + 3 * 1024;
    return std::max(1, std::min<int>(R, Ar.size() / Set));
  }

  Enqueue ours(const ShapeBuffers &B, cudaoptGemmPlan Plan) {
    return [this, &B, Plan](cudaStream_t S, int Set) {
      cudaoptGemmProblem P = B.problem(Set);
      return cudaoptGemmRun(&P, &Plan, Ws, WsBytes, S) == cudaSuccess;
    };
  }
  Enqueue cublas(const ShapeBuffers &B) {
    return [this, &B](cudaStream_t S, int Set) {
      return Base->gemmEx(B.problem(Set), S);
    };
  }
  Enqueue lt(const ShapeBuffers &B, int Algo) {
    return [this, &B, Algo](cudaStream_t S, int Set) {
      return Base->lt(B.problem(Set), Algo, S);
    };
  }

  /// Checks, builds graphs for and times the candidates; returns the index
  /// of the best correct one (-1 if none).
  int tune(std::vector<Candidate> &Cands, Checker &Chk, int Sets, int Calls) {
    std::vector<cudaGraphExec_t> Graphs;
    std::vector<int> Index;
    for (size_t I = 0; I < Cands.size(); ++I) {
      Cands[I].RelErr = Chk.check(Cands[I].Run);
      if (!(Cands[I].RelErr <= Tolerance))
        continue;
      if (!Tm->build(Cands[I].Run, Calls, Sets, &Cands[I].Graph))
        continue;
      Graphs.push_back(Cands[I].Graph);
      Index.push_back(static_cast<int>(I));
    }
    if (Graphs.empty())
      return -1;
    if (Graphs.size() == 1) {
      Cands[Index[0]].Time.Median = 0;
      return Index[0];
    }
    std::vector<Stats> T = Tm->run(Graphs, Calls, Opt.TuneRounds);
    int Best = -1;
    for (size_t I = 0; I < T.size(); ++I) {
      Cands[Index[I]].Time = T[I];
      if (Best < 0 || T[I].Median < Cands[Best].Time.Median)
        Best = Index[I];
    }
    return Best;
  }

  /// Host-inclusive latency of one method in microseconds: the host clock
  /// around each call and the synchronisation after it, median of
  /// Opt.HostReps calls after 3 warm-ups, the operand sets rotated.
  double hostMicros(const Enqueue &Run, int Sets) {
    if (Opt.HostReps <= 0)
      return 0;
    std::vector<double> T;
    for (int I = -3; I < Opt.HostReps; ++I) {
      auto T0 = std::chrono::steady_clock::now();
      if (!Run(Stream, (I + 3) % Sets) ||
          cudaStreamSynchronize(Stream) != cudaSuccess)
        return -1;
      auto T1 = std::chrono::steady_clock::now();
      if (I >= 0)
        T.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count());
    }
    std::nth_element(T.begin(), T.begin() + T.size() / 2, T.end());
    return T[T.size() / 2];
  }

  void release(std::vector<Candidate> &Cands) {
    for (Candidate &C : Cands)
      if (C.Graph)
        cudaGraphExecDestroy(C.Graph);
    Cands.clear();
  }

  void shape(const Shape &S, cudaoptGemmType T, cudaoptGemmBLayout L,
             std::ostream &Out) {
    int Sets = setsFor(S);
    ShapeBuffers B = layout(S, T, L, Sets);
    Checker Chk(B, Ref, RefBytes, Rows, Stream);
    double Flop = 2.0 * S.M * S.N * S.K;

    // Our family: the model's first plans, plus the first one rastered the
    // other way and with raster groups of 4 and 16 tiles.
    cudaoptGemmProblem P0 = B.problem(0);
    std::vector<cudaoptGemmPlan> Plans(Opt.Ours);
    Plans.resize(cudaoptGemmCandidates(&P0, Plans.data(), Opt.Ours));
    auto Has = [&](const cudaoptGemmPlan &Q) {
      for (const cudaoptGemmPlan &X : Plans)
        if (samePlan(X, Q))
          return true;
      return false;
    };
    auto AddValid = [&](const cudaoptGemmPlan &V) {
      if (!Has(V) && cudaoptGemmPlanValid(&P0, &V))
        Plans.push_back(V);
    };
    if (!Plans.empty() && isMmaSync(Plans[0])) {
      // No raster order to vary: try the neighbouring K splits instead.
      for (int F : {2, -2}) {
        cudaoptGemmPlan V = Plans[0];
        V.Splits = F > 0 ? V.Splits * F : std::max(1, V.Splits / -F);
        if (!Has(V))
          Plans.push_back(V);
      }
    } else if (!Plans.empty()) {
      cudaoptGemmPlan First = Plans[0];
      cudaoptGemmPlan Flip = First, G4 = First, G16 = First;
      Flip.RasterN ^= 1;
      G4.Group = 4;
      G16.Group = 16;
      Plans.push_back(Flip);
      Plans.push_back(G4);
      Plans.push_back(G16);
      // A split plan: also its neighbouring split counts and no split.
      for (int F : {2, -2, 0}) {
        cudaoptGemmPlan V = First;
        V.Splits = F > 0    ? V.Splits * F
                   : F == 0 ? 1
                            : std::max(1, V.Splits / -F);
        if (First.Splits > 1)
          AddValid(V);
      }
      // The other accumulator schedule, the other split mechanism
      // (workspace atomics or a cluster with DSMEM), and for problems that
      // fill the GPU the multicast pairs along M and along N.
      cudaoptGemmPlan Dual = First;
      Dual.DualAcc ^= 1;
      AddValid(Dual);
      if (First.Splits > 1) {
        cudaoptGemmPlan Other = First;
        Other.SplitCluster ^= 1;
        if (Other.SplitCluster)
          Other.Splits = std::min(Other.Splits, 8);
        AddValid(Other);
      } else if (Opt.Clusters && tilesOf(First, S) >= 32) {
        // Enough tiles to pair up: where many SMs pull operand tiles at
        // once, multicast halves the L2 -> SM traffic of the shared one.
        for (int D = 0; D < 2; ++D) {
          cudaoptGemmPlan V = First;
          (D ? V.ClusterN : V.ClusterM) = 2;
          AddValid(V);
        }
      }
    } else {
      Plans.push_back({-1, 1, 0, 1});
    }
    // The plan the current tuned table holds for this shape, and its other
    // accumulator schedule: re-tuning never loses what the table had.
    cudaoptGemmPlan Tabled;
    const bool HasTabled = cudaoptGemmSelect(&P0, &Tabled) == 1;
    if (HasTabled) {
      cudaoptGemmPlan Other = Tabled;
      AddValid(Tabled);
      Other.DualAcc ^= 1;
      AddValid(Other);
    }
    // --pingpong (the cost model does not offer it yet): the ping-pong
    // form of the first and of the tabled plan, and every configuration
    // that has it at raster groups of 8, 16 and 32 tiles (a ping-pong tile
    // has half the rows of its configuration's, so these cover the
    // cooperative plans' groups of 4-16).
    if (Opt.PingPong) {
      auto AddPingPong = [&](cudaoptGemmPlan V) {
        V.PingPong = 1;
        AddValid(V);
      };
      if (!Plans.empty())
        AddPingPong(Plans[0]);
      if (HasTabled)
        AddPingPong(Tabled);
      for (int Id = 0; Id < cudaoptGemmNumKernels(); ++Id)
        for (int G : {8, 16, 32})
          AddPingPong({Id, G, 0, 1});
    }
    for (const cudaoptGemmPlan &Pl : Opt.Extra)
      Plans.push_back(Pl);
    std::vector<Candidate> Ours;
    for (const cudaoptGemmPlan &Pl : Plans)
      Ours.push_back({planName(Pl), ours(B, Pl)});
    int BestOurs = tune(Ours, Chk, Sets, Sets);

    std::vector<Candidate> Lts;
    int NumLt = Base->ltPrepare(P0, Opt.Lt);
    for (int I = 0; I < NumLt; ++I)
      Lts.push_back({"lt" + std::to_string(I), lt(B, I)});
    int BestLt = tune(Lts, Chk, Sets, Sets);

    std::vector<Candidate> Final;
    Final.push_back({"cublas", cublas(B)});
    Final.back().RelErr = Chk.check(Final.back().Run);
    bool CublasOk = Final.back().RelErr <= Tolerance;
    std::vector<cudaGraphExec_t> Graphs;
    std::vector<std::string> Names;
    auto Add = [&](const char *Name, Candidate *C) {
      if (!C || !C->Graph)
        return;
      Graphs.push_back(C->Graph);
      Names.push_back(Name);
    };
    Tm->build(Final[0].Run, Sets, Sets, &Final[0].Graph);
    Add("ours", BestOurs >= 0 ? &Ours[BestOurs] : nullptr);
    Add("cublas", &Final[0]);
    Add("lt", NumLt > 0 && Lts[0].Graph ? &Lts[0] : nullptr);
    Add("lt_auto", BestLt >= 0 ? &Lts[BestLt] : nullptr);
    // The A/B of --pingpong: the best ping-pong plan and the best other
    // plan of the tuning rounds, timed again in the interleaved rounds.
    int BestPp = -1, BestNoPp = -1;
    if (Opt.PingPong) {
      for (size_t I = 0; I < Ours.size(); ++I) {
        if (!Ours[I].Graph)
          continue;
        int &Best = Plans[I].PingPong ? BestPp : BestNoPp;
        if (Best < 0 || Ours[I].Time.Median < Ours[Best].Time.Median)
          Best = static_cast<int>(I);
      }
      Add("ours_pp", BestPp >= 0 ? &Ours[BestPp] : nullptr);
      Add("ours_nopp", BestNoPp >= 0 ? &Ours[BestNoPp] : nullptr);
    }
    std::vector<Stats> Times = Tm->run(Graphs, Sets, Opt.Rounds);
    // The second column: host-inclusive latency of the same methods.
    std::vector<std::pair<std::string, double>> Host;
    if (BestOurs >= 0)
      Host.push_back({"ours", hostMicros(Ours[BestOurs].Run, Sets)});
    if (CublasOk)
      Host.push_back({"cublas", hostMicros(Final[0].Run, Sets)});
    if (BestLt >= 0)
      Host.push_back({"lt_auto", hostMicros(Lts[BestLt].Run, Sets)});

    std::ostringstream J;
    J.precision(6);
    J << "{\"M\":" << S.M << ",\"N\":" << S.N << ",\"K\":" << S.K
      << ",\"tag\":\"" << S.Tag << "\",\"type\":\"" << typeName(T)
      << "\",\"layout\":\"" << layoutName(L) << "\",\"flop\":" << Flop
      << ",\"inputs\":\"" << (Opt.BinaryInputs ? "binary" : "normal")
      << "\",\"pdl\":" << (Opt.Pdl ? "true" : "false")
      << ",\"lt_max\":" << Opt.Lt << ",\"host_cpu\":\"" << hostCpu()
      << "\",\"calls_per_sample\":" << Sets << ",\"check_rows\":" << Chk.NumRows
      << ",\"ours_plan\":\""
      << (BestOurs >= 0 ? Ours[BestOurs].Name : std::string("none"))
      << "\",\"ours_plan_index\":" << BestOurs
      << ",\"lt_auto_index\":" << BestLt;
    if (Opt.PingPong)
      J << ",\"ours_pp_plan\":\""
        << (BestPp >= 0 ? Ours[BestPp].Name : std::string("none"))
        << "\",\"ours_nopp_plan\":\""
        << (BestNoPp >= 0 ? Ours[BestNoPp].Name : std::string("none")) << "\"";
    J << ",\"cublas_relerr\":" << (CublasOk ? Final[0].RelErr : -1.0)
      << ",\"candidates\":[";
    for (size_t I = 0; I < Ours.size(); ++I)
      J << (I ? "," : "") << "{\"plan\":\"" << Ours[I].Name << "\",\"relerr\":"
        << (std::isfinite(Ours[I].RelErr) ? Ours[I].RelErr : -1.0)
        << ",\"ms\":" << Ours[I].Time.Median << "}";
    J << "],\"lt_candidates\":[";
    for (size_t I = 0; I < Lts.size(); ++I)
      J << (I ? "," : "") << "{\"relerr\":"
        << (std::isfinite(Lts[I].RelErr) ? Lts[I].RelErr : -1.0)
        << ",\"ms\":" << Lts[I].Time.Median << "}";
    J << "]";
    for (size_t I = 0; I < Times.size(); ++I) {
      J << ",";
      jsonStats(J, Names[I].c_str(), Times[I], Flop);
    }
    J << ",\"host_us\":{";
    for (size_t I = 0; I < Host.size(); ++I)
      J << (I ? "," : "") << "\"" << Host[I].first << "\":" << Host[I].second;
    J << "}}";
    Out << J.str() << std::endl;
    double OursMs = 0, CbMs = 0;
    for (size_t I = 0; I < Times.size(); ++I) {
      if (Names[I] == "ours")
        OursMs = Times[I].Median;
      if (Names[I] == "cublas")
        CbMs = Times[I].Median;
    }
    std::printf("%-5s %-3s %6d %6d %6d  ours %8.4f ms (%6.1f TF)  cublas %8.4f "
                "ms (%6.1f TF)  x%.3f  %s\n",
                typeName(T), layoutName(L), S.M, S.N, S.K, OursMs,
                OursMs > 0 ? Flop / OursMs / 1e9 : 0, CbMs,
                CbMs > 0 ? Flop / CbMs / 1e9 : 0,
                OursMs > 0 ? CbMs / OursMs : 0,
                BestOurs >= 0 ? Ours[BestOurs].Name.c_str() : "NONE");
    if (Opt.PingPong) {
      double PpMs = 0, NoPpMs = 0;
      for (size_t I = 0; I < Times.size(); ++I) {
        if (Names[I] == "ours_pp")
          PpMs = Times[I].Median;
        if (Names[I] == "ours_nopp")
          NoPpMs = Times[I].Median;
      }
      std::printf("      ping-pong %8.4f ms (%6.1f TF) %s  vs  %8.4f ms (%6.1f "
                  "TF) %s  x%.3f\n",
                  PpMs, PpMs > 0 ? Flop / PpMs / 1e9 : 0,
                  BestPp >= 0 ? Ours[BestPp].Name.c_str() : "NONE", NoPpMs,
                  NoPpMs > 0 ? Flop / NoPpMs / 1e9 : 0,
                  BestNoPp >= 0 ? Ours[BestNoPp].Name.c_str() : "NONE",
                  PpMs > 0 ? NoPpMs / PpMs : 0);
    }
    std::fflush(stdout);
    release(Ours);
    release(Lts);
    release(Final);
  }

  /// Correctness of every configuration (splits 1 and 3, alpha/beta) on an
  /// awkward shape, the fp32-accumulation test and the fallback.
  void special(std::ostream &Out) {
    int Failures = 0;
    auto Report = [&](const std::string &What, double Err, bool WantPass) {
      bool Pass = Err <= Tolerance;
      bool Good = Pass == WantPass;
      Failures += !Good;
      std::printf("special %-58s relerr %.3e  %s\n", What.c_str(), Err,
                  Good ? "ok" : "FAIL");
      std::fflush(stdout); // a hang or crash keeps what was checked
      Out << "{\"special\":\"" << What
          << "\",\"relerr\":" << (std::isfinite(Err) ? Err : -1.0)
          << ",\"expect_pass\":" << (WantPass ? "true" : "false")
          << ",\"ok\":" << (Good ? "true" : "false") << "}" << std::endl;
    };
    for (cudaoptGemmType T : {CUDAOPT_GEMM_F16, CUDAOPT_GEMM_BF16})
      for (cudaoptGemmBLayout L : {CUDAOPT_GEMM_B_COL, CUDAOPT_GEMM_B_ROW}) {
        Shape S{333, 776, 1000, "special"};
        ShapeBuffers B = layout(S, T, L, 1);
        Checker Chk(B, Ref, RefBytes, Rows, Stream);
        fillNormal(Cold, size_t(S.M) * S.N, T == CUDAOPT_GEMM_BF16, 77, 0, 1,
                   Stream);
        // Per configuration: no split, 3 workspace splits, 3 and 8 cluster
        // splits, each with one and two accumulator sets; the multicast
        // pairs along M and N (333 rows: an odd number of 128-row tiles, so
        // one pair has a CTA wholly outside C); ping-pong consumers (few
        // tiles here: one per CTA, partial in M, N and K).
        struct Variant {
          int Splits, Cluster, Dual, CM, CN, PingPong;
        };
        const Variant Variants[] = {{1, 0, 0, 1, 1, 0}, {3, 0, 0, 1, 1, 0},
                                    {1, 0, 1, 1, 1, 0}, {3, 0, 1, 1, 1, 0},
                                    {3, 1, 0, 1, 1, 0}, {8, 1, 1, 1, 1, 0},
                                    {1, 0, 0, 2, 1, 0}, {1, 0, 0, 1, 2, 0},
                                    {1, 0, 1, 2, 1, 0}, {1, 0, 0, 1, 1, 1}};
        for (int Id = -1; Id < cudaoptGemmNumKernels(); ++Id)
          for (const Variant &Vr : Variants) {
            const int Splits = Vr.Splits;
            if (Id < 0 && (Splits > 1 || Vr.Dual || Vr.CM > 1 || Vr.CN > 1 ||
                           Vr.PingPong))
              continue;
            cudaoptGemmPlan Pl{Id, 3, Splits == 3, Splits};
            Pl.PingPong = Vr.PingPong;
            Pl.SplitCluster = Vr.Cluster;
            Pl.DualAcc = Vr.Dual;
            Pl.ClusterM = Vr.CM;
            Pl.ClusterN = Vr.CN;
            cudaoptGemmProblem Probe = B.problem(0);
            if (!cudaoptGemmPlanValid(&Probe, &Pl))
              continue; // e.g. split-K is not compiled into big tiles
            Enqueue E = [&, Pl](cudaStream_t St, int) {
              cudaoptGemmProblem P = B.problem(0, 0.75f, 0.5f);
              return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) == cudaSuccess;
            };
            std::string Name = std::string(typeName(T)) + "/" + layoutName(L) +
                               " 333x776x1000 a=.75 b=.5 " + planName(Pl);
            Report(Name, Chk.check(E, Cold, 0.75f, 0.5f), true);
            if (Id < 0)
              continue;
            // beta = 0: the TMA-store epilogue (clipped at C's edges).
            Enqueue E0 = [&, Pl](cudaStream_t St, int) {
              cudaoptGemmProblem P = B.problem(0);
              return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) == cudaSuccess;
            };
            Report(std::string(typeName(T)) + "/" + layoutName(L) +
                       " 333x776x1000 b=0 " + planName(Pl),
                   Chk.check(E0), true);
          }
      }
    // Ping-pong consumers with several tiles per CTA: 2333 x 2776 x 1000
    // has 407-814 ping-pong tiles (37 or 19 along M, partial; 11 or 22
    // along N, partial; a partial K block), so on 132 SMs each CTA runs 3-7
    // of them, alternating between its consumers, with odd and even counts
    // per CTA (consumer 1 idle on the last turn of an odd one); raster
    // along M and along N; alpha/beta (direct stores) and beta = 0 (TMA
    // stores).
    for (cudaoptGemmType T : {CUDAOPT_GEMM_F16, CUDAOPT_GEMM_BF16})
      for (cudaoptGemmBLayout L : {CUDAOPT_GEMM_B_COL, CUDAOPT_GEMM_B_ROW}) {
        Shape S{2333, 2776, 1000, "special"};
        ShapeBuffers B = layout(S, T, L, 1);
        Checker Chk(B, Ref, RefBytes, Rows, Stream);
        fillNormal(Cold, size_t(S.M) * S.N, T == CUDAOPT_GEMM_BF16, 79, 0, 1,
                   Stream);
        for (int Id = 0; Id < cudaoptGemmNumKernels(); ++Id)
          for (int RasterN = 0; RasterN < 2; ++RasterN) {
            cudaoptGemmPlan Pl{Id, RasterN ? 2 : 3, RasterN, 1};
            Pl.PingPong = 1;
            cudaoptGemmProblem Probe = B.problem(0);
            if (!cudaoptGemmPlanValid(&Probe, &Pl))
              continue; // compiled for the large two-consumer tiles only
            const std::string Name = std::string(typeName(T)) + "/" +
                                     layoutName(L) + " 2333x2776x1000 ";
            Report(Name + "a=.75 b=.5 " + planName(Pl),
                   Chk.check(
                       [&, Pl](cudaStream_t St, int) {
                         cudaoptGemmProblem P = B.problem(0, 0.75f, 0.5f);
                         return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) ==
                                cudaSuccess;
                       },
                       Cold, 0.75f, 0.5f),
                   true);
            Report(Name + "b=0 " + planName(Pl),
                   Chk.check([&, Pl](cudaStream_t St, int) {
                     cudaoptGemmProblem P = B.problem(0);
                     return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) ==
                            cudaSuccess;
                   }),
                   true);
          }
      }
    // The mma.sync kernels and the swapped narrow tiles: M = 1, 7, 16 (rows
    // of the mma left empty; odd M: scalar split-K atomics) and 100
    // (partial 64-row tile, several 16-row tiles), a partial 64-column
    // group (N = 776; 128-row swapped tiles: 7, the last partial), a partial
    // K chunk (K = 1000), K splits 1, 3, 8 (the swapped tiles also as
    // cluster splits), alpha/beta and beta = 0.
    for (cudaoptGemmType T : {CUDAOPT_GEMM_F16, CUDAOPT_GEMM_BF16})
      for (cudaoptGemmBLayout L : {CUDAOPT_GEMM_B_COL, CUDAOPT_GEMM_B_ROW})
        for (int M : {1, 7, 16, 100}) {
          Shape S{M, 776, 1000, "special"};
          ShapeBuffers B = layout(S, T, L, 1);
          Checker Chk(B, Ref, RefBytes, Rows, Stream);
          fillNormal(Cold, size_t(S.M) * S.N, T == CUDAOPT_GEMM_BF16, 78, 0, 1,
                     Stream);
          for (int Id = 0; Id < cudaoptGemmNumKernels(); ++Id)
            for (int Splits : {1, 3, 8})
              for (int Cluster : {0, 1}) {
                cudaoptGemmPlan Pl{Id, 1, 0, Splits};
                Pl.SplitCluster = Cluster;
                cudaoptGemmProblem Probe = B.problem(0);
                const bool Swap = isSwapped(Pl);
                if ((!isMmaSync(Pl) && !Swap) || (Cluster && !Swap) ||
                    (Cluster && Splits == 1) ||
                    !cudaoptGemmPlanValid(&Probe, &Pl))
                  continue;
                Enqueue E = [&, Pl](cudaStream_t St, int) {
                  cudaoptGemmProblem P = B.problem(0, 0.75f, 0.5f);
                  return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) ==
                         cudaSuccess;
                };
                std::string Name = std::string(typeName(T)) + "/" +
                                   layoutName(L) + " " + std::to_string(M) +
                                   "x776x1000 a=.75 b=.5 " + planName(Pl);
                Report(Name, Chk.check(E, Cold, 0.75f, 0.5f), true);
                if (!Swap)
                  continue;
                Report(std::string(typeName(T)) + "/" + layoutName(L) + " " +
                           std::to_string(M) + "x776x1000 b=0 " + planName(Pl),
                       Chk.check([&, Pl](cudaStream_t St, int) {
                         cudaoptGemmProblem P = B.problem(0);
                         return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) ==
                                cudaSuccess;
                       }),
                       true);
              }
        }
    // fp32 accumulation: K = 16384 products of U(2, 4) values sum to ~147000,
    // past the fp16 maximum (65504), so an fp16 accumulator overflows;
    // alpha = 1/64 brings C back into fp16 range. cuBLAS with
    // CUBLAS_COMPUTE_16F must fail it (the control shows the test bites).
    // M = 16 runs the same test on the skinny-M kernel's plans.
    for (int M : {256, 16})
    for (cudaoptGemmBLayout L : {CUDAOPT_GEMM_B_COL, CUDAOPT_GEMM_B_ROW}) {
      Shape S{M, 256, 16384, "fp32acc"};
      const float Alpha = 1.0f / 64;
      ShapeBuffers B = layout(S, CUDAOPT_GEMM_F16, L, 1, /*Uniform=*/true);
      Checker Chk(B, Ref, RefBytes, Rows, Stream);
      cudaoptGemmProblem P0 = B.problem(0, Alpha);
      std::vector<cudaoptGemmPlan> Plans(4);
      Plans.resize(cudaoptGemmCandidates(&P0, Plans.data(), 4));
      Plans.push_back({0, 8, 0, 1});
      for (const cudaoptGemmPlan &Pl : Plans)
        Report(std::string("fp32-accumulation M=") + std::to_string(M) +
                   " f16/" + layoutName(L) + " " + planName(Pl),
               Chk.check(
                   [&, Pl](cudaStream_t St, int) {
                     cudaoptGemmProblem P = B.problem(0, Alpha);
                     return cudaoptGemmRun(&P, &Pl, Ws, WsBytes, St) ==
                            cudaSuccess;
                   },
                   nullptr, Alpha),
               true);
      Report(std::string("fp32-accumulation M=") + std::to_string(M) +
                 " f16/" + layoutName(L) + " cuBLAS COMPUTE_16F (must fail)",
             Chk.check(
                 [&](cudaStream_t St, int) {
                   return Base->gemmEx16(B.problem(0, Alpha), St);
                 },
                 nullptr, Alpha),
             false);
    }
    // Back-to-back dependent GEMMs (programmatic dependent launch): the
    // second reads the first one's output as its A, with no host sync in
    // between; its result must equal, bit for bit, a run of the second
    // alone after a sync. The first output is poisoned (NaN) before, so a
    // read ahead of the first kernel's writes shows. Plans: an unsplit
    // big-tile one, a cluster split and a workspace split.
    {
      const int D = 2048;
      const size_t Elems = size_t(D) * D, Bytes = Elems * 2;
      char *Buf = nullptr;
      BENCH_CHECK(cudaMalloc(&Buf, 5 * Bytes));
      char *A = Buf, *B = Buf + Bytes, *C1 = Buf + 2 * Bytes,
           *C2 = Buf + 3 * Bytes, *C3 = Buf + 4 * Bytes;
      fillNormal(A, Elems, false, 91, 0, 1, Stream);
      fillNormal(B, Elems, false, 92, 0, 1, Stream);
      auto Prob = [&](const void *X, void *Y, int N, int K) {
        cudaoptGemmProblem P{};
        P.M = D;
        P.N = N;
        P.K = K;
        P.Type = CUDAOPT_GEMM_F16;
        P.LayoutB = CUDAOPT_GEMM_B_COL;
        P.A = X;
        P.Lda = K;
        P.B = B;
        P.Ldb = K;
        P.C = Y;
        P.Ldc = N;
        P.Alpha = 1.0f / 32;
        return P;
      };
      const cudaoptGemmPlan Plans[] = {{0, 8, 0, 1},
                                       {6, 8, 0, 4, 0, 0, 0, 1},
                                       {2, 8, 0, 3},
                                       {0, 8, 0, 1, 0, 0, 0, 0, 1}};
      for (const cudaoptGemmPlan &Pl2 : Plans) {
        // Second GEMM: 2048 x 256 x 2048 (few tiles: the split plans apply).
        cudaoptGemmProblem P1 = Prob(A, C1, D, D), P2 = Prob(C1, C2, 256, D),
                           P3 = Prob(C1, C3, 256, D);
        cudaoptGemmPlan Pl1{0, 8, 0, 1};
        BENCH_CHECK(cudaMemsetAsync(C1, 0xFF, Bytes, Stream));
        BENCH_CHECK(cudaStreamSynchronize(Stream));
        bool Ok =
            cudaoptGemmRun(&P1, &Pl1, Ws, WsBytes, Stream) == cudaSuccess &&
            cudaoptGemmRun(&P2, &Pl2, Ws, WsBytes, Stream) == cudaSuccess;
        BENCH_CHECK(cudaStreamSynchronize(Stream));
        Ok =
            Ok && cudaoptGemmRun(&P3, &Pl2, Ws, WsBytes, Stream) == cudaSuccess;
        BENCH_CHECK(cudaStreamSynchronize(Stream));
        std::vector<unsigned short> H2(size_t(D) * 256), H3(size_t(D) * 256);
        BENCH_CHECK(
            cudaMemcpy(H2.data(), C2, H2.size() * 2, cudaMemcpyDeviceToHost));
        BENCH_CHECK(
            cudaMemcpy(H3.data(), C3, H3.size() * 2, cudaMemcpyDeviceToHost));
        // Equal up to the order of the workspace split's fp32 atomics; any
        // read of the poisoned C1 would show as NaN.
        double Err = 0, Ref = 0;
        bool Finite = Ok;
        for (size_t I = 0; I < H2.size(); ++I) {
          float X = __half2float(__ushort_as_half(H2[I]));
          float Y = __half2float(__ushort_as_half(H3[I]));
          Finite = Finite && std::isfinite(X) && std::isfinite(Y);
          Err += double(X - Y) * (X - Y);
          Ref += double(Y) * Y;
        }
        Report("back-to-back dependent GEMMs, second " + planName(Pl2),
               Finite && Ref > 0 ? std::sqrt(Err / Ref) : INFINITY, true);
      }
      cudaFree(Buf);
    }
    // Odd leading dimension: the dispatcher must take the fallback.
    {
      Shape S{333, 777, 1111, "fallback"};
      ShapeBuffers B = layout(S, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_COL, 1);
      Checker Chk(B, Ref, RefBytes, Rows, Stream);
      Report("dispatch 333x777x1111 f16/col (fallback)",
             Chk.check([&](cudaStream_t St, int) {
               cudaoptGemmProblem P = B.problem(0);
               return cudaoptGemm(&P, nullptr, 0, St) == cudaSuccess;
             }),
             true);
    }
    std::printf("special tests: %d failure(s)\n", Failures);
    // What bounds cluster plans: clusters that fit at once, per size.
    for (int Id = 0; Id < cudaoptGemmNumKernels(); ++Id) {
      if (isMmaSync(cudaoptGemmPlan{Id, 1, 0, 1}))
        continue;
      std::printf("max active clusters %-18s", cudaoptGemmKernelName(Id));
      for (int Size = 1; Size <= 8; ++Size)
        std::printf(" %d:%d", Size, cudaoptGemmMaxActiveClusters(Id, Size));
      std::printf("\n");
    }
  }

private:
  Options Opt;
  Arena Ar;
  cudaStream_t Stream;
  Baselines *Base;
  Timer *Tm;
  float *Ref;
  size_t RefBytes;
  int *Rows;
  void *Ws;
  size_t WsBytes;
  void *Cold;
  unsigned long long Counter = 1;
};

/// "M N K type layout" of a result line written by Bench::shape.
std::string keyOf(const std::string &Line) {
  auto Field = [&](const char *Name) {
    std::string Pat = std::string("\"") + Name + "\":";
    size_t At = Line.find(Pat);
    if (At == std::string::npos)
      return std::string();
    At += Pat.size();
    if (Line[At] == '"')
      return Line.substr(At + 1, Line.find('"', At + 1) - At - 1);
    return Line.substr(At, Line.find_first_of(",}", At) - At);
  };
  return Field("M") + " " + Field("N") + " " + Field("K") + " " +
         Field("type") + " " + Field("layout");
}

bool parse(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= Argc) {
        std::fprintf(stderr, "missing value for %s\n", A.c_str());
        std::exit(1);
      }
      return Argv[++I];
    };
    if (A == "--shapes")
      O.ShapesFile = Next();
    else if (A == "--out")
      O.OutFile = Next();
    else if (A == "--types")
      O.Types = splitList(Next());
    else if (A == "--layouts")
      O.Layouts = splitList(Next());
    else if (A == "--rounds")
      O.Rounds = std::stoi(Next());
    else if (A == "--tune-rounds")
      O.TuneRounds = std::stoi(Next());
    else if (A == "--ours")
      O.Ours = std::stoi(Next());
    else if (A == "--lt")
      O.Lt = std::stoi(Next());
    else if (A == "--host-reps")
      O.HostReps = std::stoi(Next());
    else if (A == "--pdl") {
      std::string V = Next();
      if (V != "on" && V != "off") {
        std::fprintf(stderr, "--pdl: expected on or off, got %s\n",
                     V.c_str());
        return false;
      }
      O.Pdl = V == "on";
    }
    else if (A == "--limit")
      O.Limit = std::stoi(Next());
    else if (A == "--arena-gib")
      O.ArenaGiB = std::stod(Next());
    else if (A == "--extra") {
      // Kernel/Group/RasterN/Splits[/d][/m2][/n2][/c][/p], as planName.
      for (const std::string &Item : splitList(Next())) {
        cudaoptGemmPlan Pl{};
        int Used = 0;
        bool Bad = std::sscanf(Item.c_str(), "%d/%d/%d/%d%n", &Pl.Kernel,
                               &Pl.Group, &Pl.RasterN, &Pl.Splits, &Used) != 4;
        std::stringstream Rest(Item.substr(Bad ? 0 : Used));
        std::string Tok;
        while (!Bad && std::getline(Rest, Tok, '/')) {
          if (Tok.empty())
            continue;
          if (Tok == "d")
            Pl.DualAcc = 1;
          else if (Tok == "c")
            Pl.SplitCluster = 1;
          else if (Tok == "p")
            Pl.PingPong = 1;
          else if (Tok[0] == 'm' && Tok.size() > 1)
            Pl.ClusterM = std::atoi(Tok.c_str() + 1);
          else if (Tok[0] == 'n' && Tok.size() > 1)
            Pl.ClusterN = std::atoi(Tok.c_str() + 1);
          else
            Bad = true;
        }
        if (Bad) {
          std::fprintf(stderr, "bad --extra plan %s\n", Item.c_str());
          return false;
        }
        O.Extra.push_back(Pl);
      }
    } else if (A == "--tags") {
      for (const std::string &T : splitList(Next()))
        O.Tags.insert(T);
    } else if (A == "--special")
      O.Special = true;
    else if (A == "--no-clusters")
      O.Clusters = false;
    else if (A == "--pingpong")
      O.PingPong = true;
    else if (A == "--inputs") {
      std::string V = Next();
      if (V != "normal" && V != "binary") {
        std::fprintf(stderr, "--inputs: expected normal or binary, got %s\n",
                     V.c_str());
        return false;
      }
      O.BinaryInputs = V == "binary";
    }
    else {
      std::fprintf(stderr, "unknown option %s\n", A.c_str());
      return false;
    }
  }
  return true;
}

} // namespace

cudaoptGemmProblem ShapeBuffers::problem(int Set, float Alpha,
                                         float Beta) const {
  cudaoptGemmProblem P = {};
  P.M = M;
  P.N = N;
  P.K = K;
  P.Type = Type;
  P.LayoutB = Layout;
  P.A = Sets[Set].A;
  P.Lda = K;
  P.B = Sets[Set].B;
  P.Ldb = Layout == CUDAOPT_GEMM_B_ROW ? N : K;
  P.C = Sets[Set].C;
  P.Ldc = N;
  P.Alpha = Alpha;
  P.Beta = Beta;
  return P;
}

int main(int Argc, char **Argv) {
  Options O;
  if (!parse(Argc, Argv, O))
    return 1;
  // Read once by the runtime on its first launch (TensorMap.cpp).
  setenv("CUDAOPT_GEMM_PDL", O.Pdl ? "1" : "0", 1);
  std::vector<Shape> Shapes;
  if (!O.ShapesFile.empty()) {
    std::ifstream In(O.ShapesFile);
    std::string Line;
    while (std::getline(In, Line)) {
      if (Line.empty() || Line[0] == '#')
        continue;
      std::istringstream L(Line);
      Shape S;
      L >> S.M >> S.N >> S.K >> S.Tag;
      Shapes.push_back(S);
    }
  }
  // Resume: shapes already in the output are skipped; a shape started but
  // never finished (the process died or hung on it) is recorded as failed.
  std::set<std::string> Done, Started;
  {
    std::ifstream In(O.OutFile);
    std::string Line;
    while (std::getline(In, Line))
      if (Line.find("\"M\":") != std::string::npos)
        Done.insert(keyOf(Line));
    std::ifstream InS(O.OutFile + ".started");
    while (std::getline(InS, Line))
      Started.insert(Line);
  }
  std::ofstream Out(O.OutFile, std::ios::app);
  std::ofstream StartLog(O.OutFile + ".started", std::ios::app);
  Bench B(O);
  cudaDeviceProp Prop;
  BENCH_CHECK(cudaGetDeviceProperties(&Prop, 0));
  std::printf("device %s, %d SMs, table %s, PDL %s, cuBLASLt candidates "
              "<= %d, host %s\n",
              Prop.name, Prop.multiProcessorCount, cudaoptGemmTableVersion(),
              O.Pdl ? "on" : "off", O.Lt, hostCpu().c_str());
  if (O.Special && Started.count("special") == 0) {
    StartLog << "special" << std::endl;
    B.special(Out);
  }
  int Count = 0;
  for (const std::string &Ts : O.Types)
    for (const std::string &Ls : O.Layouts)
      for (const Shape &S : Shapes) {
        if (!O.Tags.empty() && !O.Tags.count(S.Tag))
          continue;
        if (Count++ >= O.Limit)
          break;
        std::string Key = std::to_string(S.M) + " " + std::to_string(S.N) +
                          " " + std::to_string(S.K) + " " + Ts + " " + Ls;
        if (Done.count(Key))
          continue;
        if (Started.count(Key)) {
          Out << "{\"M\":" << S.M << ",\"N\":" << S.N << ",\"K\":" << S.K
              << ",\"tag\":\"" << S.Tag << "\",\"type\":\"" << Ts
              << "\",\"layout\":\"" << Ls << "\",\"failed\":true}" << std::endl;
          continue;
        }
        StartLog << Key << std::endl;
        B.shape(S, Ts == "bf16" ? CUDAOPT_GEMM_BF16 : CUDAOPT_GEMM_F16,
                Ls == "row" ? CUDAOPT_GEMM_B_ROW : CUDAOPT_GEMM_B_COL, Out);
      }
  return 0;
}
