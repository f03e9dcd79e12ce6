//===- NvccAcceptedErrors.cpp - Clang errors on code nvcc 13 compiles -----===//
//
// Part of cuda-opt.
//
// Clang's Sema has no switch for either error this file accepts, and neither
// can be mapped to a warning (clang asserts that errors stay errors), so the
// parse lets clang report them and decides afterwards, on the AST, whether
// each one is about the form nvcc accepts:
//
// - err_shared_var_init on a function-scope __shared__ object that is
//   default-constructed without an initialiser written (`__shared__
//   cuda::pipeline_shared_state<...> s;`). nvcc 13 warns (#20054-D) and does
//   not run the constructor; it rejects an initialiser written out (`= 5`,
//   `{}`, `= T()`: "initializer not allowed for __shared__ variable") and a
//   namespace-scope object ("dynamic initialization is not supported"), and
//   so does cuda-opt. Clang marks the variable invalid: in a template kernel
//   only the instantiations, whose uses of the variable are dropped.
// - err_variable_object_no_init on a variable-length array with an
//   initialiser list in a host function (`T a[n] = {0};`), a GCC extension
//   that nvcc's host compiler accepts. nvcc rejects a VLA in device code and
//   so does cuda-opt. Clang keeps the variable with an error node
//   (RecoveryExpr) as its initialiser.
//
// Either way the AST around the declaration is not what nvcc compiles, so
// Analysis/DamagedCode.h keeps the transforms away from it; the declaration's
// text is never edited.
//
//===----------------------------------------------------------------------===//
#include "ParseErrors.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#include <mutex>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

std::mutex HandlerMutex;
std::function<void(const NvccAcceptedError &)> &handler() {
  static std::function<void(const NvccAcceptedError &)> H;
  return H;
}

/// The variables whose declarations hold each location, template
/// instantiations included (an error in a template kernel is reported on
/// its instantiation; the pattern shares the location).
class HeldDeclFinder : public RecursiveASTVisitor<HeldDeclFinder> {
public:
  HeldDeclFinder(const SourceManager &SM, ArrayRef<HeldParseError> Held)
      : SM(SM), Held(Held) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitVarDecl(VarDecl *VD) {
    if (isa<ParmVarDecl>(VD) || VD->getLocation().isInvalid())
      return true;
    SourceLocation Begin = SM.getExpansionLoc(VD->getLocation());
    SourceLocation End = SM.getExpansionLoc(VD->getEndLoc());
    for (unsigned I = 0; I < Held.size(); ++I) {
      SourceLocation L = SM.getExpansionLoc(Held[I].Loc);
      if (SM.getFileID(L) != SM.getFileID(Begin) ||
          SM.isBeforeInTranslationUnit(L, Begin) ||
          SM.isBeforeInTranslationUnit(End, L))
        continue;
      Found[I].push_back(VD);
    }
    return true;
  }

  const SourceManager &SM;
  ArrayRef<HeldParseError> Held;
  DenseMap<unsigned, SmallVector<const VarDecl *, 2>> Found;
};

const FunctionDecl *enclosingFunction(const VarDecl *VD) {
  return dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
}

/// `__shared__ T x;` in a __device__ or __global__ function, T's default
/// constructor called implicitly (no initialiser written). In a template
/// whose T is dependent, the pattern has no initialiser at all.
bool isDefaultConstructedSharedLocal(const VarDecl *VD) {
  const FunctionDecl *FD = enclosingFunction(VD);
  if (!FD || !VD->hasAttr<CUDASharedAttr>() ||
      !(FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>()))
    return false;
  if (VD->getType()->isDependentType())
    return !VD->hasInit();
  if (VD->getInitStyle() != VarDecl::CallInit || !VD->getInit())
    return false;
  const auto *CE = dyn_cast<CXXConstructExpr>(VD->getInit()->IgnoreImplicit());
  return CE && !isa<CXXTemporaryObjectExpr>(CE) && CE->getNumArgs() == 0 &&
         CE->getParenOrBraceRange().isInvalid() && !CE->isListInitialization();
}

/// `T a[n] = {...};` in a host-only function.
bool isInitialisedHostVla(const VarDecl *VD) {
  const FunctionDecl *FD = enclosingFunction(VD);
  if (!FD || FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>() ||
      !VD->getType()->isVariableArrayType() || !VD->getInit())
    return false;
  const Expr *Init = VD->getInit();
  if (const auto *RE = dyn_cast<RecoveryExpr>(Init)) {
    ArrayRef<const Expr *> Sub = RE->subExpressions();
    Init = Sub.size() == 1 ? Sub.front() : nullptr;
  }
  return isa_and_nonnull<InitListExpr>(Init);
}

