//===- Unroll.cpp - Add #pragma unroll to counted loops ------------------===//
//
// Part of cuda-opt.
//
// unroll{factor,loop} writes `#pragma unroll FACTOR` on its own line before
// counted `for` loops of the kernel. A loop is counted when its init declares
// an integer induction variable, its condition compares that variable with a
// bound the body does not change, its increment steps the variable by a
// constant, and the body leaves the variable alone. The pragma is a hint:
// nvcc keeps the remainder iterations, so the program means the same; the
// rules only keep the hint to loops the compiler can actually unroll.
//
// loop=-1 (the default) picks every innermost counted loop; loop=K picks the
// K-th `for` of the kernel in source order (0-based), innermost or not.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The `for` statements of a kernel body in source order, with what the
/// legality rules need to know about their surroundings.
class LoopCollector : public RecursiveASTVisitor<LoopCollector> {
public:
  bool VisitAttributedStmt(AttributedStmt *AS) {
    for (const Attr *A : AS->getAttrs())
      if (isa<LoopHintAttr>(A))
        Hinted.insert(AS->getSubStmt());
    return true;
  }
  bool VisitForStmt(ForStmt *FS) {
    Fors.push_back(FS);
    return true;
  }

  std::vector<const ForStmt *> Fors;
  SmallPtrSet<const Stmt *, 8> Hinted;
};

/// True when \p S is or contains a loop of any kind.
bool containsLoop(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
    return true;
  for (const Stmt *Child : S->children())
    if (containsLoop(Child))
      return true;
  return false;
}

/// The variable \p E names, looking through parentheses and implicit casts.
const VarDecl *referencedVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// True when \p E is an integer constant, or a value-dependent expression
/// built only from non-type template parameters and literals.
bool isConstantStep(const Expr *E, const ASTContext &Ctx) {
  if (!E->isValueDependent()) {
    Expr::EvalResult R;
    return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() != 0;
  }
  if (E->isTypeDependent())
    return false;
  const Expr *Bare = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare))
    return isa<NonTypeTemplateParmDecl>(DRE->getDecl());
  if (isa<SubstNonTypeTemplateParmExpr, IntegerLiteral>(Bare))
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(Bare))
    return isConstantStep(BO->getLHS(), Ctx) &&
           isConstantStep(BO->getRHS(), Ctx);
  return false;
}

/// The loops that take the pragma, and its factor.
struct UnrollPlan : TransformPlan {
  std::vector<const ForStmt *> Loops;
  int64_t Factor = 4;
};

class Unroll : public TransformWithPlan<UnrollPlan> {
public:
  StringRef getName() const override { return "unroll"; }
  bool isKernelLocal() const override { return true; }
  StringRef getSummary() const override {
    return "add #pragma unroll FACTOR before counted for loops";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"factor", 4, 2, 32, "unroll factor", /*PowerOfTwo=*/true},
        {"loop", -1, -1, 1023,
         "which for loop (0-based, source order); -1 = every innermost "
         "counted loop",
         false,
         {-1}},
    };
    return Specs;
  }

  Expected<UnrollPlan> makePlan(const KernelTarget &T,
                                const ParamValues &P) const override {
    Expected<std::vector<const ForStmt *>> Loops = selectLoops(T, P);
    if (!Loops)
      return Loops.takeError();
    UnrollPlan Plan;
    Plan.Loops = std::move(*Loops);
    Plan.Factor = P.get("factor");
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const UnrollPlan &Plan) const override {
    tooling::Replacements R;
    for (const ForStmt *FS : Plan.Loops) {
      Expected<tooling::Replacement> Edit = pragmaBefore(T, FS, Plan.Factor);
      if (!Edit)
        return Edit.takeError();
      if (Error E = R.add(*Edit))
        return std::move(E);
    }
    return R;
  }

