//===- AccessAnalysis.cpp - Memory accesses and synchronisation ----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/AccessAnalysis.h"
#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

StringRef spaceName(MemorySpace S) {
  switch (S) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Constant:
    return "constant";
  case MemorySpace::Unknown:
    break;
  }
  return "unknown";
}

StringRef accessKindName(AccessKind K) {
  switch (K) {
  case AccessKind::Read:
    return "read";
  case AccessKind::Write:
    return "write";
  case AccessKind::ReadWrite:
    return "readwrite";
  case AccessKind::Atomic:
    break;
  }
  return "atomic";
}

StringRef patternName(AccessPattern P) {
  switch (P) {
  case AccessPattern::Coalesced:
    return "coalesced";
  case AccessPattern::Strided:
    return "strided";
  case AccessPattern::Broadcast:
    return "broadcast";
  case AccessPattern::Irregular:
    break;
  }
  return "irregular";
}

static bool isIndexVariable(const IndexSymbol &S) {
  switch (S.Kind) {
  case SymbolKind::ThreadIdx:
  case SymbolKind::BlockIdx:
  case SymbolKind::LoopIter:
  case SymbolKind::LoopVar:
    return true;
  default:
    return false;
  }
}

void classifyAccess(MemoryAccess &A, const SymbolTable &Symbols) {
  std::optional<unsigned> TX = Symbols.findBuiltin(SymbolKind::ThreadIdx, 0);
  A.Affine = true;
  for (const auto &[Mono, Coeff] : A.Index.terms()) {
    (void)Coeff;
    unsigned IndexVars = 0;
    for (unsigned S : Mono) {
      const IndexSymbol &Sym = Symbols[S];
      if (isIndexVariable(Sym))
        ++IndexVars;
      if (Sym.Kind == SymbolKind::Opaque && (Sym.Deps & DepVarying))
        A.Affine = false;
      if (TX && S == *TX)
        continue;
      if (A.Reason.empty() && (Sym.Deps & DepData))
        A.Reason = "index depends on loaded data (" + Sym.Name + ")";
      else if (A.Reason.empty() && (Sym.Deps & DepThreadX))
        A.Reason = "index is not affine in threadIdx.x (" + Sym.Name + ")";
    }
    if (IndexVars > 1)
      A.Affine = false;
  }
  if (!A.Reason.empty()) {
    A.Pattern = AccessPattern::Irregular;
    A.Affine = false;
    return;
  }
  if (!TX || !A.Index.mentions(*TX)) {
    A.Pattern = AccessPattern::Broadcast;
    A.Stride = 0;
    A.StrideText = "0";
    return;
  }
  std::optional<IndexExpr> Coeff = A.Index.coefficientOf(*TX);
  if (!Coeff) {
    A.Pattern = AccessPattern::Irregular;
    A.Reason = "index is not linear in threadIdx.x";
    return;
  }
  A.StrideText = Coeff->str(Symbols);
  A.Stride = Coeff->getConstant();
  if (A.Stride && (*A.Stride == 1 || *A.Stride == -1))
    A.Pattern = AccessPattern::Coalesced;
  else if (A.Stride && *A.Stride == 0)
    A.Pattern = AccessPattern::Broadcast;
  else
    A.Pattern = AccessPattern::Strided;
}

namespace {

/// Role of an lvalue expression in its context.
enum class Role { Read, Write, ReadWrite, Atomic, AddressOnly };

/// Where a pointer expression points: a base and an element offset.
struct PointerTarget {
  const ValueDecl *Decl = nullptr;
  std::string Name;
  MemorySpace Space = MemorySpace::Unknown;
  IndexExpr Offset;
  bool Local = false; ///< a register array of the thread: not memory traffic
};

/// The opcode and operands of a binary operator, also when a template left
/// it as an overloaded-operator call.
struct BinaryParts {
  BinaryOperatorKind Op = BO_Comma;
  const Expr *LHS = nullptr;
  const Expr *RHS = nullptr;
};

std::optional<BinaryParts> binaryParts(const Expr *E) {
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return BinaryParts{BO->getOpcode(), BO->getLHS(), BO->getRHS()};
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getNumArgs() != 2)
      return std::nullopt;
    BinaryOperatorKind Op =
        BinaryOperator::getOverloadedOpcode(OC->getOperator());
    return BinaryParts{Op, OC->getArg(0), OC->getArg(1)};
  }
  return std::nullopt;
}

