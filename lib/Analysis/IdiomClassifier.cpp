//===- IdiomClassifier.cpp - Recognise what a kernel computes ------------===//
//
// Part of cuda-opt. The checks run from the most specific idiom to the most
// general one: scan, gemm/gemv, reduction, transpose, stencil, elementwise.
// Each check only looks at the kernel model, never at the AST, so that the
// same rules can be replayed on features.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/IdiomClassifier.h"
#include "cuda-opt/Analysis/KernelModel.h"

#include "llvm/ADT/STLExtras.h"
#include <set>

using namespace llvm;

namespace cuda_opt {

StringRef idiomName(Idiom I) {
  switch (I) {
  case Idiom::Gemm:
    return "gemm";
  case Idiom::Gemv:
    return "gemv";
  case Idiom::Reduction:
    return "reduction";
  case Idiom::Elementwise:
    return "elementwise";
  case Idiom::Stencil:
    return "stencil";
  case Idiom::Transpose:
    return "transpose";
  case Idiom::Scan:
    return "scan";
  case Idiom::Unknown:
    break;
  }
  return "unknown";
}

namespace {

class Classifier {
public:
  explicit Classifier(const KernelModel &M) : M(M), Syms(M.Symbols) {}

  IdiomInfo run() {
    IdiomInfo I;
    if (matchScan(I) || matchProduct(I) || matchReduction(I) ||
        matchTranspose(I) || matchStencil(I) || matchElementwise(I))
      return I;
    I.Kind = Idiom::Unknown;
    I.Evidence = whyUnknown();
    return I;
  }

private:
  // Helpers -----------------------------------------------------------------

  /// The symbol standing for loop \p L's variable (LoopIter or LoopVar).
  std::optional<unsigned> loopSymbol(int L) const {
    for (unsigned S = 0; S < Syms.size(); ++S)
      if ((Syms[S].Kind == SymbolKind::LoopIter ||
           Syms[S].Kind == SymbolKind::LoopVar) &&
          Syms[S].Loop == L)
        return S;
    return std::nullopt;
  }

  /// True when loop \p Inner is \p Outer or nested in it.
  bool inLoop(int Inner, int Outer) const {
    for (int L = Inner; L >= 0; L = M.Loops[L].Parent)
      if (L == Outer)
        return true;
    return false;
  }

  bool isVarying(unsigned S) const {
    switch (Syms[S].Kind) {
    case SymbolKind::ThreadIdx:
    case SymbolKind::BlockIdx:
    case SymbolKind::LoopIter:
    case SymbolKind::LoopVar:
      return true;
    case SymbolKind::Opaque:
      return Syms[S].Deps & DepVarying;
    default:
      return false;
    }
  }

  std::set<unsigned> varyingSymbols(const IndexExpr &E) const {
    std::set<unsigned> Out;
    for (const auto &Term : E.terms())
      for (unsigned S : Term.first)
        if (isVarying(S))
          Out.insert(S);
    return Out;
  }

  /// The part of an index made of terms that vary between threads/iterations.
  IndexExpr varyingPart(const IndexExpr &E) const {
    IndexExpr Out;
    for (const auto &[Mono, C] : E.terms()) {
      if (!llvm::any_of(Mono, [&](unsigned S) { return isVarying(S); }))
        continue;
      IndexExpr T = IndexExpr::constant(C);
      for (unsigned S : Mono)
        T = T * IndexExpr::symbol(S);
      Out = Out + T;
    }
    return Out;
  }

  static bool isRead(const MemoryAccess &A) {
    return A.Kind == AccessKind::Read || A.Kind == AccessKind::ReadWrite;
  }
  static bool isWrite(const MemoryAccess &A) {
    return A.Kind == AccessKind::Write || A.Kind == AccessKind::ReadWrite;
  }
  static bool isMemory(const MemoryAccess &A) {
    return A.Space == MemorySpace::Global || A.Space == MemorySpace::Shared;
  }

