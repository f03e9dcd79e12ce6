//===- SplitReduce.cpp - Split a per-thread reduction over thread rows ----===//
//
// Part of cuda-opt.
//
// split-reduce{ways=W,block-x=X} rewrites a "one thread per column" kernel
// whose work is one reduction loop (lib/Analysis/RowProgram.h), such as
//
//   int c = blockIdx.x * blockDim.x + threadIdx.x;
//   if (c < cols) {
//     float sum = 0.0f;
//     for (int r = 0; r < rows; ++r)
//       sum += A[r * cols + c] * x[r];
//     y[c] = sum;
//   }
//
// launched with too few threads to fill the GPU, so that W threads share
// each column: the launch becomes blocks of X by W threads (the grid grows
// by the old block size / X, so every thread keeps its column c), thread
// row threadIdx.y runs one contiguous chunk of ceil(trip / W) iterations of
// the loop, the partial results meet in shared memory, and thread row 0
// combines the non-empty chunks in chunk order and runs the rest:
//
//   const int way = threadIdx.y;
//   __shared__ float sumParts[16][32];
//   float sum;                      // declared here: used after the barrier
//   int rChunks = 0;                // chunks with at least one iteration
//   if (c < cols) {
//     sum = 0.0f;
//     const int rEnd = rows;
//     const int rTrip = rEnd > 0 ? rEnd : 0;
//     const int rChunk = (rTrip + 15) / 16;
//     rChunks = rChunk > 0 ? (rTrip + rChunk - 1) / rChunk : 0;
//     const int rLo = way * rChunk;
//     const int rHi = rLo + rChunk < rEnd ? rLo + rChunk : rEnd;
//     for (int r = rLo; r < rHi; ++r)
//       sum += A[r * cols + c] * x[r];
//     sumParts[way][threadIdx.x] = sum;
//   }
//   __syncthreads();                // every thread, in range or not
//   if (way == 0 && c < cols) {
//     for (int part = 1; part < 16; ++part)
//       if (part < rChunks)
//         sum += sumParts[part][threadIdx.x];
//     y[c] = sum;
//   }
//
// Chunk 0 starts from the loop's original initial value, so an empty loop
// gives the original result bit for bit; the other chunks of a sum
// (product) start from 0 (1), those of min/max/argmin/argmax from the
// initial value too. argmin/argmax combine value and index with '<' / '>',
// so the first chunk holding the extremum wins, as the loop's first index
// did.
//
// Legal when the kernel is a row program with exactly one loop, the loop
// carries only reductions and writes no memory, the statements before it
// write no memory and do not return, the kernel has no atomics or warp
// intrinsics, and every launch has a constant 1-D block that is a multiple
// of X.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/RowProgram.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/BlockShape.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Transforms/Utils/TextEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

std::string at(const ASTContext &Ctx, const Stmt *S) {
  return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
}

/// A name, a number or a member `v.x`: no parentheses needed before `*`.
bool isSimpleOperand(StringRef S) {
  return !S.empty() && llvm::all_of(S, [](char C) {
    return isAlnum(C) || C == '_' || C == '.';
  });
}

/// The first call in the kernel to a CUDA atomic or warp-level intrinsic
/// (recognised by name among the functions CUDA's headers declare, as a
/// compiler recognises its builtins).
class ThreadCommunication : public RecursiveASTVisitor<ThreadCommunication> {
public:
  bool VisitCallExpr(CallExpr *CE) {
    if (Found)
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getDeclName().isIdentifier())
      return true;
    const SourceManager &SM = FD->getASTContext().getSourceManager();
    if (!FD->getBuiltinID() &&
        !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))) {
      // A __device__ function of this file: look inside (the call site is
      // the one reported).
      const FunctionDecl *Def = FD->getDefinition();
      if (Def && Def->getBody() && Visited.insert(Def).second) {
        const CallExpr *Outer = Site ? Site : CE;
        const CallExpr *Saved = Site;
        Site = Outer;
        TraverseStmt(Def->getBody());
        Site = Saved;
      }
      return true;
    }
    StringRef N = FD->getName();
    const CallExpr *At = Site ? Site : CE;
    std::string Via =
        Site ? " through '" + Site->getDirectCallee()->getNameAsString() + "'"
             : "";
    if (N.starts_with("atomic") || N.starts_with("__atomic")) {
      Found = At;
      What = "the atomic '" + N.str() + "'" + Via;
    } else if (N.contains("shfl") || N.contains("ballot") ||
               N.contains("syncwarp") || N.contains("activemask") ||
               N.starts_with("__any") || N.starts_with("__all") ||
               N.starts_with("__match") || N.starts_with("__reduce") ||
               N.starts_with("__uni")) {
      Found = At;
      What = "the warp-level intrinsic '" + N.str() + "'" + Via;
    }
    return true;
  }
  const CallExpr *Found = nullptr;
  std::string What;

