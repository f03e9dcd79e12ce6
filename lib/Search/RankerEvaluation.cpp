//===- RankerEvaluation.cpp - Leave-one-program-out evaluation ------------===//
//
// Part of cuda-opt. `cuda-opt train --evaluate-lopo`: for each program, the
// ranker and the k-NN are trained on the other programs' rows and order the
// held-out program's measured candidates; the share of the best measured
// log speedup found by the first k is compared with the round-robin order
// and random orders (docs/policy.md, bench/policy/ranker-evaluation.md).
// The k-NN here is TuningPolicy's computation (3 neighbours, family
// fallback, interleaved with round-robin) over samples instead of the
// compiled-in rows.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/Ranker.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

using namespace llvm;

namespace cuda_opt {

static Error makeStringError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}
namespace {

constexpr unsigned KnnNeighbours = 3;
constexpr unsigned RandomOrders = 100;
constexpr unsigned RandomSeed = 20261202;


std::string groupKey(const RankerSample &S) {
  return S.Program + "\n" + S.Kernel + "\n" + S.Signature;
}

} // namespace

KnnPolicy::KnnPolicy(ArrayRef<RankerSample> Samples) {
  std::set<std::string> NameSet;
  for (const RankerSample &S : Samples)
    for (const auto &F : *S.Features)
      NameSet.insert(F.first);
  Names.assign(NameSet.begin(), NameSet.end());
  std::map<std::string, size_t> Index;
  for (const RankerSample &S : Samples) {
    auto [It, New] = Index.insert({S.Program + "\n" + S.Kernel, Kernels.size()});
    if (New) {
      std::vector<double> V(Names.size(), 0.0);
      for (size_t I = 0; I < Names.size(); ++I)
        for (const auto &[N, X] : *S.Features)
          if (N == Names[I])
            V[I] = X;
      Kernels.push_back(std::move(V));
      Outcomes.emplace_back();
    }
    Outcomes[It->second][S.Pipeline] = S.LogSpeedup;
  }
  for (size_t I = 0; I < Names.size(); ++I) {
    double M = 0, Var = 0;
    for (const auto &K : Kernels)
      M += K[I];
    M /= Kernels.size();
    for (const auto &K : Kernels)
      Var += (K[I] - M) * (K[I] - M);
    Var /= Kernels.size();
    Scale.push_back(Var > 1e-12 ? std::sqrt(Var) : 1.0);
  }
}

std::vector<size_t> KnnPolicy::rank(const KernelFeatures &Features,
                                    ArrayRef<std::string> Pipelines) const {
  std::vector<double> V(Names.size(), 0.0);
  for (size_t I = 0; I < Names.size(); ++I)
    for (const auto &[N, X] : Features)
      if (N == Names[I])
        V[I] = X;
  std::vector<double> Dist;
  for (const auto &K : Kernels) {
    double S = 0;
    for (size_t I = 0; I < Names.size(); ++I)
      S += std::pow((V[I] - K[I]) / Scale[I], 2);
    Dist.push_back(std::sqrt(S));
  }
  std::vector<double> Score;
  for (const std::string &P : Pipelines) {
    std::vector<std::pair<double, double>> Seen;
    for (size_t K = 0; K < Kernels.size(); ++K)
      if (auto It = Outcomes[K].find(P); It != Outcomes[K].end())
        Seen.push_back({Dist[K], It->second});
    if (Seen.empty()) {
      const std::string Fam = pipelineFamily(P);
      for (size_t K = 0; K < Kernels.size(); ++K) {
        double Sum = 0;
        unsigned N = 0;
        for (const auto &[Pl, S] : Outcomes[K])
          if (pipelineFamily(Pl) == Fam) {
            Sum += S;
            ++N;
          }
        if (N)
          Seen.push_back({Dist[K], Sum / N});
      }
    }
    if (Seen.empty()) {
      Score.push_back(std::numeric_limits<double>::infinity());
      continue;
    }
    std::stable_sort(Seen.begin(), Seen.end(), [](const auto &A, const auto &B) {
      return A.first < B.first;
    });
    Seen.resize(std::min<size_t>(Seen.size(), KnnNeighbours));
    double Num = 0, Den = 0;
    for (const auto &[D, S] : Seen) {
      Num += S / (1 + D);
      Den += 1 / (1 + D);
    }
    Score.push_back(Num / Den);
  }
  return interleavedOrder(Score);
}

