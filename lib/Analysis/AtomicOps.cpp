//===- AtomicOps.cpp - What an atomic update does, and to where ----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/AtomicOps.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

StringRef combineOpName(CombineOp Op) {
  switch (Op) {
  case CombineOp::Sum: return "sum";
  case CombineOp::Product: return "product";
  case CombineOp::Max: return "maximum";
  case CombineOp::Min: return "minimum";
  case CombineOp::And: return "bitwise and";
  case CombineOp::Or: return "bitwise or";
  case CombineOp::Xor: return "bitwise xor";
  }
  return "";
}

bool isExactInAnyOrder(CombineOp Op, QualType T) {
  if (Op != CombineOp::Sum && Op != CombineOp::Product)
    return true;
  return T->isIntegerType();
}

bool isShuffleType(ASTContext &Ctx, QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isSpecificBuiltinType(BuiltinType::Float) ||
      T->isSpecificBuiltinType(BuiltinType::Double))
    return true;
  if (!T->isIntegerType() || T->isBooleanType() || T->isEnumeralType())
    return false;
  uint64_t Bits = Ctx.getTypeSize(T);
  return Bits == 32 || Bits == 64;
}

static const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

static const FunctionDecl *calleeOf(const CallExpr *CE) {
  return CE ? CE->getDirectCallee() : nullptr;
}

static StringRef calleeName(const CallExpr *CE) {
  const FunctionDecl *FD = calleeOf(CE);
  if (!FD || !FD->getDeclName().isIdentifier())
    return "";
  return FD->getName();
}

/// True for a function declared by the CUDA toolkit or the system, not by
/// the user (their `atomicAdd` is CUDA's).
static bool isToolkitFunction(const ASTContext &Ctx, const FunctionDecl *FD) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation L = SM.getExpansionLoc(FD->getLocation());
  return SM.isInSystemHeader(L) || !SM.isWrittenInMainFile(L);
}

//===----------------------------------------------------------------------===//
// Atomic updates
//===----------------------------------------------------------------------===//

static bool isFloating(QualType T) { return T->isRealFloatingType(); }

Expected<AtomicUpdate> matchAtomicUpdate(ASTContext &Ctx, const CallExpr *Call,
                                         bool &IsAtomic) {
  IsAtomic = false;
  const FunctionDecl *FD = calleeOf(Call);
  if (!FD)
    return refuse("the call is indirect");
  StringRef Name = calleeName(Call);
  AtomicUpdate U;
  U.Call = Call;
  if (Name.starts_with("atomic") && isToolkitFunction(Ctx, FD)) {
    IsAtomic = true;
    std::optional<CombineOp> Op = StringSwitch<std::optional<CombineOp>>(Name)
                                      .Case("atomicAdd", CombineOp::Sum)
                                      .Case("atomicSub", CombineOp::Sum)
                                      .Case("atomicInc", CombineOp::Sum)
                                      .Case("atomicMax", CombineOp::Max)
                                      .Case("atomicMin", CombineOp::Min)
                                      .Case("atomicAnd", CombineOp::And)
                                      .Case("atomicOr", CombineOp::Or)
                                      .Case("atomicXor", CombineOp::Xor)
                                      .Default(std::nullopt);
    if (!Op)
      return refuse("'" + Name +
                    "' is not a combining update (only atomicAdd, atomicSub, "
                    "atomicMax, atomicMin, atomicAnd, atomicOr, atomicXor "
                    "and atomicInc with limit ~0u fold together)");
    if (Call->getNumArgs() != 2)
      return refuse("'" + Name + "' is called with " +
                    Twine(Call->getNumArgs()).str() + " arguments");
    U.Op = *Op;
    U.Address = Call->getArg(0);
    U.Value = Call->getArg(1);
    QualType PT = strip(U.Address)->getType();
    if (PT.isNull() || !PT->isPointerType())
      PT = U.Address->getType();
    if (!PT->isPointerType())
      return refuse("the address of '" + Name + "' is not a pointer");
    U.ElementType = PT->getPointeeType().getUnqualifiedType();
    if (!isShuffleType(Ctx, U.ElementType))
      return refuse("'" + Name + "' updates a '" +
                    U.ElementType.getAsString() +
                    "', which warp shuffles do not handle");
    U.Subtracts = Name == "atomicSub";
    if (Name == "atomicInc") {
      // atomicInc(p, limit) stores old >= limit ? 0 : old + 1: an addition
      // of one only when the limit is the largest unsigned value.
      Expr::EvalResult R;
      if (!U.Value->EvaluateAsInt(R, Ctx) ||
          !R.Val.getInt().isMaxValue())
        return refuse("'atomicInc' wraps around at its limit '" +
                      sourceText(Ctx, U.Value->getSourceRange()) +
                      "'; only atomicInc(p, ~0u), an addition of one, folds");
      U.IncrementsByOne = true;
    }
    return U;
  }
  // A __device__ helper with a compare-and-swap loop.
  if (!FD->hasBody() || FD->getNumParams() != 2 ||
      !FD->hasAttr<CUDADeviceAttr>())
    return refuse("'" + Name + "' is not an atomic operation");
  bool HasCas = false;
  {
    class CasFinder : public RecursiveASTVisitor<CasFinder> {
    public:
      bool VisitCallExpr(CallExpr *CE) {
        if (calleeName(CE).starts_with("atomic"))
          Found = true;
        return true;
      }
      bool Found = false;
    } F;
    F.TraverseStmt(FD->getBody());
    HasCas = F.Found;
  }
  if (!HasCas)
    return refuse("'" + Name + "' is not an atomic operation");
  IsAtomic = true;
  Expected<CombineOp> Op = summarizeCasHelper(Ctx, FD);
  if (!Op)
    return Op.takeError();
  U.Op = *Op;
  U.Helper = FD->getDefinition();
  U.Address = Call->getArg(0);
  U.Value = Call->getArg(1);
  U.ElementType = FD->getParamDecl(1)->getType().getUnqualifiedType();
  return U;
}

