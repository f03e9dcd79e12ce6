//===- Fp64Shadow.cpp - The original kernel promoted to double ------------===//
//
// Part of cuda-opt. The promotion is a set of text edits on copies of the
// kernel and of the main file's __device__ functions it calls; everything it
// cannot promote faithfully is a refusal (Fp64Shadow.h), never a guess.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Fp64Shadow.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

const char ShadowSuffix[] = "__cuda_opt_fp64";

/// Float math functions and intrinsics, by their double counterpart.
const StringMap<StringRef> &doubleCounterparts() {
  static const StringMap<StringRef> Table = [] {
    StringMap<StringRef> T;
    for (StringRef F :
         {"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
          "ceil", "copysign", "cos", "cosh", "cospi", "erf", "erfc", "erfcinv",
          "erfinv", "exp", "exp10", "exp2", "expm1", "fabs", "fdim", "floor",
          "fma", "fmax", "fmin", "fmod", "hypot", "lgamma", "log", "log10",
          "log1p", "log2", "logb", "nearbyint", "normcdf", "normcdfinv", "pow",
          "rcbrt", "remainder", "rhypot", "rint", "round", "rsqrt", "sin",
          "sinh", "sinpi", "sqrt", "tan", "tanh", "tgamma", "trunc"})
      T[(F + "f").str()] = F;
    // Fast-math intrinsics: the shadow computes the exact function.
    T["__expf"] = "exp";
    T["__exp10f"] = "exp10";
    T["__logf"] = "log";
    T["__log2f"] = "log2";
    T["__log10f"] = "log10";
    T["__sinf"] = "sin";
    T["__cosf"] = "cos";
    T["__tanf"] = "tan";
    T["__powf"] = "pow";
    T["__tanhf"] = "tanh";
    T["__fsqrt_rn"] = "__dsqrt_rn";
    T["__frsqrt_rn"] = "rsqrt";
    T["__fadd_rn"] = "__dadd_rn";
    T["__fsub_rn"] = "__dsub_rn";
    T["__fmul_rn"] = "__dmul_rn";
    T["__fdiv_rn"] = "__ddiv_rn";
    T["__frcp_rn"] = "__drcp_rn";
    T["__fmaf_rn"] = "__fma_rn";
    T["__fdividef"] = "__ddiv_rn";
    T["__float2int_rn"] = "__double2int_rn";
    T["__float2int_rz"] = "__double2int_rz";
    T["__float2int_rd"] = "__double2int_rd";
    T["__float2int_ru"] = "__double2int_ru";
    T["__float2uint_rn"] = "__double2uint_rn";
    T["__float2uint_rz"] = "__double2uint_rz";
    T["__float2ll_rn"] = "__double2ll_rn";
    T["__float2ll_rz"] = "__double2ll_rz";
    return T;
  }();
  return Table;
}

/// Functions outside the main file that take floats and have a double
/// overload of the same name, which promoted arguments select.
bool hasDoubleOverload(StringRef Name) {
  static const StringSet<> Names = [] {
    StringSet<> S;
    for (const auto &E : doubleCounterparts())
      S.insert(E.second);
    for (StringRef N :
         {"max", "min", "abs", "atomicAdd", "atomicAdd_block",
          "atomicAdd_system", "__shfl_sync", "__shfl_up_sync",
          "__shfl_down_sync", "__shfl_xor_sync", "__ldg", "__ldcg", "__ldca",
          "__ldcs", "__ldlu", "__ldcv", "__stcg", "__stcs", "__stwb", "__stwt",
          "__reduce_add_sync", "isnan", "isinf", "isfinite", "signbit",
          "printf", "__isnanf", "__isinff", "__finitef"})
      S.insert(N);
    return S;
  }();
  return Names.contains(Name);
}

/// The type with pointers, arrays, references and qualifiers stripped.
QualType innermost(QualType T) {
  while (true) {
    T = T.getCanonicalType().getUnqualifiedType();
    if (const auto *P = T->getAs<PointerType>())
      T = P->getPointeeType();
    else if (const auto *R = T->getAs<ReferenceType>())
      T = R->getPointeeType();
    else if (const ArrayType *A = T->getAsArrayTypeUnsafe())
      T = A->getElementType();
    else
      return T;
  }
}