Expected<RankerEvaluation>
evaluateRankerLopo(ArrayRef<RankerSample> Samples,
                   ArrayRef<std::string> RoundRobin, const RankerParams &P,
                   const std::function<void(StringRef)> &Progress) {
  RankerEvaluation E;
  std::vector<std::string> Programs;
  for (const RankerSample &S : Samples)
    if (llvm::find(Programs, S.Program) == Programs.end())
      Programs.push_back(S.Program);
  llvm::sort(Programs);
  E.Programs = Programs.size();
  if (Programs.size() < 3)
    return makeStringError(formatv("leave-one-program-out needs at least 3 "
                                   "programs in the database, it has {0}",
                                   Programs.size()));
  std::mt19937 Rng(RandomSeed);
  for (const std::string &Held : Programs) {
    std::vector<RankerSample> Train, Test;
    for (const RankerSample &S : Samples)
      (S.Program == Held ? Test : Train).push_back(S);
    if (Progress)
      Progress(Held);
    Expected<RankerModel> M = RankerModel::fit(Train, "lopo", P);
    if (!M)
      return M.takeError();
    KnnPolicy Knn(Train);
    // The held-out program's kernels, in their first row's order.
    std::vector<std::string> Keys;
    std::map<std::string, std::vector<const RankerSample *>> ByKey;
    for (const RankerSample &S : Test) {
      auto &V = ByKey[groupKey(S)];
      if (V.empty())
        Keys.push_back(groupKey(S));
      V.push_back(&S);
    }
    for (const std::string &Key : Keys) {
      const std::vector<const RankerSample *> &Rows = ByKey[Key];
      std::map<std::string, double> Measured;
      for (const RankerSample *S : Rows)
        Measured[S->Pipeline] = S->LogSpeedup; // The latest row wins.
      double Best = 0;
      for (const auto &[Pl, Y] : Measured)
        Best = std::max(Best, Y);
      if (Best < std::log(1.02))
        continue;
      std::vector<std::string> Robin;
      for (const std::string &Pl : RoundRobin)
        if (Measured.count(Pl))
          Robin.push_back(Pl);
      if (Robin.empty())
        continue;
      const KernelFeatures &F = *Rows.front()->Features;
      const std::string &Sig = Rows.front()->Signature;
      auto Shares = [&](ArrayRef<size_t> Order) {
        std::vector<double> Out;
        for (unsigned K : E.Ks) {
          double Found = 0;
          for (size_t I = 0; I < std::min<size_t>(K, Order.size()); ++I)
            Found = std::max(Found, Measured[Robin[Order[I]]]);
          Out.push_back(Found / Best);
        }
        return Out;
      };
      RankerEvaluationRow R;
      R.Program = Held;
      R.Kernel = Rows.front()->Kernel;
      R.Best = std::exp(Best);
      R.Candidates = Robin.size();
      OnlineRanking Online(*M, F, Sig, Robin);
      std::vector<size_t> OnlineOrder;
      while (std::optional<size_t> I = Online.next()) {
        OnlineOrder.push_back(*I);
        Online.observe(*I, Measured[Robin[*I]]);
      }
      R.Share["ranker"] = Shares(OnlineOrder);
      const std::vector<size_t> Static = M->rank(F, Sig, Robin);
      R.Share["ranker (no online)"] = Shares(Static);
      // tune's rounds with a budget of k (--online-rounds=4): k/4 per round
      // (at least 4, at most 4 rounds), the order re-scored between rounds
      // from every measurement of the rounds before.
      std::vector<double> InRounds = Shares(Static);
      for (size_t KI = 0; KI < E.Ks.size(); ++KI) {
        const unsigned K = E.Ks[KI];
        if (K < 8 || Robin.size() <= K)
          continue;
        const unsigned Rounds = std::min(4u, K / 4);
        OnlineRanking O(*M, F, Sig, Robin);
        double Found = 0;
        for (unsigned Rd = 0; Rd < Rounds; ++Rd) {
          std::vector<size_t> Picks;
          const unsigned Size = K / Rounds + (Rd < K % Rounds);
          while (Picks.size() < Size)
            if (std::optional<size_t> I = O.next())
              Picks.push_back(*I);
            else
              break;
          for (size_t I : Picks) {
            Found = std::max(Found, Measured[Robin[I]]);
            O.observe(I, Measured[Robin[I]]);
          }
        }
        InRounds[KI] = Found / Best;
      }
      R.Share["ranker (tune's rounds)"] = InRounds;
      R.Share["k-NN"] = Shares(Knn.rank(F, Robin));
      std::vector<size_t> Identity(Robin.size());
      std::iota(Identity.begin(), Identity.end(), 0);
      R.Share["round-robin"] = Shares(Identity);
      std::vector<double> Mean(E.Ks.size(), 0.0);
      for (unsigned T = 0; T < RandomOrders; ++T) {
        std::vector<size_t> Perm = Identity;
        // Fisher-Yates on the generator's raw output: the same on every
        // standard library (std::shuffle's algorithm is not specified).
        for (size_t I = Perm.size(); I > 1; --I)
          std::swap(Perm[I - 1], Perm[Rng() % I]);
        std::vector<double> S = Shares(Perm);
        for (size_t K = 0; K < S.size(); ++K)
          Mean[K] += S[K] / RandomOrders;
      }
      R.Share["random"] = Mean;
      E.Rows.push_back(std::move(R));
    }
  }
  return E;
}