std::string describe(const VarDecl *VD, unsigned DiagID) {
  const FunctionDecl *FD = enclosingFunction(VD);
  std::string Where =
      "'" + VD->getNameAsString() + "' in '" + FD->getNameAsString() + "': ";
  if (DiagID == diag::err_shared_var_init)
    return Where +
           "a function-scope __shared__ object with a non-empty default "
           "constructor, which nvcc 13 compiles with warning #20054-D "
           "(dynamic initialization is not supported for a function-scope "
           "static __shared__ variable) without running the constructor, "
           "and clang rejects (initialization is not supported for "
           "__shared__ variables); cuda-opt parses the file, keeps the "
           "declaration as written and rewrites no kernel that uses it";
  return Where +
         "a variable-length array with an initialiser in host code, a GCC "
         "extension that nvcc's host compiler accepts and clang rejects "
         "(variable-sized object may not be initialized); cuda-opt parses "
         "the file and keeps the declaration as written, but host code "
         "around it is not fully modelled, so only passes that do not read "
         "or edit launch sites apply";
}

/// For each of \p Held, the declaration it is about when the AST shows the
/// code to be the form nvcc 13 accepts, else null.
std::vector<const VarDecl *> nvccAcceptedDecls(ASTContext &Ctx,
                                               ArrayRef<HeldParseError> Held) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<const VarDecl *> Decls(Held.size(), nullptr);
  HeldDeclFinder Finder(SM, Held);
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      Finder.TraverseDecl(D);
  for (unsigned I = 0; I < Held.size(); ++I) {
    // Only in the user's code: an error inside a system header (CUDA's, the
    // C++ library's) fails the parse, and those headers are not walked here
    // or by the transforms' damage check (Analysis/DamagedCode.cpp).
    if (SM.isInSystemHeader(SM.getExpansionLoc(Held[I].Loc)))
      continue;
    auto It = Finder.Found.find(I);
    if (It == Finder.Found.end())
      continue;
    // A template's pattern and its instantiations (clang may drop an
    // invalid instantiation's body, leaving only the pattern): all must be
    // the form nvcc accepts.
    const bool NvccAccepts = llvm::all_of(It->second, [&](const VarDecl *V) {
      return Held[I].DiagID == diag::err_shared_var_init
                 ? isDefaultConstructedSharedLocal(V)
                 : isInitialisedHostVla(V);
    });
    if (NvccAccepts)
      Decls[I] = It->second.front();
  }
  return Decls;
}

/// \p Messages less the text of the held errors about code nvcc accepts
/// (\p Decls non-null): the errors that make the parse fail.
std::string withoutAccepted(StringRef Messages, ArrayRef<HeldParseError> Held,
                            ArrayRef<const VarDecl *> Decls) {
  std::string Real;
  uint64_t From = 0;
  for (unsigned I = 0; I < Held.size(); ++I)
    if (Decls[I] && Held[I].Begin >= From && Held[I].End <= Messages.size()) {
      Real += Messages.slice(From, Held[I].Begin);
      From = Held[I].End;
    }
  Real += Messages.substr(From);
  return Real;
}

} // namespace

void setNvccAcceptedErrorHandler(
    std::function<void(const NvccAcceptedError &)> Handler) {
  std::lock_guard<std::mutex> Lock(HandlerMutex);
  handler() = std::move(Handler);
}

Expected<std::vector<NvccAcceptedError>>
checkParseErrors(ASTUnit *Unit, const ParseErrorCollector &Collector,
                 StringRef Messages) {
  auto Fail = [&](StringRef Errors) {
    return createStringError(inconvertibleErrorCode(), "%s",
                             Errors.trim().empty()
                                 ? "clang could not build an AST for this file"
                                 : Errors.rtrim().str().c_str());
  };
  if (!Unit)
    return Fail(Messages);
  if (Collector.Held.empty()) {
    if (Collector.Errors > 0 || Unit->getDiagnostics().hasErrorOccurred())
      return Fail(Messages);
    return std::vector<NvccAcceptedError>();
  }

  std::vector<const VarDecl *> Decls =
      nvccAcceptedDecls(Unit->getASTContext(), Collector.Held);
  if (Collector.Errors > 0 || Unit->getDiagnostics().hasFatalErrorOccurred() ||
      llvm::is_contained(Decls, nullptr))
    // Other errors fail the parse: only they are listed, so that the code
    // nvcc accepts does not read as one more error to fix.
    return Fail(withoutAccepted(Messages, Collector.Held, Decls));
  const SourceManager &SM = Unit->getSourceManager();
  std::vector<NvccAcceptedError> Accepted;
  StringSet<> Seen;
  for (unsigned I = 0; I < Collector.Held.size(); ++I) {
    const unsigned ID = Collector.Held[I].DiagID;
    const VarDecl *VD = Decls[I];
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(VD->getLocation()));
    NvccAcceptedError E;
    E.Location = P.isValid() ? (Twine(P.getFilename()) + ":" +
                                Twine(P.getLine()) + ":" + Twine(P.getColumn()))
                                   .str()
                             : "<unknown>";
    E.Message = describe(VD, ID);
    if (Seen.insert(E.Location + E.Message).second)
      Accepted.push_back(std::move(E));
  }
  std::function<void(const NvccAcceptedError &)> H;
  {
    std::lock_guard<std::mutex> Lock(HandlerMutex);
    H = handler();
  }
  if (H)
    for (const NvccAcceptedError &E : Accepted)
      H(E);
  return Accepted;
}

} // namespace cuda_opt