private:
  std::string where(const KernelTarget &T, const ForStmt *FS) const {
    return "loop at " + describeLocation(T.getSourceManager(), FS->getForLoc());
  }

  /// Success when \p FS is a counted loop that may take the pragma;
  /// otherwise the reason, starting with "loop at file:line:col".
  Error checkLoop(const KernelTarget &T, const ForStmt *FS,
                  const LoopCollector &C) const {
    const SourceManager &SM = T.getSourceManager();
    std::string Where = where(T, FS);
    if (FS->getForLoc().isMacroID() || FS->getEndLoc().isMacroID())
      return refuse(Where + " is written inside a macro expansion; cuda-opt "
                            "does not edit macro bodies");
    if (C.Hinted.count(FS))
      return refuse(Where + " already has a loop pragma (#pragma unroll or "
                            "#pragma nounroll)");
    if (!SM.isWrittenInMainFile(FS->getForLoc()))
      return refuse(Where + " is not in the main file");

    const auto *Init = dyn_cast_or_null<DeclStmt>(FS->getInit());
    const VarDecl *IV = nullptr;
    if (Init && Init->isSingleDecl())
      IV = dyn_cast<VarDecl>(Init->getSingleDecl());
    if (!IV || !IV->getInit() || IV->getType()->isDependentType() ||
        !IV->getType()->isIntegerType() || IV->getType()->isBooleanType())
      return refuse(Where + " does not declare one integer induction variable "
                            "in its init");
    std::string IVName = "'" + IV->getNameAsString() + "'";

    // Condition: iv OP bound, or bound OP iv.
    const auto *Cond = dyn_cast_or_null<BinaryOperator>(
        FS->getCond() ? FS->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!Cond || !(Cond->isRelationalOp() || Cond->getOpcode() == BO_NE))
      return refuse(Where + " has no condition of the form '" +
                    IV->getNameAsString() + " < bound' (or <=, !=, >, >=)");
    const Expr *Bound = nullptr;
    if (referencedVar(Cond->getLHS()) == IV)
      Bound = Cond->getRHS();
    else if (referencedVar(Cond->getRHS()) == IV)
      Bound = Cond->getLHS();
    if (!Bound)
      return refuse(Where + " does not compare its induction variable " +
                    IVName + " in its condition");
    if (Error E = checkBound(T, FS, Bound, IV))
      return E;

    // Increment: ++iv, iv++, --iv, iv--, iv += c, iv -= c.
    const Expr *Inc = FS->getInc() ? FS->getInc()->IgnoreParens() : nullptr;
    bool ConstantStep = false;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc))
      ConstantStep =
          UO->isIncrementDecrementOp() && referencedVar(UO->getSubExpr()) == IV;
    else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
      ConstantStep = (CA->getOpcode() == BO_AddAssign ||
                      CA->getOpcode() == BO_SubAssign) &&
                     referencedVar(CA->getLHS()) == IV &&
                     isConstantStep(CA->getRHS(), T.Ctx);
    if (!ConstantStep)
      return refuse(Where + " does not step its induction variable " + IVName +
                    " by a constant");

    if (!isNeverModifiedAfterInit(IV, FS->getBody(), T.Ctx))
      return refuse(Where + " changes its induction variable " + IVName +
                    " in its body");
    return Error::success();
  }

  /// The bound must be loop-invariant: literals, template parameters,
  /// variables the body does not write, the CUDA index built-ins, and
  /// arithmetic on those.
  Error checkBound(const KernelTarget &T, const ForStmt *FS, const Expr *Bound,
                   const VarDecl *IV) const {
    Bound = Bound->IgnoreParenCasts();
    if (isa<IntegerLiteral, CharacterLiteral, SubstNonTypeTemplateParmExpr,
            UnaryExprOrTypeTraitExpr>(Bound))
      return Error::success();
    // threadIdx.x, blockDim.y, ... are pseudo-objects over CUDA built-ins.
    if (isa<PseudoObjectExpr>(Bound))
      return Error::success();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Bound)) {
      const ValueDecl *D = DRE->getDecl();
      if (isa<NonTypeTemplateParmDecl, EnumConstantDecl>(D))
        return Error::success();
      const auto *V = dyn_cast<VarDecl>(D);
      if (V == IV)
        return refuse(where(T, FS) + " compares its induction variable with "
                                     "itself");
      if (V && V->getType().isConstQualified())
        return Error::success();
      if (V && V->hasLocalStorage() &&
          isNeverModifiedAfterInit(V, FS->getBody(), T.Ctx) &&
          isNeverModifiedAfterInit(V, FS->getInc(), T.Ctx))
        return Error::success();
      return refuse(where(T, FS) + " may change its bound '" +
                    D->getNameAsString() + "' in its body");
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(Bound)) {
      if (BO->isAssignmentOp() || BO->isCommaOp())
        return refuse(where(T, FS) + " has a bound that writes a variable");
      if (Error E = checkBound(T, FS, BO->getLHS(), IV))
        return E;
      return checkBound(T, FS, BO->getRHS(), IV);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(Bound)) {
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_Deref ||
          UO->getOpcode() == UO_AddrOf)
        return refuse(where(T, FS) + " has a bound that is not loop-invariant");
      return checkBound(T, FS, UO->getSubExpr(), IV);
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(Bound)) {
      if (Error E = checkBound(T, FS, CO->getCond(), IV))
        return E;
      if (Error E = checkBound(T, FS, CO->getTrueExpr(), IV))
        return E;
      return checkBound(T, FS, CO->getFalseExpr(), IV);
    }
    return refuse(where(T, FS) + " has a bound '" +
                  sourceText(T.Ctx, Bound->getSourceRange()) +
                  "' that may change while the loop runs (only variables, "
                  "constants and arithmetic on them are understood)");
  }

  /// The loops to annotate, or the reason there are none.
  Expected<std::vector<const ForStmt *>>
  selectLoops(const KernelTarget &T, const ParamValues &P) const {
    const KernelInfo &K = T.Kernel;
    LoopCollector C;
    C.TraverseStmt(K.Decl->getBody());
    if (C.Fors.empty())
      return refuse("kernel '" + K.name() + "' has no for loop to unroll");

    int64_t Index = P.get("loop");
    if (Index >= 0) {
      if (Index >= static_cast<int64_t>(C.Fors.size()))
        return refuse("kernel '" + K.name() + "' has " + Twine(C.Fors.size()) +
                      " for loop" + (C.Fors.size() == 1 ? "" : "s") +
                      ", so loop=" + Twine(Index) +
                      " does not exist (loops count from 0)");
      const ForStmt *FS = C.Fors[Index];
      if (Error E = checkLoop(T, FS, C))
        return std::move(E);
      return std::vector<const ForStmt *>{FS};
    }

    std::vector<const ForStmt *> Picked;
    std::string FirstReason;
    for (const ForStmt *FS : C.Fors) {
      if (containsLoop(FS->getBody()))
        continue;
      if (Error E = checkLoop(T, FS, C)) {
        std::string Reason = toString(std::move(E));
        if (FirstReason.empty())
          FirstReason = Reason;
        continue;
      }
      Picked.push_back(FS);
    }
    if (Picked.empty())
      return refuse(
          "kernel '" + K.name() +
          "' has no innermost counted loop to unroll: " + FirstReason);
    return Picked;
  }

  /// `#pragma unroll N` on its own line before \p FS, indented like it.
  Expected<tooling::Replacement>
  pragmaBefore(const KernelTarget &T, const ForStmt *FS, int64_t Factor) const {
    const SourceManager &SM = T.getSourceManager();
    SourceLocation ForLoc = FS->getForLoc();
    auto [FID, Offset] = SM.getDecomposedLoc(ForLoc);
    StringRef Buffer = SM.getBufferData(FID);
    size_t LineStart = Buffer.rfind('\n', Offset);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    StringRef Before = Buffer.slice(LineStart, Offset);
    std::string Pragma = "#pragma unroll " + std::to_string(Factor);
    if (Before.trim().empty()) {
      // `for` starts its line: the pragma takes a line of its own above it,
      // with the same indentation.
      return tooling::Replacement(
          SM, SM.getLocForStartOfFile(FID).getLocWithOffset(LineStart), 0,
          Before.str() + Pragma + "\n");
    }
    // Something precedes `for` on its line (`{ for`, `) for`): break the
    // line before the pragma and indent the loop one level deeper than that
    // line.
    auto IsBlank = [](char Ch) { return Ch == ' ' || Ch == '\t'; };
    StringRef Indent = Before.take_while(IsBlank);
    size_t Gap = Before.size() - Before.rtrim(" \t").size();
    std::string Inner = Indent.str() + "  ";
    return tooling::Replacement(SM, ForLoc.getLocWithOffset(-(int)Gap), Gap,
                                "\n" + Inner + Pragma + "\n" + Inner);
  }
};

} // namespace

std::unique_ptr<Transform> createUnrollTransform() {
  return std::make_unique<Unroll>();
}
} // namespace cuda_opt