StringRef calleeName(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    if (FD->getDeclName().isIdentifier())
      return FD->getName();
  const Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
    if (ULE->getName().isIdentifier())
      return ULE->getName().getAsIdentifierInfo()->getName();
  if (const auto *ME = dyn_cast<MemberExpr>(Callee))
    if (ME->getMemberDecl()->getDeclName().isIdentifier())
      return ME->getMemberDecl()->getName();
  if (const auto *DME = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    if (DME->getMember().isIdentifier())
      return DME->getMember().getAsIdentifierInfo()->getName();
  return "";
}

/// Floating-point operations of a math library call (0 if not one).
unsigned mathCallFlops(StringRef Name) {
  Name.consume_front("__");
  if (Name.starts_with("fma"))
    return 2;
  static const char *const OneFlop[] = {
      "sqrt",    "rsqrt",   "cbrt",    "exp",   "exp2", "exp10", "expm1",
      "log",     "log2",    "log10",   "log1p", "sin",  "cos",   "tan",
      "sinh",    "cosh",    "tanh",    "asin",  "acos", "atan",  "atan2",
      "pow",     "fmax",    "fmin",    "erf",   "erfc", "hypot", "fdividef",
      "fdiv_rn", "frcp_rn", "fsqrt_rn"};
  for (const char *F : OneFlop) {
    StringRef Base(F);
    if (Name == Base || Name == (Base + "f").str())
      return 1;
  }
  return 0;
}

class BodyWalker {
public:
  BodyWalker(IndexExprBuilder &B, std::vector<LoopInfo> &Loops)
      : B(B), Ctx(B.context()), Loops(Loops) {
    for (unsigned I = 0; I < Loops.size(); ++I)
      LoopIndex[Loops[I].S] = I;
    Out.Flops = IndexExpr::constant(0);
    Out.GlobalBytes = IndexExpr::constant(0);
  }

  void walk(const Stmt *S) {
    // A lambda's body runs where it is called; its parameters are not the
    // kernel's, so its accesses cannot be placed.
    if (!S || isa<LambdaExpr>(S))
      return;
    markRoles(S);
    auto LoopIt = LoopIndex.find(S);
    bool IsLoop = LoopIt != LoopIndex.end();
    if (IsLoop)
      LoopStack.push_back(LoopIt->second);
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      walk(If->getInit());
      walk(If->getConditionVariableDeclStmt());
      walk(If->getCond());
      bool Divergent = B.dependence(If->getCond()) & DepThread;
      DivergenceStack.push_back(Divergent);
      walk(If->getThen());
      walk(If->getElse());
      DivergenceStack.pop_back();
      // `if (i >= n) return;`: only some threads reach what follows.
      if (Divergent &&
          (containsReturn(If->getThen()) || containsReturn(If->getElse())))
        ExitedEarly = true;
    } else {
      for (const Stmt *Child : S->children())
        walk(Child);
    }
    if (const auto *E = dyn_cast<Expr>(S))
      visitExpr(E);
    if (IsLoop)
      LoopStack.pop_back();
  }

  BodySummary Out;

private:
  int innermostLoop() const {
    return LoopStack.empty() ? -1 : int(LoopStack.back());
  }

  IndexExpr weight() const {
    IndexExpr W = IndexExpr::constant(1);
    for (unsigned L : LoopStack)
      W = W * Loops[L].Weight;
    return W;
  }

  bool divergent() const {
    return ExitedEarly || llvm::is_contained(DivergenceStack, true);
  }

  static bool containsReturn(const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (isa<ReturnStmt>(S))
      return true;
    return llvm::any_of(S->children(),
                        [](const Stmt *C) { return containsReturn(C); });
  }

  std::string location(const Stmt *S) const {
    return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
  }

  void setRole(const Expr *E, Role R) {
    if (!E)
      return;
    E = E->IgnoreParens();
    auto It = Roles.find(E);
    if (It != Roles.end() && It->second == Role::Atomic)
      return;
    Roles[E] = R;
  }

  /// Pre-order: tell the lvalue children how they are used.
  void markRoles(const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E)
      return;
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->isIncrementDecrementOp())
        setRole(UO->getSubExpr(), Role::ReadWrite);
      else if (UO->getOpcode() == UO_AddrOf &&
               !Roles.count(UO->getSubExpr()->IgnoreParens()))
        setRole(UO->getSubExpr(), Role::AddressOnly);
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      // atomicAdd(&a[i], v), __ldg(&a[i]), __stcs(&a[i], v): the pointed-to
      // element is accessed.
      StringRef Name = calleeName(CE);
      std::optional<Role> R;
      if (Name.starts_with("atomic"))
        R = Role::Atomic;
      else if (Name.starts_with("__ld"))
        R = Role::Read;
      else if (Name.starts_with("__st"))
        R = Role::Write;
      if (R && !isa<CXXOperatorCallExpr>(CE) && CE->getNumArgs() > 0)
        if (const auto *UO =
                dyn_cast<UnaryOperator>(CE->getArg(0)->IgnoreParenCasts()))
          if (UO->getOpcode() == UO_AddrOf)
            Roles[UO->getSubExpr()->IgnoreParens()] = *R;
    }
    std::optional<BinaryParts> BP = binaryParts(E);
    if (!BP || !BinaryOperator::isAssignmentOp(BP->Op))
      return;
    setRole(BP->LHS, BP->Op == BO_Assign ? Role::Write : Role::ReadWrite);
  }

  void visitExpr(const Expr *E) {
    if (isa<ArraySubscriptExpr>(E)) {
      visitLValue(E);
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_Deref)
        visitLValue(E);
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(E))
      visitCall(CE);
    if (std::optional<BinaryParts> BP = binaryParts(E)) {
      countFlops(E, BP->Op);
      visitAccumulation(E, *BP);
    }
  }

  // Memory accesses ---------------------------------------------------------

  IndexExpr arrayLength(QualType T) {
    if (const auto *CAT = Ctx.getAsConstantArrayType(T))
      return IndexExpr::constant(CAT->getSize().getSExtValue());
    if (const auto *DAT = dyn_cast<DependentSizedArrayType>(T.getTypePtr()))
      if (DAT->getSizeExpr())
        return B.build(DAT->getSizeExpr());
    return IndexExpr::symbol(B.symbols().opaque(
        "extent(" + T.getAsString(Ctx.getPrintingPolicy()) + ")", DepNone));
  }

  PointerTarget subscriptTarget(const ArraySubscriptExpr *ASE,
                                std::string &IndexText) {
    const Expr *Base = ASE->getBase()->IgnoreParenImpCasts();
    IndexExpr Idx = B.build(ASE->getIdx());
    std::string Own = B.text(ASE->getIdx());
    if (const auto *Inner = dyn_cast<ArraySubscriptExpr>(Base)) {
      if (Inner->getType()->isArrayType()) {
        PointerTarget T = subscriptTarget(Inner, IndexText);
        T.Offset = T.Offset * arrayLength(Inner->getType()) + Idx;
        IndexText += "[" + Own + "]";
        return T;
      }
    }
    PointerTarget T = pointerTarget(Base);
    T.Offset = T.Offset + Idx;
    IndexText = "[" + Own + "]";
    return T;
  }

  PointerTarget pointerTarget(const Expr *P) {
    P = P->IgnoreParenCasts();
    PointerTarget T;
    T.Offset = IndexExpr::constant(0);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(P)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      T.Decl = DRE->getDecl();
      T.Name = DRE->getDecl()->getNameAsString();
      if (!V)
        return T;
      if (isa<ParmVarDecl>(V)) {
        if (V->getType()->isPointerType() || V->getType()->isArrayType())
          T.Space = MemorySpace::Global;
        if (!B.writesOf(V).empty())
          T.Offset = B.build(DRE); // moved around: opaque position
        return T;
      }
      if (!V->hasLocalStorage()) {
        if (V->hasAttr<CUDASharedAttr>())
          T.Space = MemorySpace::Shared;
        else if (V->hasAttr<CUDAConstantAttr>())
          T.Space = MemorySpace::Constant;
        else if (V->hasAttr<CUDADeviceAttr>())
          T.Space = MemorySpace::Global;
        return T;
      }
      if (V->getType()->isArrayType()) {
        T.Local = true;
        return T;
      }
      if (!V->getInit())
        return T;
      // A local pointer: follow its initialiser to the real base.
      PointerTarget Init = pointerTarget(V->getInit());
      if (!B.writesOf(V).empty())
        Init.Offset = B.build(DRE); // moved around: opaque position
      return Init;
    }
    if (std::optional<BinaryParts> BP = binaryParts(P)) {
      if (BP->Op == BO_Add || BP->Op == BO_Sub) {
        bool LeftIsPtr = BP->LHS->getType()->isPointerType() ||
                         BP->LHS->getType()->isArrayType();
        const Expr *Ptr = LeftIsPtr ? BP->LHS : BP->RHS;
        const Expr *Off = LeftIsPtr ? BP->RHS : BP->LHS;
        PointerTarget T2 = pointerTarget(Ptr);
        IndexExpr O = B.build(Off);
        T2.Offset = BP->Op == BO_Add ? T2.Offset + O : T2.Offset - O;
        return T2;
      }
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_AddrOf) {
        const Expr *Sub = UO->getSubExpr()->IgnoreParens();
        if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Sub)) {
          std::string Ignored;
          return subscriptTarget(ASE, Ignored);
        }
        // &counter of a __device__ or __shared__ scalar.
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            if (!V->hasLocalStorage())
              return pointerTarget(DRE);
      }
    }
    T.Name = B.text(P);
    // `p.data` of a struct parameter passed by value points to global memory
    // like any other pointer the kernel receives.
    if (const auto *ME = dyn_cast<MemberExpr>(P)) {
      T.Decl = ME->getMemberDecl();
      const Expr *Root = ME->getBase()->IgnoreParenImpCasts();
      while (const auto *Inner = dyn_cast<MemberExpr>(Root))
        Root = Inner->getBase()->IgnoreParenImpCasts();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Root))
        if (isa<ParmVarDecl>(DRE->getDecl()) && !ME->isArrow() &&
            ME->getType()->isPointerType())
          T.Space = MemorySpace::Global;
    }
    return T;
  }

  void visitLValue(const Expr *E) {
    if (E->getType()->isArrayType())
      return; // tile[ty] of tile[ty][tx]: not an access by itself
    if (E->getType()->isFunctionType())
      return; // (*fp)(x) calls, it does not load
    // v[0] of a vector value lives in registers.
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      if (!ASE->getBase()->getType()->isPointerType() &&
          !ASE->getBase()->getType()->isArrayType() &&
          !ASE->getBase()->getType()->isDependentType())
        return;
    auto RoleIt = Roles.find(E);
    Role R = RoleIt == Roles.end() ? Role::Read : RoleIt->second;
    if (R == Role::AddressOnly)
      return;
    std::string IndexText;
    PointerTarget T;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      T = subscriptTarget(ASE, IndexText);
      if (IndexText.size() > 2 && IndexText.find("][") == std::string::npos)
        IndexText = IndexText.substr(1, IndexText.size() - 2);
    } else {
      const Expr *Ptr = cast<UnaryOperator>(E)->getSubExpr();
      T = pointerTarget(Ptr);
      IndexText = B.text(Ptr);
    }
    if (T.Local)
      return;
    AccessKind Kind = AccessKind::Read;
    if (R == Role::Write)
      Kind = AccessKind::Write;
    else if (R == Role::ReadWrite)
      Kind = AccessKind::ReadWrite;
    else if (R == Role::Atomic)
      Kind = AccessKind::Atomic;
    addAccess(E, T, IndexText, Kind, E->getType());
  }

  int addAccess(const Expr *E, const PointerTarget &T, StringRef IndexText,
                AccessKind Kind, QualType ElemTy, StringRef Text = "") {
    MemoryAccess A;
    A.E = E;
    A.Location = location(E);
    A.Text = Text.empty() ? B.text(E) : Text.str();
    A.BaseDecl = T.Decl;
    A.Base = T.Name;
    A.Space = T.Space;
    A.Kind = Kind;
    A.IndexText = IndexText.str();
    A.Index = T.Offset;
    A.Loop = innermostLoop();
    A.ElementType = ElemTy.getAsString(Ctx.getPrintingPolicy());
    if (!ElemTy->isDependentType() && !ElemTy->isIncompleteType() &&
        !ElemTy->isVoidType())
      A.ElementBytes = Ctx.getTypeSizeInChars(ElemTy).getQuantity();
    classifyAccess(A, B.symbols());
    if (A.Space == MemorySpace::Global) {
      IndexExpr Bytes = A.ElementBytes
                            ? IndexExpr::constant(*A.ElementBytes)
                            : IndexExpr::symbol(B.symbols().opaque(
                                  "sizeof(" +
                                      ElemTy.getUnqualifiedType().getAsString(
                                          Ctx.getPrintingPolicy()) +
                                      ")",
                                  DepNone));
      int64_t Times =
          Kind == AccessKind::ReadWrite || Kind == AccessKind::Atomic ? 2 : 1;
      Out.GlobalBytes = Out.GlobalBytes + Bytes.scaled(Times) * weight();
    }
    Out.Accesses.push_back(std::move(A));
    AccessOf[E->IgnoreParens()] = Out.Accesses.size() - 1;
    return Out.Accesses.size() - 1;
  }

  // Calls: barriers, atomics, shuffles, math -------------------------------

  static std::string groupScope(QualType T, const ASTContext &Ctx) {
    std::string Name = T.getNonReferenceType().getUnqualifiedType().getAsString(
        Ctx.getPrintingPolicy());
    if (StringRef(Name).contains("grid_group"))
      return "grid";
    if (StringRef(Name).contains("thread_block_tile") ||
        StringRef(Name).contains("coalesced_group"))
      return "warp";
    if (StringRef(Name).contains("thread_block"))
      return "block";
    return "group";
  }

  void addBarrier(const CallExpr *CE, StringRef Kind, StringRef Scope) {
    BarrierInfo Bar;
    Bar.Kind = Kind.str();
    Bar.Scope = Scope.str();
    Bar.Location = location(CE);
    Bar.Loop = innermostLoop();
    Bar.Divergent = divergent();
    for (unsigned L : LoopStack)
      Loops[L].ContainsBarrier = true;
    Out.Barriers.push_back(std::move(Bar));
  }

  void visitCall(const CallExpr *CE) {
    if (isa<CXXOperatorCallExpr>(CE))
      return;
    StringRef Name = calleeName(CE);
    if (Name.empty())
      return;
    if (Name == "__syncthreads" || Name.starts_with("__syncthreads_") ||
        Name == "__barrier_sync")
      return addBarrier(CE, Name, "block");
    if (Name == "__syncwarp")
      return addBarrier(CE, Name, "warp");
    if (Name == "sync") {
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
        return addBarrier(
            CE, B.text(CE),
            groupScope(MC->getImplicitObjectArgument()->getType(), Ctx));
      // A static member called through an object: `block.sync()`.
      if (const auto *ME =
              dyn_cast<MemberExpr>(CE->getCallee()->IgnoreParenImpCasts()))
        return addBarrier(CE, B.text(CE),
                          groupScope(ME->getBase()->getType(), Ctx));
      if (CE->getNumArgs() == 1)
        return addBarrier(CE, B.text(CE),
                          groupScope(CE->getArg(0)->getType(), Ctx));
    }
    if (Name.starts_with("atomic") && CE->getNumArgs() > 0)
      return visitAtomic(CE, Name);
    if (Name.starts_with("__shfl") || Name.starts_with("__reduce_")) {
      Out.Shuffles.push_back({Name.str(), location(CE), innermostLoop()});
      return;
    }
    if (unsigned F = mathCallFlops(Name)) {
      Out.Flops = Out.Flops + weight().scaled(F);
      return;
    }
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && !Ctx.getSourceManager().isInSystemHeader(
                  Ctx.getSourceManager().getExpansionLoc(FD->getLocation())))
      if (CalledNames.insert(Name).second)
        Out.Calls.push_back(Name.str());
  }

  void visitAtomic(const CallExpr *CE, StringRef Name) {
    AtomicInfo At;
    At.Op = Name.str();
    At.Location = location(CE);
    At.Loop = innermostLoop();
    const Expr *Target = CE->getArg(0)->IgnoreParenCasts();
    const auto *UO = dyn_cast<UnaryOperator>(Target);
    auto It = UO && UO->getOpcode() == UO_AddrOf
                  ? AccessOf.find(UO->getSubExpr()->IgnoreParens())
                  : AccessOf.end();
    if (It != AccessOf.end()) {
      At.Access = It->second;
    } else {
      PointerTarget T = pointerTarget(Target);
      QualType Elem = Target->getType()->isPointerType()
                          ? Target->getType()->getPointeeType()
                          : Target->getType();
      // Name the target as an lvalue: `*result`, `counter`.
      std::string Text = B.text(Target);
      if (UO && UO->getOpcode() == UO_AddrOf)
        Text = B.text(UO->getSubExpr());
      else
        Text = "*" + Text;
      if (!T.Local)
        At.Access =
            addAccess(CE, T, B.text(Target), AccessKind::Atomic, Elem, Text);
    }
    Out.Atomics.push_back(std::move(At));
  }

  // Arithmetic --------------------------------------------------------------

  void countFlops(const Expr *E, BinaryOperatorKind Op) {
    switch (Op) {
    case BO_Add:
    case BO_Sub:
    case BO_Mul:
    case BO_Div:
    case BO_AddAssign:
    case BO_SubAssign:
    case BO_MulAssign:
    case BO_DivAssign:
      break;
    default:
      return;
    }
    QualType T = E->getType();
    if (T->isDependentType()) {
      Out.DependentArithmetic = true;
    } else if (!T->isRealFloatingType()) {
      return;
    }
    Out.Flops = Out.Flops + weight();
  }

  /// The access a factor loads, looking through a local copy
  /// (`float a = A[i]; acc += a * b;`).
  int accessOf(const Expr *E) {
    E = E->IgnoreParenCasts();
    auto It = AccessOf.find(E);
    if (It != AccessOf.end())
      return It->second;
    // Conversions of a loaded value: `__half2float(A[i])`, `__ldg(&x[i])`
    // style intrinsics and `__half`'s conversion operator to float.
    // A class-type element passed by value (`__half` into __half2float)
    // arrives through its copy constructor.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      if (CE->getNumArgs() == 1 && CE->getConstructor()->isCopyOrMoveConstructor())
        return accessOf(CE->getArg(0)->IgnoreImplicit());
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      if (isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl()))
        return accessOf(MC->getImplicitObjectArgument());
    if (const auto *CE = dyn_cast<CallExpr>(E))
      if (CE->getNumArgs() == 1) {
        StringRef Name = calleeName(CE);
        if (Name.ends_with("2float") || Name.ends_with("2double"))
          return accessOf(CE->getArg(0));
      }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
            B.writesOf(V).empty())
          return accessOf(V->getInit());
    return -1;
  }

  void visitAccumulation(const Expr *E, const BinaryParts &BP) {
    const Expr *Value = nullptr;
    if (BP.Op == BO_AddAssign) {
      Value = BP.RHS;
    } else if (BP.Op == BO_Assign) {
      std::string Target = B.text(BP.LHS->IgnoreParenImpCasts());
      const Expr *RHS = BP.RHS->IgnoreParenImpCasts();
      if (std::optional<BinaryParts> Sum = binaryParts(RHS)) {
        if (Sum->Op != BO_Add)
          return;
        if (B.text(Sum->LHS->IgnoreParenImpCasts()) == Target)
          Value = Sum->RHS;
        else if (B.text(Sum->RHS->IgnoreParenImpCasts()) == Target)
          Value = Sum->LHS;
      } else if (const auto *CE = dyn_cast<CallExpr>(RHS)) {
        if (CE->getNumArgs() == 3 &&
            calleeName(CE).ltrim('_').starts_with("fma") &&
            B.text(CE->getArg(2)->IgnoreParenImpCasts()) == Target) {
          addAccumulation(E, BP.LHS, CE->getArg(0), CE->getArg(1));
          return;
        }
      }
    }
    if (!Value || BP.LHS->getType()->isPointerType())
      return;
    Value = Value->IgnoreParenImpCasts();
    if (std::optional<BinaryParts> Prod = binaryParts(Value))
      if (Prod->Op == BO_Mul &&
          (accessOf(Prod->LHS) >= 0 || accessOf(Prod->RHS) >= 0))
        return addAccumulation(E, BP.LHS, Prod->LHS, Prod->RHS);
    if (accessOf(Value) >= 0)
      addAccumulation(E, BP.LHS, Value, nullptr);
  }

  void addAccumulation(const Expr *E, const Expr *Target, const Expr *X,
                       const Expr *Y) {
    Accumulation Acc;
    Acc.Location = location(E);
    Acc.Target = B.text(Target);
    auto It = AccessOf.find(Target->IgnoreParens());
    if (It != AccessOf.end())
      Acc.TargetAccess = It->second;
    Acc.LHS = accessOf(X);
    Acc.RHS = Y ? accessOf(Y) : -1;
    Acc.Product = Y != nullptr;
    Acc.Loop = innermostLoop();
    Out.Accumulations.push_back(std::move(Acc));
  }

  IndexExprBuilder &B;
  ASTContext &Ctx;
  std::vector<LoopInfo> &Loops;
  DenseMap<const Stmt *, unsigned> LoopIndex;
  DenseMap<const Expr *, Role> Roles;
  DenseMap<const Expr *, int> AccessOf;
  std::vector<unsigned> LoopStack;
  std::vector<bool> DivergenceStack;
  /// A thread-dependent `return` was seen before the current statement.
  bool ExitedEarly = false;
  StringSet<> CalledNames;
};

} // namespace

BodySummary analyzeBody(const FunctionDecl *Kernel, IndexExprBuilder &Builder,
                        std::vector<LoopInfo> &Loops) {
  BodyWalker W(Builder, Loops);
  if (Kernel && Kernel->getBody())
    W.walk(Kernel->getBody());
  return std::move(W.Out);
}

} // namespace cuda_opt