bool isFloatBased(QualType T) {
  return innermost(T)->isSpecificBuiltinType(BuiltinType::Float);
}

unsigned pointerDepth(QualType T) {
  unsigned D = 0;
  T = T.getCanonicalType();
  while (const auto *P = T->getAs<PointerType>()) {
    ++D;
    T = P->getPointeeType().getCanonicalType();
  }
  return D;
}

/// A struct or class with a float member (float2, float4, user structs).
bool recordHasFloatField(QualType T) {
  const RecordDecl *RD = innermost(T)->getAsRecordDecl();
  if (!RD || !RD->getDefinition())
    return false;
  for (const FieldDecl *F : RD->getDefinition()->fields())
    if (isFloatBased(F->getType()) || recordHasFloatField(F->getType()))
      return true;
  return false;
}

struct Edit {
  unsigned Begin, End; // File offsets of the replaced text.
  std::string Text;
};

/// Collects the promotion edits of one function and the user functions it
/// calls; the first thing it cannot promote is kept in Why.
class Promoter : public RecursiveASTVisitor<Promoter> {
public:
  Promoter(ASTContext &Ctx, std::vector<Edit> &Edits)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Edits(Edits) {}

  std::string Why;
  /// User __device__ functions called, to be copied and promoted too.
  SetVector<const FunctionDecl *> Callees;
  bool DynamicShared = false;

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitTypeLoc(TypeLoc TL) {
    if (!Why.empty())
      return false;
    if (auto B = TL.getAs<BuiltinTypeLoc>()) {
      if (B.getTypePtr()->getKind() == BuiltinType::Float)
        replace(B.getSourceRange(), "double", "`float`");
      return Why.empty();
    }
    QualType T = TL.getType();
    if ((TL.getAs<TypedefTypeLoc>() || TL.getAs<UsingTypeLoc>()) &&
        isFloatBased(T))
      return fail("uses `" + T.getAsString() +
                  "`, a type alias of float (the shadow promotes `float` as "
                  "written)");
    if ((TL.getAs<TagTypeLoc>() || TL.getAs<TypedefTypeLoc>()) &&
        recordHasFloatField(T))
      return fail("uses `" +
                  innermost(T)->getAsRecordDecl()->getNameAsString() +
                  "`, a type with float members");
    return true;
  }

  bool VisitFloatingLiteral(FloatingLiteral *L) {
    if (!L->getType()->isSpecificBuiltinType(BuiltinType::Float))
      return true;
    SourceLocation Loc = fileLoc(L->getLocation());
    if (Loc.isInvalid())
      return true; // Spelled in a macro: the constant stays float-exact.
    StringRef Tok = Lexer::getSourceText(CharSourceRange::getTokenRange(Loc),
                                         SM, Ctx.getLangOpts());
    if (Tok.ends_with("f") || Tok.ends_with("F")) {
      unsigned Off = SM.getFileOffset(Loc) + Tok.size() - 1;
      Edits.push_back({Off, Off + 1, ""});
    }
    return true;
  }

  bool VisitVarDecl(VarDecl *V) {
    if (isDynamicSharedFloat(V)) {
      DynamicShared = true;
      // `extern __shared__ float s[]` declares one array for the whole
      // file; the shadow's `double s[]` of the same name would conflict
      // with the original's, so the shadow's is renamed.
      if (!V->isLocalVarDecl())
        return fail("uses the file-scope dynamic shared array `" +
                    V->getNameAsString() + "`");
      replace(SourceRange(V->getLocation()),
              V->getNameAsString() + ShadowSuffix,
              "the shared array `" + V->getNameAsString() + "`");
    }
    return Why.empty();
  }