private:
  /// The kernel's call being looked into, when inside a callee.
  const CallExpr *Site = nullptr;
  llvm::SmallPtrSet<const FunctionDecl *, 4> Visited;
};

/// Whether \p S refers to \p V.
bool mentions(const Stmt *S, const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Found |= D->getDecl() == V;
      return !Found;
    }
  } F;
  F.V = V;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

/// True when the sum (product) \p R still holds its identity 0 (1) when
/// \p Loop starts: its declaration sets that value and no step before the
/// loop writes it.
bool startsAtIdentity(const ASTContext &Ctx, const RowProgram &P,
                      const Recurrence &R, const ForStmt *Loop) {
  const VarDecl *V = R.Var;
  const Expr *Init = V->getInit();
  if (!Init)
    return false;
  Expr::EvalResult Res;
  double Want = R.Kind == RecurrenceKind::Sum ? 0.0 : 1.0;
  bool IsIdentity = false;
  if (Init->EvaluateAsRValue(Res, Ctx)) {
    if (Res.Val.isInt())
      IsIdentity = Res.Val.getInt() == static_cast<int64_t>(Want);
    else if (Res.Val.isFloat())
      IsIdentity = Res.Val.getFloat().convertToDouble() == Want;
  }
  if (!IsIdentity)
    return false;
  for (const RowStep &S : P.Steps) {
    if (S.S == Loop)
      return true;
    if (const auto *DS = dyn_cast<DeclStmt>(S.S))
      if (llvm::is_contained(DS->decls(), V))
        continue;
    if (mentions(S.S, V))
      return false; // read or written before the loop: keep it simple
  }
  return true;
}

struct SplitReducePlan : TransformPlan {
  RowProgram Program;
  int64_t Ways = 16;
  int64_t BlockX = 32;
  /// The index of the loop in Program.Steps.
  size_t LoopStep = 0;
  /// Declarations before the loop whose variables the code after the
  /// barrier reads: declared before the guard, assigned where they were.
  std::vector<const DeclStmt *> Hoisted;
  /// Per launch of the kernel: the old block size / BlockX.
  std::vector<int64_t> GridFactors;
};

class SplitReduce : public TransformWithPlan<SplitReducePlan> {
public:
  StringRef getName() const override { return "split-reduce"; }
  StringRef getSummary() const override {
    return "split a one-thread-per-column reduction loop into contiguous "
           "chunks over threadIdx.y (blocks of block-x by ways threads), "
           "combined in chunk order through shared memory";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        // Tuned in the order of what usually wins on long loops.
        {"ways",
         16,
         4,
         32,
         "threads (threadIdx.y) that split each column's loop into "
         "contiguous chunks",
         /*PowerOfTwo=*/true,
         {16, 32, 8, 4}},
        {"block-x",
         32,
         32,
         64,
         "threads per block along x (columns per block); the grid grows by "
         "the old block size / block-x",
         /*PowerOfTwo=*/true,
         {32, 64}},
    };
    return Specs;
  }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  /// Integer reductions give the same result in any order (as block-reduce
  /// and privatize-atomics treat them); floating-point ones, min and max
  /// included (as cooperative-rows treats them), are reordered.
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<RowProgram> RP = analyzeRowProgram(T.Ctx, T.Kernel);
    if (!RP) {
      consumeError(RP.takeError());
      return fpEffect(P); // plan() will say why it refuses
    }
    bool AllIntegers = RP->Loops.size() == 1;
    if (AllIntegers)
      for (const Recurrence &R : RP->Loops.front().Recurrences)
        AllIntegers &= R.Var->getType()->isIntegerType();
    return AllIntegers ? FpEffect::Preserves : fpEffect(P);
  }

  Expected<SplitReducePlan> makePlan(const KernelTarget &T,
                                     const ParamValues &P) const override;
  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const SplitReducePlan &Plan) const override;