bool isResultUnused(ASTContext &Ctx, const CallExpr *Call) {
  auto ParentOf = [&](const Stmt *S) -> const Stmt * {
    DynTypedNodeList Ps = Ctx.getParents(*S);
    return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
  };
  const Stmt *Parent = ParentOf(Call);
  while (Parent && isa<ExprWithCleanups, ParenExpr>(Parent))
    Parent = ParentOf(Parent);
  if (const auto *Cast = dyn_cast_or_null<CStyleCastExpr>(Parent);
      Cast && Cast->getType()->isVoidType())
    Parent = ParentOf(Parent);
  return Parent && !isa<Expr>(Parent);
}

//===----------------------------------------------------------------------===//
// Compare-and-swap helpers
//===----------------------------------------------------------------------===//

/// `__int_as_float(x)`, `__longlong_as_double(x)`, `__float_as_int(x)` ...:
/// the bit cast's operand, or \p E itself when it is none.
static const Expr *throughBitCast(const Expr *E) {
  E = strip(E);
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    StringRef N = calleeName(CE);
    if (CE->getNumArgs() == 1 &&
        (N == "__int_as_float" || N == "__float_as_int" ||
         N == "__uint_as_float" || N == "__float_as_uint" ||
         N == "__longlong_as_double" || N == "__double_as_longlong"))
      return strip(CE->getArg(0));
  }
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    if (C->getType()->isScalarType())
      return strip(C->getSubExpr());
  return E;
}

static const VarDecl *varOf(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(strip(E));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

namespace {
/// The one atomicCAS of a helper and the loop around it.
class CasSite : public RecursiveASTVisitor<CasSite> {
public:
  bool TraverseWhileStmt(WhileStmt *S) { return inLoop(S, S->getCond(), [&] {
      return RecursiveASTVisitor::TraverseWhileStmt(S); }); }
  bool TraverseDoStmt(DoStmt *S) { return inLoop(S, S->getCond(), [&] {
      return RecursiveASTVisitor::TraverseDoStmt(S); }); }
  bool TraverseForStmt(ForStmt *S) { return inLoop(S, S->getCond(), [&] {
      return RecursiveASTVisitor::TraverseForStmt(S); }); }
  bool VisitCallExpr(CallExpr *CE) {
    StringRef N = calleeName(CE);
    if (N.starts_with("atomic")) {
      ++Atomics;
      if (N == "atomicCAS" && CE->getNumArgs() == 3) {
        Cas = CE;
        Loop = Loops.empty() ? nullptr : Loops.back().first;
        LoopCond = Loops.empty() ? nullptr : Loops.back().second;
      }
    }
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && !varOf(BO->getLHS()))
      ++Stores;
    return true;
  }
  template <typename F> bool inLoop(Stmt *S, Expr *Cond, F Fn) {
    Loops.push_back({S, Cond});
    bool R = Fn();
    Loops.pop_back();
    return R;
  }
  SmallVector<std::pair<Stmt *, Expr *>, 2> Loops;
  CallExpr *Cas = nullptr;
  Stmt *Loop = nullptr;
  Expr *LoopCond = nullptr;
  unsigned Atomics = 0;
  unsigned Stores = 0;
};
} // namespace