std::vector<double> RankerEvaluation::mean(StringRef Order) const {
  std::vector<double> Out(Ks.size(), 0.0);
  for (const RankerEvaluationRow &R : Rows)
    for (size_t K = 0; K < Ks.size(); ++K)
      Out[K] += R.Share.at(Order.str())[K] / Rows.size();
  return Out;
}

std::string RankerEvaluation::markdown(StringRef Source) const {
  std::string S;
  raw_string_ostream OS(S);
  OS << "# Learned ranker: leave-one-program-out evaluation\n\n"
     << "Generated by `cuda-opt train --evaluate-lopo` from " << Source
     << " (" << Programs << " programs, " << Rows.size()
     << " kernels with a measured win over 2 %). For each program the ranker "
        "and the k-NN are trained on the other programs only; each order "
        "ranks the held-out kernel's measured candidates, and a cell is the "
        "share of the kernel's best measured log speedup found by the first "
        "k of them (k = 1: the top-1 prediction). `ranker` re-ranks after "
        "each measurement (online update); `random` is the mean over "
        << RandomOrders << " random orders (seed " << RandomSeed << ").\n\n";
  OS << "| order |";
  for (unsigned K : Ks)
    OS << " k=" << K << " |";
  OS << "\n|---|";
  for (size_t K = 0; K < Ks.size(); ++K)
    OS << "---|";
  OS << "\n";
  for (const std::string &O : Orders) {
    OS << "| " << O << " |";
    for (double X : mean(O))
      OS << formatv(" {0:F2} |", X);
    OS << "\n";
  }
  OS << "\n## Per kernel\n\n| program (kernel) | best | candidates |";
  for (const char *O : {"ranker", "k-NN", "round-robin", "random"})
    for (unsigned K : Ks)
      OS << " " << O << " k=" << K << " |";
  OS << "\n|---|---|---|";
  for (size_t I = 0; I < 4 * Ks.size(); ++I)
    OS << "---|";
  OS << "\n";
  for (const RankerEvaluationRow &R : Rows) {
    OS << "| " << R.Program;
    if (R.Kernel != R.Program)
      OS << " (" << R.Kernel << ")";
    OS << formatv(" | {0:F2}x | {1} |", R.Best, R.Candidates);
    for (const char *O : {"ranker", "k-NN", "round-robin", "random"})
      for (double X : R.Share.at(O))
        OS << formatv(" {0:F2} |", X);
    OS << "\n";
  }
  return S;
}

} // namespace cuda_opt