  std::string loopName(int L) const {
    const LoopInfo &Lp = M.Loops[L];
    // "file:line:col" -> "line N".
    StringRef Loc(Lp.Location);
    StringRef Line = Loc.rsplit(':').first.rsplit(':').second;
    std::string Where = Line.empty() ? "" : " (line " + Line.str() + ")";
    return Lp.VarName.empty() ? Lp.Kind + " loop" + Where
                              : "loop over '" + Lp.VarName + "'" + Where;
  }

  // Scan --------------------------------------------------------------------

  bool matchScan(IdiomInfo &I) {
    int Growing = -1, Shrinking = -1;
    for (unsigned L = 0; L < M.Loops.size(); ++L) {
      const LoopInfo &Lp = M.Loops[L];
      if (Lp.Step != StepKind::Geometric)
        continue;
      for (const ShuffleInfo &Sh : M.Shuffles)
        if (Sh.Op.find("shfl_up") != std::string::npos && Sh.Loop >= 0 &&
            inLoop(Sh.Loop, L)) {
          I.Kind = Idiom::Scan;
          I.Evidence = Sh.Op + " inside the offset-doubling " + loopName(L) +
                       ": warp-level inclusive scan";
          return true;
        }
      if (!Lp.ContainsBarrier)
        continue;
      (Lp.Growing ? Growing : Shrinking) = L;
      std::optional<unsigned> S = loopSymbol(L);
      if (!S || !Lp.Growing)
        continue;
      for (const MemoryAccess &A : M.Accesses) {
        if (!isMemory(A) || !isRead(A) || A.Loop < 0 || !inLoop(A.Loop, L))
          continue;
        std::optional<IndexExpr> C = A.Index.coefficientOf(*S);
        if (!C || !C->getConstant() || *C->getConstant() >= 0)
          continue;
        I.Kind = Idiom::Scan;
        I.Evidence = "offset-doubling " + loopName(L) +
                     " with a barrier reads '" + A.Text +
                     "' at a negative offset (Hillis-Steele scan)";
        return true;
      }
    }
    if (Growing >= 0 && Shrinking >= 0) {
      I.Kind = Idiom::Scan;
      int Up = std::min(Growing, Shrinking),
          Down = std::max(Growing, Shrinking);
      I.Evidence = "two tree sweeps with barriers, " + loopName(Up) + " then " +
                   loopName(Down) + " (up-sweep/down-sweep, Blelloch scan)";
      return true;
    }
    return false;
  }

  // Gemm / gemv -------------------------------------------------------------

  bool matchProduct(IdiomInfo &I) {
    for (const Accumulation &Acc : M.Accumulations) {
      if (!Acc.Product || Acc.LHS < 0 || Acc.RHS < 0 || Acc.Loop < 0)
        continue;
      std::optional<unsigned> K = loopSymbol(Acc.Loop);
      if (!K)
        continue;
      const MemoryAccess &X = M.Accesses[Acc.LHS];
      const MemoryAccess &Y = M.Accesses[Acc.RHS];
      if (!X.Index.mentions(*K) || !Y.Index.mentions(*K) || !X.Affine ||
          !Y.Affine)
        continue;
      std::set<unsigned> OX = varyingSymbols(X.Index);
      std::set<unsigned> OY = varyingSymbols(Y.Index);
      OX.erase(*K);
      OY.erase(*K);
      std::string Pair = "'" + Acc.Target + " += " + X.Text + " * " + Y.Text +
                         "' in the " + loopName(Acc.Loop);
      if (!OX.empty() && !OY.empty() && OX != OY) {
        // Each operand must vary with an index the other does not (the row
        // of A, the column of B); shared ones such as a batch index in
        // blockIdx.z are allowed.
        auto OnlyIn = [](const std::set<unsigned> &A,
                         const std::set<unsigned> &B) {
          return llvm::any_of(A, [&](unsigned S) { return !B.count(S); });
        };
        if (!OnlyIn(OX, OY) || !OnlyIn(OY, OX))
          continue;
        I.Kind = Idiom::Gemm;
        bool Tiled =
            X.Space == MemorySpace::Shared && Y.Space == MemorySpace::Shared;
        I.Evidence =
            Pair +
            ": the operands vary with different indices "
            "(row of one, column of the other)" +
            (Tiled ? std::string(", from __shared__ tiles") : std::string(""));
        return true;
      }
      if (OX.empty() == OY.empty())
        continue;
      const MemoryAccess &Mat = OX.empty() ? Y : X;
      const MemoryAccess &Vec = OX.empty() ? X : Y;
      // A sliding window (in[i + j] * w[j]) is a convolution, not a gemv.
      std::optional<IndexExpr> KC = Mat.Index.coefficientOf(*K);
      for (unsigned S : OX.empty() ? OY : OX)
        if (Syms[S].Kind == SymbolKind::ThreadIdx ||
            Syms[S].Kind == SymbolKind::LoopIter)
          if (KC && Mat.Index.coefficientOf(S) == KC) {
            I.Kind = Idiom::Stencil;
            I.Evidence = Pair + ": '" + Mat.Text +
                         "' slides with the loop (convolution window)";
            return true;
          }
      I.Kind = Idiom::Gemv;
      I.Evidence = Pair + ": '" + Mat.Text +
                   "' depends on the thread's row, '" + Vec.Text +
                   "' only on the loop (matrix-vector product)";
      return true;
    }
    return false;
  }