/// True when \p E reads parameter \p P (through bit casts).
static bool isParam(const Expr *E, const ParmVarDecl *P) {
  return varOf(throughBitCast(E)) == P || varOf(E) == P;
}

/// The combine of a two-operand call or operator over (value, old):
/// `v + old`, `fmaxf(old, v)`, `max(v, old)`, ...
static std::optional<CombineOp> combineOf(const Expr *E, const ParmVarDecl *V,
                                          const Expr *&Other) {
  E = strip(E);
  const Expr *L = nullptr, *R = nullptr;
  std::optional<CombineOp> Op;
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    L = BO->getLHS();
    R = BO->getRHS();
    switch (BO->getOpcode()) {
    case BO_Add: Op = CombineOp::Sum; break;
    case BO_Mul: Op = CombineOp::Product; break;
    case BO_And: Op = CombineOp::And; break;
    case BO_Or: Op = CombineOp::Or; break;
    case BO_Xor: Op = CombineOp::Xor; break;
    default: return std::nullopt;
    }
  } else if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (CE->getNumArgs() != 2)
      return std::nullopt;
    StringRef N = calleeName(CE);
    if (N == "fmaxf" || N == "fmax" || N == "max")
      Op = CombineOp::Max;
    else if (N == "fminf" || N == "fmin" || N == "min")
      Op = CombineOp::Min;
    else
      return std::nullopt;
    L = CE->getArg(0);
    R = CE->getArg(1);
  } else {
    return std::nullopt;
  }
  if (isParam(L, V)) {
    Other = R;
    return Op;
  }
  if (isParam(R, V)) {
    Other = L;
    return Op;
  }
  return std::nullopt;
}

Expected<CombineOp> summarizeCasHelper(ASTContext &Ctx,
                                       const FunctionDecl *FD) {
  std::string Name = FD->getNameAsString();
  auto NotCas = [&](const Twine &Why) {
    return refuse("the helper '" + Name + "' is not a compare-and-swap "
                  "atomic update: " + Why);
  };
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody())
    return NotCas("its body is not in this file");
  if (Def->getNumParams() != 2 ||
      !Def->getParamDecl(0)->getType()->isPointerType())
    return NotCas("it does not take (T *address, T value)");
  const ParmVarDecl *Addr = Def->getParamDecl(0);
  const ParmVarDecl *Val = Def->getParamDecl(1);
  if (!isShuffleType(Ctx, Val->getType()))
    return NotCas("its value has type '" + Val->getType().getAsString() + "'");
  CasSite S;
  S.TraverseStmt(Def->getBody());
  if (!S.Cas)
    return NotCas("it has no atomicCAS");
  if (S.Atomics != 1)
    return NotCas("it performs more than one atomic operation");
  if (S.Stores != 0)
    return NotCas("it stores to memory outside the compare-and-swap");
  if (!S.Loop)
    return NotCas("its atomicCAS is not retried in a loop");
  // The address: the pointer parameter, possibly through a cast or a local
  // initialised from it.
  const Expr *P = strip(S.Cas->getArg(0));
  if (const auto *C = dyn_cast<ExplicitCastExpr>(P))
    P = strip(C->getSubExpr());
  if (const VarDecl *Local = varOf(P); Local && Local != Addr) {
    if (!Local->getInit() ||
        !isNeverModifiedAfterInit(Local, Def->getBody(), Ctx))
      return NotCas("its atomicCAS address is not the address parameter");
    P = strip(Local->getInit());
    if (const auto *C = dyn_cast<ExplicitCastExpr>(P))
      P = strip(C->getSubExpr());
  }
  if (varOf(P) != Addr)
    return NotCas("its atomicCAS address is not the address parameter");
  // The value stored.
  const Expr *Stored = throughBitCast(S.Cas->getArg(2));
  if (varOf(Stored) == Val) {
    // Stores v itself: a maximum under `old < v`, a minimum under `old > v`.
    const auto *Cond =
        dyn_cast_or_null<BinaryOperator>(strip(S.LoopCond));
    if (!Cond || !Cond->isRelationalOp())
      return NotCas("it stores the value unconditionally");
    BinaryOperatorKind Op = Cond->getOpcode();
    if (isParam(Cond->getLHS(), Val))
      Op = BinaryOperator::reverseComparisonOp(Op);
    else if (!isParam(Cond->getRHS(), Val))
      return NotCas("its loop condition does not compare with the value");
    // Now `old Op v`.
    if (Op == BO_LT || Op == BO_LE)
      return CombineOp::Max;
    if (Op == BO_GT || Op == BO_GE)
      return CombineOp::Min;
    return NotCas("its loop condition is not a comparison");
  }
  const Expr *Other = nullptr;
  std::optional<CombineOp> Op = combineOf(Stored, Val, Other);
  if (!Op)
    return NotCas("the value it stores is not the value combined with the "
                  "old one");
  // The other operand is the old value the CAS compares against.
  const VarDecl *Old = varOf(throughBitCast(Other));
  const VarDecl *Expected = varOf(throughBitCast(S.Cas->getArg(1)));
  if (!Old || Old != Expected)
    return NotCas("the value it stores does not combine with the compared "
                  "old value");
  return *Op;
}