  static bool isDynamicSharedFloat(const VarDecl *V) {
    return V->hasAttr<CUDASharedAttr>() && V->hasExternalStorage() &&
           isFloatBased(V->getType());
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (V && isDynamicSharedFloat(V) && V->isLocalVarDecl()) {
      replace(E->getNameInfo().getSourceRange(),
              V->getNameAsString() + ShadowSuffix,
              "the use of the shared array `" + V->getNameAsString() + "`");
      return Why.empty();
    }
    if (!V || !V->hasGlobalStorage() || V->isLocalVarDeclOrParm() ||
        !isFloatBased(V->getType()))
      return true;
    if (V->hasAttr<CUDAConstantAttr>() || V->getType().isConstQualified())
      return true; // Read-only data: an input like any other.
    return fail("uses the global variable `" + V->getNameAsString() +
                "`, which the shadow cannot give a double copy");
  }

  bool VisitCallExpr(CallExpr *C) {
    if (!Why.empty())
      return false;
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD)
      return true;
    std::string Name = FD->getNameAsString();
    const auto *Ref =
        dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts());
    if (FD->hasAttr<CUDAGlobalAttr>())
      return fail("launches kernel `" + Name + "` from device code");
    const FunctionDecl *Def = FD->getDefinition();
    if (Def && SM.isInMainFile(SM.getExpansionLoc(Def->getLocation())) &&
        !Def->isInStdNamespace()) {
      if (FD->getPrimaryTemplate() || FD->getTemplatedKind() !=
                                          FunctionDecl::TK_NonTemplate)
        return fail("calls the template function `" + Name + "`");
      if (!Ref || Ref->getQualifier())
        return fail("calls `" + Name + "` in a form the shadow cannot rename");
      Callees.insert(Def);
      replace(Ref->getNameInfo().getSourceRange(), Name + ShadowSuffix,
              "the call of `" + Name + "`");
      return Why.empty();
    }
    auto It = doubleCounterparts().find(Name);
    if (It != doubleCounterparts().end()) {
      if (!Ref)
        return fail("calls `" + Name + "` in a form the shadow cannot rename");
      replace(Ref->getNameInfo().getSourceRange(), It->second.str(),
              "the call of `" + Name + "`");
      return Why.empty();
    }
    bool TakesFloat = any_of(FD->parameters(), [](const ParmVarDecl *P) {
      return isFloatBased(P->getType());
    });
    if (TakesFloat && !hasDoubleOverload(Name))
      return fail("calls `" + Name + "`, which has no double counterpart");
    return true;
  }

private:
  bool fail(const Twine &Reason) {
    if (Why.empty())
      Why = Reason.str();
    return false;
  }

  /// \p Loc where the text can be edited: in the main file, or a macro
  /// argument spelled there; otherwise invalid.
  SourceLocation fileLoc(SourceLocation Loc) const {
    while (Loc.isMacroID()) {
      if (!SM.isMacroArgExpansion(Loc))
        return {};
      Loc = SM.getImmediateSpellingLoc(Loc);
    }
    return SM.isInMainFile(Loc) ? Loc : SourceLocation();
  }

  void replace(SourceRange R, StringRef Text, StringRef What) {
    SourceLocation B = fileLoc(R.getBegin()), E = fileLoc(R.getEnd());
    if (B.isInvalid() || E.isInvalid()) {
      fail(What + " is spelled in a macro");
      return;
    }
    unsigned End = SM.getFileOffset(E) +
                   Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
    Edits.push_back({SM.getFileOffset(B), End, Text.str()});
  }

  ASTContext &Ctx;
  SourceManager &SM;
  std::vector<Edit> &Edits;
};

/// The text of [Begin, End) of \p Text with the edits inside it applied.
std::string editedText(StringRef Text, unsigned Begin, unsigned End,
                       std::vector<Edit> Edits) {
  llvm::sort(Edits, [](const Edit &A, const Edit &B) {
    return A.Begin < B.Begin || (A.Begin == B.Begin && A.End < B.End);
  });
  std::string Out;
  unsigned Pos = Begin;
  for (const Edit &E : Edits) {
    if (E.Begin < Pos || E.End > End)
      continue; // Outside, or a duplicate (one `float` for two declarators).
    Out += Text.slice(Pos, E.Begin);
    Out += E.Text;
    Pos = E.End;
  }
  Out += Text.slice(Pos, End);
  return Out;
}

} // namespace