  // Reduction ---------------------------------------------------------------

  bool matchReduction(IdiomInfo &I) {
    for (unsigned L = 0; L < M.Loops.size(); ++L) {
      const LoopInfo &Lp = M.Loops[L];
      if (Lp.Step != StepKind::Geometric)
        continue;
      std::optional<unsigned> S = loopSymbol(L);
      for (const ShuffleInfo &Sh : M.Shuffles)
        if (Sh.Loop >= 0 && inLoop(Sh.Loop, L) &&
            Sh.Op.find("shfl_up") == std::string::npos) {
          I.Kind = Idiom::Reduction;
          I.Evidence = Sh.Op + " inside the halving " + loopName(L) +
                       ": warp-shuffle tree reduction";
          return true;
        }
      if (!S || !Lp.ContainsBarrier)
        continue;
      for (const MemoryAccess &A : M.Accesses) {
        if (!isMemory(A) || !isRead(A) || A.Loop < 0 || !inLoop(A.Loop, L))
          continue;
        std::optional<IndexExpr> C = A.Index.coefficientOf(*S);
        if (!C || C->isZero())
          continue;
        bool Combined = llvm::any_of(M.Accesses, [&](const MemoryAccess &W) {
          return isWrite(W) && W.BaseDecl == A.BaseDecl && W.Loop >= 0 &&
                 inLoop(W.Loop, L);
        });
        if (!Combined)
          continue;
        I.Kind = Idiom::Reduction;
        I.Evidence = "tree " + loopName(L) + " with a barrier combines '" +
                     A.Text + "' into '" + A.Base + "' (" +
                     (A.Space == MemorySpace::Shared ? "shared" : "global") +
                     " memory tree reduction)";
        return true;
      }
    }
    unsigned Butterflies = 0;
    for (const ShuffleInfo &Sh : M.Shuffles) {
      if (Sh.Op.find("__reduce_") != std::string::npos) {
        I.Kind = Idiom::Reduction;
        I.Evidence = Sh.Op + ": warp reduction intrinsic";
        return true;
      }
      if (Sh.Op.find("shfl_down") != std::string::npos ||
          Sh.Op.find("shfl_xor") != std::string::npos)
        ++Butterflies;
    }
    if (Butterflies >= 2) {
      I.Kind = Idiom::Reduction;
      I.Evidence = std::to_string(Butterflies) +
                   " __shfl_down/__shfl_xor steps: unrolled warp-shuffle "
                   "reduction";
      return true;
    }
    for (const AtomicInfo &At : M.Atomics) {
      if (At.Access < 0)
        continue;
      const MemoryAccess &T = M.Accesses[At.Access];
      StringRef Op(At.Op);
      if (T.Pattern != AccessPattern::Broadcast ||
          !(Op.starts_with("atomicAdd") || Op.starts_with("atomicMax") ||
            Op.starts_with("atomicMin") || Op.starts_with("atomicAnd") ||
            Op.starts_with("atomicOr") || Op.starts_with("atomicXor")))
        continue;
      I.Kind = Idiom::Reduction;
      I.Evidence = At.Op + " into '" + T.Text +
                   "', the same address for every thread of a block "
                   "(atomic accumulation)";
      return true;
    }
    return false;
  }