//===----------------------------------------------------------------------===//
// Uniform addresses
//===----------------------------------------------------------------------===//

static bool uniform(ASTContext &Ctx, const Expr *E, const FunctionDecl *Kernel,
                    std::string &Why, unsigned Depth) {
  if (Depth > 8) {
    Why = "is too deeply nested to analyse";
    return false;
  }
  E = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    if (IC->getCastKind() == CK_LValueToRValue) {
      // Only local and parameter variables may be read.
      const Expr *Sub = IC->getSubExpr()->IgnoreParens();
      if (!isa<DeclRefExpr>(Sub)) {
        Why = "reads memory ('" + sourceText(Ctx, Sub->getSourceRange()) +
              "')";
        return false;
      }
    }
    return uniform(Ctx, IC->getSubExpr(), Kernel, Why, Depth + 1);
  }
  if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    return uniform(Ctx, C->getSubExpr(), Kernel, Why, Depth + 1);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD) {
      if (isa<EnumConstantDecl>(DRE->getDecl()))
        return true;
      Why = "names '" + DRE->getDecl()->getNameAsString() + "'";
      return false;
    }
    StringRef N = VD->getName();
    if (N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
        N == "gridDim") {
      Why = "reads " + N.str();
      return false;
    }
    if (VD->hasAttr<CUDASharedAttr>()) {
      Why = "names the shared variable '" + N.str() + "'";
      return false;
    }
    if (const auto *P = dyn_cast<ParmVarDecl>(VD)) {
      if (Kernel->getBody() &&
          !isNeverModifiedAfterInit(P, Kernel->getBody(), Ctx)) {
        Why = "uses the parameter '" + N.str() + "', which the kernel changes";
        return false;
      }
      return true;
    }
    if (VD->hasLocalStorage()) {
      if (!VD->getInit() || !Kernel->getBody() ||
          !isNeverModifiedAfterInit(VD, Kernel->getBody(), Ctx)) {
        Why = "uses '" + N.str() + "', which is assigned in the kernel";
        return false;
      }
      return uniform(Ctx, VD->getInit(), Kernel, Why, Depth + 1);
    }
    if (VD->getType().isConstQualified() && VD->getInit())
      return uniform(Ctx, VD->getInit(), Kernel, Why, Depth + 1);
    // A __device__ global variable: its address is uniform, its value is
    // memory.
    if (DRE->getType()->isArrayType())
      return true;
    Why = "reads the global variable '" + N.str() + "'";
    return false;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    switch (UO->getOpcode()) {
    case UO_AddrOf: {
      // &a[k], &*p: the address, not a read.
      const Expr *Sub = UO->getSubExpr()->IgnoreParens();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub))
        return uniform(Ctx, AS->getBase(), Kernel, Why, Depth + 1) &&
               uniform(Ctx, AS->getIdx(), Kernel, Why, Depth + 1);
      if (const auto *D = dyn_cast<UnaryOperator>(Sub);
          D && D->getOpcode() == UO_Deref)
        return uniform(Ctx, D->getSubExpr(), Kernel, Why, Depth + 1);
      if (isa<DeclRefExpr>(Sub))
        return uniform(Ctx, Sub, Kernel, Why, Depth + 1);
      Why = "takes the address of '" + sourceText(Ctx, Sub->getSourceRange()) +
            "'";
      return false;
    }
    case UO_Minus:
    case UO_Plus:
    case UO_Not:
      return uniform(Ctx, UO->getSubExpr(), Kernel, Why, Depth + 1);
    default:
      break;
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add:
    case BO_Sub:
    case BO_Mul:
    case BO_Div:
    case BO_Rem:
    case BO_Shl:
    case BO_Shr:
    case BO_And:
    case BO_Or:
    case BO_Xor:
      return uniform(Ctx, BO->getLHS(), Kernel, Why, Depth + 1) &&
             uniform(Ctx, BO->getRHS(), Kernel, Why, Depth + 1);
    default:
      break;
    }
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    // An array decayed to a pointer (`&table[k]` without the &).
    (void)AS;
    Why = "reads memory ('" + sourceText(Ctx, E->getSourceRange()) + "')";
    return false;
  }
  Why = "is computed as '" + sourceText(Ctx, E->getSourceRange()) + "'";
  return false;
}