Expected<Fp64Shadow> makeFp64Shadow(ASTContext &Ctx, const KernelInfo &K,
                                    StringRef Text) {
  SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Kernel = K.Decl;
  auto NoShadow = [&](const Twine &Why) {
    return refuse("no fp64 shadow of kernel '" + K.name() + "': " + Why);
  };
  if (K.Template)
    return NoShadow("template kernels are not promoted");
  if (!Kernel->hasBody())
    return NoShadow("it has no body");

  Fp64Shadow Out;
  std::vector<Edit> Edits;
  SetVector<const FunctionDecl *> ToCopy; // Callees first once reversed.
  SmallVector<const FunctionDecl *> Work = {Kernel};
  bool DynamicShared = false;
  while (!Work.empty()) {
    const FunctionDecl *F = Work.pop_back_val();
    if (!ToCopy.insert(F))
      continue;
    Promoter P(Ctx, Edits);
    P.TraverseDecl(const_cast<FunctionDecl *>(F));
    if (!P.Why.empty())
      return NoShadow(F == Kernel ? P.Why
                                  : "`" + F->getNameAsString() + "` " + P.Why);
    DynamicShared |= P.DynamicShared;
    for (const FunctionDecl *C : P.Callees)
      Work.push_back(C);
  }

  for (const ParmVarDecl *P : Kernel->parameters()) {
    QualType T = P->getType();
    if (recordHasFloatField(T))
      return NoShadow("parameter '" + P->getNameAsString() + "' is a `" +
                      innermost(T)->getAsRecordDecl()->getNameAsString() +
                      "`, a type with float members");
    bool Float = isFloatBased(T);
    if (Float && (pointerDepth(T) > 1 || T->isReferenceType()))
      return NoShadow("parameter '" + P->getNameAsString() +
                      "' is not a float or a pointer to floats");
    Out.Promoted.push_back(Float);
  }
  if (!is_contained(Out.Promoted, true))
    return NoShadow("it has no float parameter to promote");

  // Each copy runs from its return type to the end of its body: the
  // declaration specifiers before it (__global__, __launch_bounds__,
  // static, inline) are written anew.
  std::string Copies;
  for (const FunctionDecl *F : reverse(ToCopy)) {
    SourceLocation B = SM.getExpansionLoc(F->getReturnTypeSourceRange().getBegin());
    SourceLocation NameLoc = F->getLocation();
    SourceLocation E = SM.getExpansionLoc(F->getBody()->getEndLoc());
    if (B.isInvalid() || !SM.isInMainFile(B) || NameLoc.isMacroID() ||
        !SM.isInMainFile(E))
      return NoShadow("`" + F->getNameAsString() +
                      "` is not written out in the main file");
    unsigned NameOff = SM.getFileOffset(NameLoc);
    std::vector<Edit> FEdits = Edits;
    std::string NewName = F->getNameAsString() + ShadowSuffix;
    FEdits.push_back(
        {NameOff, NameOff + static_cast<unsigned>(F->getName().size()),
         NewName});
    std::string Body =
        editedText(Text, SM.getFileOffset(B), SM.getFileOffset(E) + 1, FEdits);
    Copies += F == Kernel ? "extern \"C\" __global__ " : "static __device__ ";
    Copies += Body + "\n\n";
    if (F == Kernel)
      Out.Entry = NewName;
  }
  Out.DoublesDynamicShared = DynamicShared;
  Out.Text = Text.str();
  if (!StringRef(Out.Text).ends_with("\n"))
    Out.Text += "\n";
  Out.Text += "\n// cuda-opt: the fp64 shadow of kernel '" + K.name() +
              "' (verification reference; docs/fp-model.md)\n" + Copies;
  return Out;
}

} // namespace cuda_opt