  // Transpose ---------------------------------------------------------------

  /// Which of \p U, \p V an index is contiguous in: the one with the smaller
  /// coefficient (fewer symbols, then smaller magnitude); -1 when unclear.
  int minorAxis(const IndexExpr &E, std::optional<unsigned> U,
                std::optional<unsigned> V) const {
    if (!U || !V)
      return -1;
    std::optional<IndexExpr> CU = E.coefficientOf(*U);
    std::optional<IndexExpr> CV = E.coefficientOf(*V);
    if (!CU || !CV || CU->isZero() || CV->isZero())
      return -1;
    auto Key = [](const IndexExpr &C) {
      auto Lead = C.leadingTerm();
      int64_t Mag = Lead ? std::abs(Lead->second) : 0;
      return std::make_pair(C.degree(), Mag);
    };
    if (Key(*CU) < Key(*CV))
      return 0;
    if (Key(*CV) < Key(*CU))
      return 1;
    return -1;
  }

  bool matchTranspose(IdiomInfo &I) {
    static const char *const Names[2][2] = {{"threadIdx.x", "threadIdx.y"},
                                            {"blockIdx.x", "blockIdx.y"}};
    std::optional<unsigned> Pairs[2][2] = {
        {Syms.findBuiltin(SymbolKind::ThreadIdx, 0),
         Syms.findBuiltin(SymbolKind::ThreadIdx, 1)},
        {Syms.findBuiltin(SymbolKind::BlockIdx, 0),
         Syms.findBuiltin(SymbolKind::BlockIdx, 1)}};
    for (const MemoryAccess &W : M.Accesses) {
      if (!isMemory(W) || W.Kind != AccessKind::Write || !W.Affine)
        continue;
      for (const MemoryAccess &R : M.Accesses) {
        if (!isMemory(R) || R.Kind != AccessKind::Read || !R.Affine ||
            R.ElementBytes != W.ElementBytes)
          continue;
        for (unsigned P = 0; P < 2; ++P) {
          int MW = minorAxis(W.Index, Pairs[P][0], Pairs[P][1]);
          int MR = minorAxis(R.Index, Pairs[P][0], Pairs[P][1]);
          if (MW < 0 || MR < 0 || MW == MR)
            continue;
          I.Kind = Idiom::Transpose;
          I.Evidence = "write '" + W.Text + "' is contiguous in " +
                       Names[P][MW] + " while read '" + R.Text +
                       "' is contiguous in " + Names[P][MR] +
                       " (x/y roles swapped)";
          return true;
        }
      }
    }
    return false;
  }

  // Stencil -----------------------------------------------------------------

  bool matchStencil(IdiomInfo &I) {
    // The largest group of neighbour reads; shared memory wins ties, since a
    // tiled stencil's halo loads from global memory are not its neighbours.
    std::vector<const MemoryAccess *> Best;
    for (const MemoryAccess &Center : M.Accesses) {
      if (!isMemory(Center) || !isRead(Center) || !Center.Affine)
        continue;
      IndexExpr Var = varyingPart(Center.Index);
      if (!(Var.dependence(Syms) & (DepThread | DepBlock)))
        continue;
      bool Accumulates = llvm::any_of(M.Accesses, [&](const MemoryAccess &A) {
        return A.BaseDecl == Center.BaseDecl && A.Kind == AccessKind::ReadWrite;
      });
      if (Accumulates)
        continue;
      std::vector<const MemoryAccess *> Points;
      std::vector<IndexExpr> Seen;
      for (const MemoryAccess &A : M.Accesses) {
        if (A.BaseDecl != Center.BaseDecl || A.Base != Center.Base ||
            !isRead(A) || !A.Affine || varyingPart(A.Index) != Var)
          continue;
        if (llvm::is_contained(Seen, A.Index))
          continue;
        Seen.push_back(A.Index);
        Points.push_back(&A);
      }
      if (Points.size() < 3)
        continue;
      bool Better = Points.size() > Best.size() ||
                    (Points.size() == Best.size() &&
                     Center.Space == MemorySpace::Shared &&
                     Best.front()->Space != MemorySpace::Shared);
      if (Better)
        Best = std::move(Points);
    }
    if (Best.empty())
      return false;
    std::string List;
    for (const MemoryAccess *A : Best)
      List += (List.empty() ? "" : ", ") + A->Text;
    I.Kind = Idiom::Stencil;
    I.Evidence = std::to_string(Best.size()) + " reads of '" +
                 Best.front()->Base +
                 "' at constant offsets from the same point: " + List;
    return true;
  }