bool isGridUniform(ASTContext &Ctx, const Expr *Address,
                   const FunctionDecl *Kernel, std::string &Why) {
  // The thread and block indices first: the most common reason.
  class Builtins : public RecursiveASTVisitor<Builtins> {
  public:
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      StringRef N = D->getDecl()->getDeclName().isIdentifier()
                        ? D->getDecl()->getName()
                        : "";
      if (Name.empty() && (N == "threadIdx" || N == "blockIdx" ||
                           N == "blockDim" || N == "gridDim"))
        Name = N.str();
      return true;
    }
    std::string Name;
  } B;
  B.TraverseStmt(const_cast<Expr *>(Address));
  if (!B.Name.empty() && B.Name != "blockDim" && B.Name != "gridDim") {
    Why = "reads " + B.Name;
    return false;
  }
  return uniform(Ctx, Address, Kernel, Why, 0);
}

//===----------------------------------------------------------------------===//
// Identities and combines
//===----------------------------------------------------------------------===//

std::optional<std::string> identityText(ASTContext &Ctx, CombineOp Op,
                                        QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (!isShuffleType(Ctx, T))
    return std::nullopt;
  bool F32 = T->isSpecificBuiltinType(BuiltinType::Float);
  if (isFloating(T)) {
    switch (Op) {
    case CombineOp::Sum: return std::string(F32 ? "0.0f" : "0.0");
    case CombineOp::Product: return std::string(F32 ? "1.0f" : "1.0");
    // Infinities as bit patterns: no header needed.
    case CombineOp::Max:
      return std::string(F32 ? "__int_as_float(0xff800000) /* -inf */"
                             : "__longlong_as_double(0xfff0000000000000ULL) "
                               "/* -inf */");
    case CombineOp::Min:
      return std::string(F32 ? "__int_as_float(0x7f800000) /* +inf */"
                             : "__longlong_as_double(0x7ff0000000000000ULL) "
                               "/* +inf */");
    default: return std::nullopt;
    }
  }
  bool Signed = T->isSignedIntegerType();
  bool Wide = Ctx.getTypeSize(T) == 64;
  std::string TypeName = T.getAsString(Ctx.getPrintingPolicy());
  std::string Suffix = Signed ? (Wide ? "LL" : "") : (Wide ? "ULL" : "u");
  switch (Op) {
  case CombineOp::Sum:
  case CombineOp::Or:
  case CombineOp::Xor:
    return "0" + Suffix;
  case CombineOp::Product:
    return "1" + Suffix;
  case CombineOp::And:
    return "~0" + Suffix;
  case CombineOp::Max:
    if (!Signed)
      return "0" + Suffix;
    return std::string(Wide ? "(-9223372036854775807LL - 1)"
                            : "(-2147483647 - 1)");
  case CombineOp::Min:
    if (!Signed)
      return "~0" + Suffix;
    return std::string(Wide ? "9223372036854775807LL" : "2147483647");
  }
  return std::nullopt;
}