private:
  Error checkLoop(const KernelTarget &T, const RowLoop &L) const;
  Error checkLaunches(const KernelTarget &T, SplitReducePlan &Plan) const;
  Error planHoisting(const KernelTarget &T, SplitReducePlan &Plan) const;
};

Error SplitReduce::checkLoop(const KernelTarget &T, const RowLoop &L) const {
  const ASTContext &Ctx = T.Ctx;
  std::string LoopAt = "the loop at " + at(Ctx, L.Loop);
  if (L.WritesMemory)
    return refuse(LoopAt + " writes memory; split-reduce splits only loops "
                           "that reduce values into scalars");
  if (L.Recurrences.empty())
    return refuse(LoopAt + " carries no reduction (sum, product, min, max, "
                           "argmin, argmax) to split");
  if (L.Inclusive)
    return refuse(LoopAt + " has an inclusive bound ('<='); split-reduce "
                           "splits loops 'for (j = a; j < b; ++j)'");
  for (const Expr *E : {L.Init, L.Bound})
    if (!E->getType()->isSignedIntegerType())
      return refuse(LoopAt + " compares its counter with the unsigned value '" +
                    sourceText(Ctx, E->getSourceRange()) +
                    "'; split-reduce computes the chunks in signed "
                    "arithmetic");
  if (!L.Var->getType()->isSignedIntegerType())
    return refuse(LoopAt + " has an unsigned counter '" +
                  L.Var->getNameAsString() +
                  "'; split-reduce computes the chunks in signed arithmetic");
  for (const Recurrence &R : L.Recurrences) {
    std::string V = "'" + R.Var->getNameAsString() + "'";
    if (R.Scan)
      return refuse(LoopAt + " is a prefix sum of " + V +
                    ", not a reduction; its iterations need the running "
                    "value");
    QualType Ty = R.Var->getType();
    const auto *BT = Ty->getAs<BuiltinType>();
    if (!BT || !(BT->isInteger() || BT->isFloatingPoint()) ||
        Ty->isBooleanType())
      return refuse(LoopAt + " reduces " + V + " of type '" +
                    typeText(Ctx, Ty) +
                    "'; split-reduce passes partial results through shared "
                    "memory only for integer, float and double values");
    if (R.Form == MinMaxForm::Function && !Ty->isRealFloatingType() &&
        (R.Kind == RecurrenceKind::Min || R.Kind == RecurrenceKind::Max))
      return refuse(LoopAt + " takes fmin/fmax of the integer " + V +
                    "; split-reduce combines fmin/fmax only on float and "
                    "double");
    if (Ty->isRealFloatingType() && Ctx.getTypeSize(Ty) > 64)
      return refuse(LoopAt + " reduces the long double " + V +
                    ", which CUDA device code does not support");
  }
  return Error::success();
}