  // Elementwise -------------------------------------------------------------

  bool matchElementwise(IdiomInfo &I) {
    // Loops must either be grid-stride loops or pure computation (no memory
    // access inside): a loop over data is not a one-element map.
    bool GridStride = false;
    for (unsigned L = 0; L < M.Loops.size(); ++L) {
      if (M.Loops[L].GridStride) {
        GridStride = true;
        continue;
      }
      bool Touches = llvm::any_of(M.Accesses, [&](const MemoryAccess &A) {
        return A.Loop >= 0 && inLoop(A.Loop, L);
      });
      if (Touches)
        return false;
    }
    if (!M.Barriers.empty() || !M.Atomics.empty() || !M.Shuffles.empty())
      return false;
    std::vector<const MemoryAccess *> Writes;
    for (const MemoryAccess &A : M.Accesses) {
      if (A.Space == MemorySpace::Shared)
        return false;
      if (A.Pattern == AccessPattern::Irregular)
        return false;
      if (A.Space == MemorySpace::Global && isWrite(A)) {
        if (A.Pattern != AccessPattern::Coalesced)
          return false;
        Writes.push_back(&A);
      }
    }
    if (Writes.empty())
      return false;
    for (const MemoryAccess &A : M.Accesses) {
      if (A.Space != MemorySpace::Global || !isRead(A) ||
          A.Pattern == AccessPattern::Broadcast)
        continue;
      bool SameElement = llvm::any_of(
          Writes, [&](const MemoryAccess *W) { return W->Index == A.Index; });
      if (!SameElement)
        return false;
    }
    I.Kind = Idiom::Elementwise;
    I.Evidence = "each thread writes '" + Writes.front()->Text +
                 "' (coalesced) and reads only the same element of its "
                 "inputs or uniform values; " +
                 (GridStride ? "a grid-stride loop, no other loop over data"
                             : "no loop over data");
    return true;
  }

  std::string whyUnknown() const {
    for (const MemoryAccess &A : M.Accesses)
      if (A.Pattern == AccessPattern::Irregular)
        return "no idiom matched; irregular access '" + A.Text +
               "': " + A.Reason;
    if (M.Accesses.empty())
      return "no idiom matched; no global or shared memory access found" +
             std::string(M.Calls.empty()
                             ? ""
                             : " (calls to device functions are not "
                               "analysed)");
    unsigned Global = 0, Shared = 0;
    for (const MemoryAccess &A : M.Accesses) {
      Global += A.Space == MemorySpace::Global;
      Shared += A.Space == MemorySpace::Shared;
    }
    return "no idiom matched: " + std::to_string(M.Loops.size()) +
           " loop(s), " + std::to_string(Global) + " global and " +
           std::to_string(Shared) + " shared access(es), " +
           std::to_string(M.Barriers.size()) + " barrier(s), " +
           std::to_string(M.Atomics.size()) + " atomic(s)";
  }

  const KernelModel &M;
  const SymbolTable &Syms;
};

} // namespace

IdiomInfo classifyIdiom(const KernelModel &M) { return Classifier(M).run(); }

} // namespace cuda_opt