std::string combineText(ASTContext &Ctx, CombineOp Op, QualType T, StringRef A,
                        StringRef B) {
  T = T.getCanonicalType();
  bool F32 = T->isSpecificBuiltinType(BuiltinType::Float);
  bool F64 = T->isSpecificBuiltinType(BuiltinType::Double);
  auto Call = [&](StringRef F) { return (F + "(" + A + ", " + B + ")").str(); };
  switch (Op) {
  case CombineOp::Sum: return (A + " + " + B).str();
  case CombineOp::Product: return (A + " * " + B).str();
  case CombineOp::And: return (A + " & " + B).str();
  case CombineOp::Or: return (A + " | " + B).str();
  case CombineOp::Xor: return (A + " ^ " + B).str();
  case CombineOp::Max: return Call(F32 ? "fmaxf" : F64 ? "fmax" : "max");
  case CombineOp::Min: return Call(F32 ? "fminf" : F64 ? "fmin" : "min");
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Value ranges
//===----------------------------------------------------------------------===//

static std::optional<int64_t> constInt(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  const APSInt &V = R.Val.getInt();
  if (V.getSignificantBits() > 63)
    return std::nullopt;
  return V.getExtValue();
}

static std::optional<ValueRange> typeRange(ASTContext &Ctx, QualType T) {
  T = T.getCanonicalType();
  if (!T->isIntegerType())
    return std::nullopt;
  uint64_t Bits = Ctx.getTypeSize(T);
  if (Bits > 16)
    return std::nullopt; // 32-bit ranges say nothing useful here
  if (T->isSignedIntegerType())
    return ValueRange{-(int64_t(1) << (Bits - 1)),
                      (int64_t(1) << (Bits - 1)) - 1};
  return ValueRange{0, (int64_t(1) << Bits) - 1};
}

static std::optional<ValueRange> meet(std::optional<ValueRange> A,
                                      std::optional<ValueRange> B) {
  if (!A)
    return B;
  if (!B)
    return A;
  return ValueRange{std::max(A->Lo, B->Lo), std::min(A->Hi, B->Hi)};
}

static std::optional<ValueRange> rangeRec(ASTContext &Ctx, const Expr *E,
                                          const Stmt *Scope, unsigned Depth);

/// Calls \p Visit on each comparison among the `&&`-joined conditions of
/// the `if`s whose then-branch holds \p Use, innermost first, up to \p Scope.
static void
forEachGuardComparison(ASTContext &Ctx, const Expr *Use, const Stmt *Scope,
                       function_ref<void(const BinaryOperator *)> Visit) {
  DynTypedNode Node = DynTypedNode::create(*Use);
  for (unsigned Steps = 0; Steps < 64; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    DynTypedNode P = Parents[0];
    if (const auto *If = P.get<IfStmt>();
        If && Node.get<Stmt>() == If->getThen()) {
      SmallVector<const Expr *, 4> Leaves{If->getCond()};
      for (size_t I = 0; I < Leaves.size(); ++I) {
        const auto *BO = dyn_cast<BinaryOperator>(strip(Leaves[I]));
        if (!BO)
          continue;
        if (BO->getOpcode() == BO_LAnd) {
          Leaves.push_back(BO->getLHS());
          Leaves.push_back(BO->getRHS());
          continue;
        }
        if (BO->isRelationalOp())
          Visit(BO);
      }
    }
    if (P.get<Stmt>() == Scope || P.get<Decl>())
      break;
    Node = P;
  }
}

/// What the conditions of the `if`s around \p Use (inside \p Scope) say
/// about variable \p V: `if (v < K)`, `if (v >= 0 && v < K)`; `if (v > K)
/// return;` is not followed.
static std::optional<ValueRange> rangeFromGuards(ASTContext &Ctx,
                                                 const Expr *Use,
                                                 const VarDecl *V,
                                                 const Stmt *Scope) {
  std::optional<ValueRange> R;
  forEachGuardComparison(Ctx, Use, Scope, [&](const BinaryOperator *BO) {
    BinaryOperatorKind Op = BO->getOpcode();
    const Expr *Other;
    if (varOf(BO->getLHS()) == V) {
      Other = BO->getRHS();
    } else if (varOf(BO->getRHS()) == V) {
      Other = BO->getLHS();
      Op = BinaryOperator::reverseComparisonOp(Op);
    } else {
      return;
    }
    std::optional<int64_t> K = constInt(Ctx, Other);
    if (!K)
      return;
    ValueRange Add{INT64_MIN, INT64_MAX};
    if (Op == BO_LT)
      Add.Hi = *K - 1;
    else if (Op == BO_LE)
      Add.Hi = *K;
    else if (Op == BO_GT)
      Add.Lo = *K + 1;
    else if (Op == BO_GE)
      Add.Lo = *K;
    R = meet(R, Add);
  });
  return R;
}

static std::optional<ValueRange> rangeRec(ASTContext &Ctx, const Expr *E,
                                          const Stmt *Scope, unsigned Depth) {
  if (!E || Depth > 8)
    return std::nullopt;
  if (std::optional<int64_t> K = constInt(Ctx, E))
    return ValueRange{*K, *K};
  const Expr *Bare = E->IgnoreParens();
  std::optional<ValueRange> ByType = typeRange(Ctx, Bare->getType());
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(Bare)) {
    // Widening integer conversions keep the range.
    std::optional<ValueRange> Sub =
        rangeRec(Ctx, IC->getSubExpr(), Scope, Depth + 1);
    if (IC->getCastKind() == CK_LValueToRValue || !Sub)
      return meet(Sub, ByType);
    if (IC->getCastKind() == CK_IntegralCast &&
        Ctx.getTypeSize(IC->getType()) >=
            Ctx.getTypeSize(IC->getSubExpr()->getType()) &&
        (Sub->Lo >= 0 || IC->getType()->isSignedIntegerType()))
      return Sub;
    return ByType;
  }
  if (const auto *C = dyn_cast<ExplicitCastExpr>(Bare)) {
    std::optional<ValueRange> Sub =
        rangeRec(Ctx, C->getSubExpr(), Scope, Depth + 1);
    if (Sub && C->getType()->isIntegerType() &&
        C->getSubExpr()->getType()->isIntegerType() &&
        Ctx.getTypeSize(C->getType()) >=
            Ctx.getTypeSize(C->getSubExpr()->getType()) &&
        (Sub->Lo >= 0 || C->getType()->isSignedIntegerType()))
      return Sub;
    return ByType;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    std::optional<ValueRange> R = ByType;
    if (VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
        VD->getInit() && isNeverModifiedAfterInit(VD, Scope, Ctx))
      R = meet(R, rangeRec(Ctx, VD->getInit(), Scope, Depth + 1));
    if (VD)
      R = meet(R, rangeFromGuards(Ctx, DRE, VD, Scope));
    return R;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(Bare)) {
    std::optional<int64_t> K = constInt(Ctx, BO->getRHS());
    std::optional<ValueRange> L = rangeRec(Ctx, BO->getLHS(), Scope, Depth + 1);
    switch (BO->getOpcode()) {
    case BO_Rem:
      // x % K is in [0, K-1] when x >= 0 (C++ truncates toward zero).
      if (!K || *K <= 0)
        return std::nullopt;
      if ((L && L->Lo >= 0) ||
          BO->getLHS()->getType()->isUnsignedIntegerType())
        return meet(ValueRange{0, *K - 1}, L);
      // A negative x gives a remainder in (-K, 0].
      return ValueRange{-(*K - 1), *K - 1};
    case BO_And: {
      std::optional<int64_t> KL = constInt(Ctx, BO->getLHS());
      std::optional<int64_t> M = K ? K : KL;
      if (M && *M >= 0)
        return ValueRange{0, *M};
      return std::nullopt;
    }
    case BO_Shr: {
      if (!K || *K < 0 || *K >= 64)
        return std::nullopt;
      if (L && L->Lo >= 0)
        return ValueRange{L->Lo >> *K, L->Hi >> *K};
      QualType LT = BO->getLHS()->getType().getCanonicalType();
      if (LT->isUnsignedIntegerType() && Ctx.getTypeSize(LT) - *K < 63)
        return ValueRange{0, (int64_t(1) << (Ctx.getTypeSize(LT) - *K)) - 1};
      return std::nullopt;
    }
    case BO_Add:
    case BO_Sub:
    case BO_Mul: {
      std::optional<ValueRange> R =
          rangeRec(Ctx, BO->getRHS(), Scope, Depth + 1);
      if (!L || !R)
        return std::nullopt;
      auto Limit = [](int64_t V) { return V > -(1LL << 40) && V < (1LL << 40); };
      if (!Limit(L->Lo) || !Limit(L->Hi) || !Limit(R->Lo) || !Limit(R->Hi))
        return std::nullopt;
      if (BO->getOpcode() == BO_Add)
        return ValueRange{L->Lo + R->Lo, L->Hi + R->Hi};
      if (BO->getOpcode() == BO_Sub)
        return ValueRange{L->Lo - R->Hi, L->Hi - R->Lo};
      int64_t P[4] = {L->Lo * R->Lo, L->Lo * R->Hi, L->Hi * R->Lo,
                      L->Hi * R->Hi};
      return ValueRange{*std::min_element(P, P + 4),
                        *std::max_element(P, P + 4)};
    }
    default:
      return ByType;
    }
  }
  if (const auto *CE = dyn_cast<CallExpr>(Bare)) {
    StringRef N = calleeName(CE);
    if ((N == "min" || N == "max" || N == "umin" || N == "umax") &&
        CE->getNumArgs() == 2) {
      std::optional<ValueRange> A = rangeRec(Ctx, CE->getArg(0), Scope, Depth + 1);
      std::optional<ValueRange> B = rangeRec(Ctx, CE->getArg(1), Scope, Depth + 1);
      // One unbounded operand (a converted float, `max((int)(x * 64), 0)`)
      // takes its type's whole range: max keeps the other's lower bound,
      // min its upper one. Unsigned 64-bit values do not fit the range.
      QualType T = CE->getType().getCanonicalType();
      if ((A || B) && !(A && B) && T->isIntegerType() &&
          (Ctx.getTypeSize(T) <= 32 || T->isSignedIntegerType())) {
        uint64_t Bits = Ctx.getTypeSize(T);
        ValueRange Whole =
            Bits == 64 ? ValueRange{INT64_MIN, INT64_MAX}
            : T->isSignedIntegerType()
                ? ValueRange{-(int64_t(1) << (Bits - 1)),
                             (int64_t(1) << (Bits - 1)) - 1}
                : ValueRange{0, (int64_t(1) << Bits) - 1};
        (A ? B : A) = Whole;
      }
      if (N.ends_with("min")) {
        // min(a, b) <= either bound; its lower bound needs both.
        if (A && B)
          return ValueRange{std::min(A->Lo, B->Lo), std::min(A->Hi, B->Hi)};
        return std::nullopt;
      }
      if (A && B)
        return ValueRange{std::max(A->Lo, B->Lo), std::max(A->Hi, B->Hi)};
      return std::nullopt;
    }
  }
  return ByType;
}

std::optional<ValueRange> valueRangeOf(ASTContext &Ctx, const Expr *E,
                                       const Stmt *Scope) {
  std::optional<ValueRange> R = rangeRec(Ctx, E, Scope, 0);
  if (R && (R->Lo > R->Hi || R->Lo == INT64_MIN || R->Hi == INT64_MAX))
    return std::nullopt;
  return R;
}

/// The parameter P of the `if (V < P)` / `if (P > V)` around \p Use.
static const ParmVarDecl *guardParam(ASTContext &Ctx, const Expr *Use,
                                     const VarDecl *V, const Stmt *Scope) {
  const ParmVarDecl *Found = nullptr;
  forEachGuardComparison(Ctx, Use, Scope, [&](const BinaryOperator *BO) {
    if (Found)
      return;
    const Expr *Other = nullptr;
    if (BO->getOpcode() == BO_LT && varOf(BO->getLHS()) == V)
      Other = BO->getRHS();
    else if (BO->getOpcode() == BO_GT && varOf(BO->getRHS()) == V)
      Other = BO->getLHS();
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(varOf(Other));
    if (Param && Param->getType()->isIntegerType() &&
        isNeverModifiedAfterInit(Param, Scope, Ctx))
      Found = Param;
  });
  return Found;
}

std::optional<ParamBound> paramBoundOf(ASTContext &Ctx, const Expr *E,
                                       const Stmt *Scope) {
  const auto *DRE = dyn_cast<DeclRefExpr>(strip(E));
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->getType()->isIntegerType())
    return std::nullopt;
  const ParmVarDecl *P = guardParam(Ctx, DRE, V, Scope);
  if (!P)
    return std::nullopt;
  std::optional<ValueRange> R = rangeRec(Ctx, E, Scope, 0);
  return ParamBound{P, R ? R->Lo : INT64_MIN};
}

} // namespace cuda_opt