Error SplitReduce::checkLaunches(const KernelTarget &T,
                                 SplitReducePlan &Plan) const {
  const KernelInfo &K = T.Kernel;
  ASTContext &Ctx = T.Ctx;
  const SourceManager &SM = T.getSourceManager();
  std::string Kernel = "kernel '" + K.name() + "'";
  if (K.Launches.empty())
    return refuse(Kernel + " is not launched in this file, so split-reduce "
                           "cannot give its launches the new block shape");
  if (std::optional<std::string> Use = foreignKernelUse(Ctx, K, true))
    return refuse(Kernel + " is referenced at " + *Use +
                  ", which may launch it with a block split-reduce cannot "
                  "rewrite");
  for (const LaunchSite &L : K.Launches) {
    std::string At = describeLocation(SM, L.Call->getBeginLoc());
    const Expr *Block = launchBlockExpr(L);
    if (!Block)
      return refuse("the launch at " + At + " has no block size");
    std::optional<int64_t> Threads = threadsPerBlock(L, Ctx);
    bool OneD = stripLaunchArgImplicit(Block)->getType()->isIntegerType();
    if (std::optional<Dim3> D = evaluateDim3(Block, Ctx))
      OneD = (*D)[1] == 1 && (*D)[2] == 1;
    if (!Threads || !OneD)
      return refuse("the block of the launch at " + At +
                    " is not a constant 1-D size, so split-reduce cannot "
                    "scale its grid to keep every column");
    if (*Threads % Plan.BlockX)
      return refuse(
          "the launch at " + At + " uses blocks of " + Twine(*Threads) +
          " threads, not a multiple of block-x=" + Twine(Plan.BlockX) +
          ", so no whole number of new blocks covers an old one");
    if (inMacro(Block->getSourceRange()))
      return refuse("the block of the launch at " + At +
                    " is written in a macro; cuda-opt does not edit macro "
                    "expansions");
    tooling::Replacements Scratch;
    if (Error E = rewriteGridX(
            Ctx, L, [](StringRef G) { return G.str(); }, Scratch))
      return refuse("split-reduce cannot scale the grid: " +
                    toString(std::move(E)));
    Plan.GridFactors.push_back(*Threads / Plan.BlockX);
  }
  return Error::success();
}

Error SplitReduce::planHoisting(const KernelTarget &T,
                                SplitReducePlan &Plan) const {
  const ASTContext &Ctx = T.Ctx;
  const RowProgram &RP = Plan.Program;
  const RowLoop &L = RP.Loops.front();
  // The variables thread row 0 reads after the barrier: the reductions and
  // whatever the steps after the loop read.
  SmallVector<const VarDecl *, 8> Needed;
  for (const Recurrence &R : L.Recurrences) {
    Needed.push_back(R.Var);
    if (R.Index)
      Needed.push_back(R.Index);
  }
  for (size_t K = 0; K < Plan.LoopStep; ++K)
    if (const auto *DS = dyn_cast<DeclStmt>(RP.Steps[K].S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          for (size_t After = Plan.LoopStep + 1; After < RP.Steps.size();
               ++After)
            if (mentions(RP.Steps[After].S, V) && !is_contained(Needed, V))
              Needed.push_back(V);

  // The names already declared where the hoisted declarations go.
  const FunctionDecl *F = T.Kernel.Decl;
  SmallVector<const VarDecl *, 16> Outer(F->parameters().begin(),
                                         F->parameters().end());
  for (const Stmt *S : cast<CompoundStmt>(F->getBody())->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Outer.push_back(V);
  // And the names the kernel refers to (globals, functions, ...), which a
  // variable of the same name declared earlier would hide.
  struct Referenced : RecursiveASTVisitor<Referenced> {
    SmallVector<const ValueDecl *, 16> Decls;
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Decls.push_back(D->getDecl());
      return true;
    }
  } Refs;
  Refs.TraverseStmt(F->getBody());

  for (const VarDecl *V : Needed) {
    const DeclStmt *Home = nullptr;
    for (size_t K = 0; K < Plan.LoopStep && !Home; ++K)
      if (const auto *DS = dyn_cast<DeclStmt>(RP.Steps[K].S))
        if (is_contained(DS->decls(), V))
          Home = DS;
    std::string Name = "'" + V->getNameAsString() + "'";
    if (!Home)
      return refuse(Name + " is read after the loop at " + at(Ctx, L.Loop) +
                    " but not declared by a statement of its own before "
                    "it, so split-reduce cannot keep it across the barrier");
    if (is_contained(Plan.Hoisted, Home))
      continue;
    for (const Decl *D : Home->decls()) {
      const auto *HV = dyn_cast<VarDecl>(D);
      if (!HV)
        return refuse("the declaration at " + at(Ctx, Home) +
                      " declares more than variables");
      std::string HName = "'" + HV->getNameAsString() + "'";
      QualType Ty = HV->getType();
      if (!Ty->isScalarType() || Ty->isReferenceType() || HV->isStaticLocal() ||
          Ty.isVolatileQualified())
        return refuse(HName + " (declared at " + at(Ctx, Home) +
                      ") is read after the barrier and has type '" +
                      typeText(Ctx, Ty) +
                      "'; split-reduce declares such variables before the "
                      "guard and assigns them, which it does only for "
                      "scalars");
      bool Clash = llvm::any_of(Outer, [&](const VarDecl *O) {
        return O != HV && O->getName() == HV->getName();
      });
      Clash |= llvm::any_of(Refs.Decls, [&](const ValueDecl *O) {
        return O != HV && O->getDeclName() == HV->getDeclName();
      });
      if (Clash)
        return refuse(HName + " (declared at " + at(Ctx, Home) +
                      ") is read after the barrier, and moving its "
                      "declaration before the guard would clash with "
                      "another " +
                      HName + " of the kernel");
    }
    Plan.Hoisted.push_back(Home);
  }
  return Error::success();
}

Expected<SplitReducePlan> SplitReduce::makePlan(const KernelTarget &T,
                                                const ParamValues &P) const {
  ASTContext &Ctx = T.Ctx;
  const KernelInfo &K = T.Kernel;
  std::string Kernel = "kernel '" + K.name() + "'";
  SplitReducePlan Plan;
  Plan.Ways = P.get("ways");
  Plan.BlockX = P.get("block-x");
  if (Plan.Ways != 4 && Plan.Ways != 8 && Plan.Ways != 16 && Plan.Ways != 32)
    return refuse("ways must be 4, 8, 16 or 32");
  if (Plan.BlockX != 32 && Plan.BlockX != 64)
    return refuse("block-x must be 32 or 64");
  if (Error E = checkNewBlockShape(T, Plan.BlockX, Plan.Ways))
    return std::move(E);

  Expected<RowProgram> RP = analyzeRowProgram(Ctx, K);
  if (!RP)
    return RP.takeError();
  Plan.Program = std::move(*RP);
  const RowProgram &Prog = Plan.Program;
  const ThreadMapping &M = Prog.Mapping;

  ThreadCommunication Comm;
  Comm.TraverseStmt(K.Decl->getBody());
  if (Comm.Found)
    return refuse(Kernel + " calls " + Comm.What + " at " +
                  at(Ctx, Comm.Found) +
                  "; split-reduce changes which threads run together, so it "
                  "leaves kernels whose threads communicate alone");
  if (!isGlobalIndexX(M.x().Var->getInit()))
    return refuse("index '" + M.x().Var->getNameAsString() +
                  "' is not computed as 'blockIdx.x * blockDim.x + "
                  "threadIdx.x', so a smaller block with a larger grid "
                  "would move the threads' columns");
  if (!M.EarlyReturn && !isa<CompoundStmt>(M.Guard->getThen()))
    return refuse("the guard at " + at(Ctx, M.Guard) +
                  " guards a single statement, which leaves no statement "
                  "before the loop to declare its result");

  if (Prog.Loops.size() != 1)
    return refuse(Kernel + " has " + Twine(Prog.Loops.size()) +
                  " loops in its per-column work; split-reduce splits a "
                  "kernel whose work is exactly one reduction loop");
  for (size_t I = 0; I < Prog.Steps.size(); ++I)
    if (Prog.Steps[I].Kind == RowStep::Loop)
      Plan.LoopStep = I;
  for (size_t I = 0; I < Plan.LoopStep; ++I) {
    const RowStep &S = Prog.Steps[I];
    if (S.Kind == RowStep::Store)
      return refuse("the statement at " + at(Ctx, S.S) +
                    " before the loop writes memory (or has other effects); "
                    "every thread of a column runs the statements before "
                    "the loop, so split-reduce would repeat it");
    if (S.Returns)
      return refuse("the statement at " + at(Ctx, S.S) +
                    " before the loop returns; every thread must reach the "
                    "barrier after the loop");
  }
  if (Error E = checkLoop(T, Prog.Loops.front()))
    return std::move(E);
  if (Error E = planHoisting(T, Plan))
    return std::move(E);
  if (Error E = checkLaunches(T, Plan))
    return std::move(E);
  return Plan;
}

/// `v = fmaxf(v, vParts[part][threadIdx.x]);` and friends: fold chunk
/// \p Part's partial of \p R into thread row 0's value.
std::string combineText(const ASTContext &Ctx, const Recurrence &R,
                        StringRef Part, StringRef ValueParts,
                        StringRef IndexParts) {
  std::string V = R.Var->getNameAsString();
  std::string P = ValueParts.str() + "[" + Part.str() + "][threadIdx.x]";
  bool Double = R.Var->getType()->isSpecificBuiltinType(BuiltinType::Double);
  switch (R.Kind) {
  case RecurrenceKind::Sum:
    return V + " += " + P + ";\n";
  case RecurrenceKind::Product:
    return V + " *= " + P + ";\n";
  case RecurrenceKind::Max:
    if (R.Form == MinMaxForm::Function)
      return V + " = " + (Double ? "fmax(" : "fmaxf(") + V + ", " + P + ");\n";
    return "if (" + P + " > " + V + ")\n" + V + " = " + P + ";\n";
  case RecurrenceKind::Min:
    if (R.Form == MinMaxForm::Function)
      return V + " = " + (Double ? "fmin(" : "fminf(") + V + ", " + P + ");\n";
    return "if (" + P + " < " + V + ")\n" + V + " = " + P + ";\n";
  case RecurrenceKind::ArgMax:
  case RecurrenceKind::ArgMin: {
    std::string I = R.Index->getNameAsString();
    const char *Op = R.Kind == RecurrenceKind::ArgMax ? " > " : " < ";
    return "if (" + P + Op + V + ") { // an earlier chunk wins ties\n" + V +
           " = " + P + ";\n" + I + " = " + IndexParts.str() + "[" + Part.str() +
           "][threadIdx.x];\n}\n";
  }
  }
  return "";
}

Expected<tooling::Replacements>
SplitReduce::applyPlan(const KernelTarget &T,
                       const SplitReducePlan &Plan) const {
  const ASTContext &Ctx = T.Ctx;
  const SourceManager &SM = T.getSourceManager();
  const RowProgram &RP = Plan.Program;
  const ThreadMapping &M = RP.Mapping;
  const MappedIndex &I = M.x();
  const RowLoop &L = RP.Loops.front();
  const FunctionDecl *F = T.Kernel.Decl;
  const std::string W = std::to_string(Plan.Ways);
  const std::string X = std::to_string(Plan.BlockX);

  std::vector<std::string> Taken;
  auto Fresh = [&](const std::string &Base) {
    std::string N = freshName(F, Base, Taken);
    Taken.push_back(N);
    return N;
  };
  std::string J = L.Var->getNameAsString();
  std::string Way = Fresh("way");
  std::string Begin = L.ConstStart == 0 ? "" : Fresh(J + "Begin");
  std::string End = Fresh(J + "End"), Trip = Fresh(J + "Trip"),
              Chunk = Fresh(J + "Chunk"), Chunks = Fresh(J + "Chunks"),
              Lo = Fresh(J + "Lo"), Hi = Fresh(J + "Hi"), Part = Fresh("part");
  std::string IType = typeText(Ctx, L.Var->getType());

  // The guard, as a condition that holds for the threads in range.
  std::string Cond =
      M.EarlyReturn
          ? I.Var->getNameAsString() + (I.Inclusive ? " <= " : " < ") +
                parenthesizedText(Ctx, I.Bound)
          : sourceText(Ctx, M.Guard->getCond()->getSourceRange());
  const auto *CondOp =
      M.EarlyReturn
          ? nullptr
          : dyn_cast<BinaryOperator>(M.Guard->getCond()->IgnoreImpCasts());
  std::string Row0Cond = Way + " == 0 && " +
                         (M.EarlyReturn || (CondOp && CondOp->isRelationalOp())
                              ? Cond
                              : "(" + Cond + ")");

  // The shared arrays of the partial results.
  struct Parts {
    const Recurrence *R;
    std::string Value, Index;
  };
  std::vector<Parts> AllParts;
  std::string Shared;
  for (const Recurrence &R : L.Recurrences) {
    Parts Ps{&R, Fresh(R.Var->getNameAsString() + "Parts"), ""};
    Shared += "__shared__ " + typeText(Ctx, R.Var->getType()) + " " + Ps.Value +
              "[" + W + "][" + X + "];\n";
    if (R.Index) {
      Ps.Index = Fresh(R.Index->getNameAsString() + "Parts");
      Shared += "__shared__ " + typeText(Ctx, R.Index->getType()) + " " +
                Ps.Index + "[" + W + "][" + X + "];\n";
    }
    AllParts.push_back(Ps);
  }

  TextEdits E(Ctx);
  // The head: the thread's row, the shared partials, the variables that
  // live across the barrier, and the guard around the partial's work.
  std::string Params = "ways=" + W + ",block-x=" + X;
  std::string Head =
      "// cuda-opt split-reduce{" + Params + "}: the " + W +
      " thread rows of a block\n// (threadIdx.y) split the loop over '" + J +
      "' into " + W +
      " contiguous chunks;\n// the partial results meet in "
      "shared memory, and thread row 0 combines\n// them in chunk order and "
      "does the rest.\nconst int " +
      Way + " = threadIdx.y;\n" + Shared;
  for (const DeclStmt *DS : Plan.Hoisted) {
    std::string Assign;
    for (const Decl *D : DS->decls()) {
      const auto *V = cast<VarDecl>(D);
      Head += typeText(Ctx, V->getType()) + " " + V->getNameAsString() +
              "; // declared here: read after the barrier\n";
      if (const Expr *Init = V->getInit())
        Assign += V->getNameAsString() + " = " +
                  sourceText(Ctx, Init->getSourceRange()) + ";\n";
    }
    if (!Assign.empty())
      Assign.pop_back();
    if (Error Err =
            E.replace(SourceRange(DS->getBeginLoc(), stmtEnd(Ctx, DS)), Assign))
      return std::move(Err);
  }
  Head += IType + " " + Chunks +
          " = 0; // chunks with at least one iteration\n" + "if (" + Cond +
          ") {";
  SourceRange GuardHead =
      M.EarlyReturn
          ? SourceRange(M.Guard->getBeginLoc(), stmtEnd(Ctx, M.Guard))
          : SourceRange(M.Guard->getBeginLoc(),
                        cast<CompoundStmt>(M.Guard->getThen())->getLBracLoc());
  if (Error Err = E.replace(GuardHead, Head))
    return std::move(Err);

  // The chunk of the loop this thread row runs.
  std::string First = L.ConstStart == 0 ? "" : parenthesizedText(Ctx, L.Init);
  std::string Setup = "// Thread row '" + Way + "' runs iterations [" + Lo +
                      ", " + Hi + "): chunk '" + Way + "' of " + W +
                      " contiguous\n// chunks of ceil(trip / " + W +
                      ") iterations.\n";
  if (!Begin.empty())
    Setup += "const " + IType + " " + Begin + " = " +
             sourceText(Ctx, L.Init->getSourceRange()) + ";\n";
  Setup += "const " + IType + " " + End + " = " +
           sourceText(Ctx, L.Bound->getSourceRange()) + ";\n";
  Setup += "const " + IType + " " + Trip + " = " +
           (Begin.empty()
                ? End + " > 0 ? " + End + " : 0"
                : End + " > " + Begin + " ? " + End + " - " + Begin + " : 0") +
           ";\n";
  Setup += "const " + IType + " " + Chunk + " = (" + Trip + " + " +
           std::to_string(Plan.Ways - 1) + ") / " + W + ";\n";
  Setup += Chunks + " = " + Chunk + " > 0 ? (" + Trip + " + " + Chunk +
           " - 1) / " + Chunk + " : 0;\n";
  Setup += "const " + IType + " " + Lo + " = " +
           (Begin.empty() ? "" : Begin + " + ") + Way + " * " + Chunk + ";\n";
  Setup += "const " + IType + " " + Hi + " = " + Lo + " + " + Chunk + " < " +
           End + " ? " + Lo + " + " + Chunk + " : " + End + ";\n";
  for (const Recurrence &R : L.Recurrences)
    if (!R.isIdempotent() && !startsAtIdentity(Ctx, RP, R, L.Loop))
      Setup += "if (" + Way +
               " != 0) // the initial value stays with chunk 0\n" +
               R.Var->getNameAsString() + " = " +
               (R.Kind == RecurrenceKind::Sum ? "0" : "1") + ";\n";
  SourceRange LoopRange(L.Loop->getBeginLoc(), stmtEnd(Ctx, L.Loop));
  if (Error Err = E.insertBefore(LoopRange, Setup))
    return std::move(Err);
  if (Error Err = E.replace(L.Init->getSourceRange(), Lo))
    return std::move(Err);
  if (Error Err = E.replace(L.Bound->getSourceRange(), Hi))
    return std::move(Err);

  // After the loop: publish the partials, wait for every thread (in range
  // or not), and let thread row 0 fold the non-empty chunks in order.
  std::string After = "\n";
  for (const Parts &Ps : AllParts) {
    After += Ps.Value + "[" + Way +
             "][threadIdx.x] = " + Ps.R->Var->getNameAsString() + ";\n";
    if (Ps.R->Index)
      After += Ps.Index + "[" + Way +
               "][threadIdx.x] = " + Ps.R->Index->getNameAsString() + ";\n";
  }
  After += "}\n__syncthreads(); // every thread of the block, in range or "
           "not\nif (" +
           Row0Cond + ") {\n#pragma unroll\nfor (int " + Part + " = 1; " +
           Part + " < " + W + "; ++" + Part + ")\nif (" + Part + " < " +
           Chunks + ")";
  std::string Combine;
  for (const Parts &Ps : AllParts)
    Combine += combineText(Ctx, *Ps.R, Part, Ps.Value, Ps.Index);
  bool Single = AllParts.size() == 1 && !AllParts.front().R->isArg() &&
                (AllParts.front().R->Form == MinMaxForm::Function ||
                 !AllParts.front().R->isIdempotent());
  After += Single ? "\n" + Combine : " {\n" + Combine + "}";
  if (Single)
    After.pop_back(); // the original's line break follows
  if (Error Err = E.insertAfter(LoopRange, After))
    return std::move(Err);

  SourceRange Whole(M.Guard->getBeginLoc(),
                    M.EarlyReturn ? stmtEnd(Ctx, M.Body.back())
                                  : stmtEnd(Ctx, M.Guard->getThen()));
  if (M.EarlyReturn)
    if (Error Err = E.insertAfter(Whole, "\n}"))
      return std::move(Err);
  Expected<std::string> Text = E.render(Whole);
  if (!Text)
    return Text.takeError();

  tooling::Replacements R;
  if (Error Err = R.add(tooling::Replacement(
          SM, CharSourceRange::getTokenRange(Whole), *Text, Ctx.getLangOpts())))
    return std::move(Err);

  // The launches: blocks of X by W threads, and a grid that many times
  // larger along x, so that blockIdx.x * X + threadIdx.x runs over the
  // same columns as before.
  for (size_t K = 0; K < T.Kernel.Launches.size(); ++K) {
    const LaunchSite &Site = T.Kernel.Launches[K];
    int64_t Factor = Plan.GridFactors[K];
    if (Factor != 1)
      if (Error Err = rewriteGridX(
              T.Ctx, Site,
              [&](StringRef G) {
                std::string Text =
                    isSimpleOperand(G) ? G.str() : "(" + G.str() + ")";
                return Text + " * " + std::to_string(Factor);
              },
              R))
        return std::move(Err);
    const Expr *Block = launchBlockExpr(Site);
    if (Error Err = R.add(tooling::Replacement(
            SM, CharSourceRange::getTokenRange(Block->getSourceRange()),
            "dim3(" + X + ", " + W + ")", Ctx.getLangOpts())))
      return std::move(Err);
  }
  return R;
}

} // namespace

std::unique_ptr<Transform> createSplitReduceTransform() {
  return std::make_unique<SplitReduce>();
}
} // namespace cuda_opt
