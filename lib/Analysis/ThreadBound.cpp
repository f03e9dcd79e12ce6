//===- ThreadBound.cpp - Does code depend on the thread it runs on? -------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ThreadBound.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// What a called function's body does that would tie it to its thread.
class ThreadBoundFinder : public RecursiveASTVisitor<ThreadBoundFinder> {
public:
  explicit ThreadBoundFinder(unsigned Depth) : Depth(Depth) {}
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (StringSwitch<bool>(VD->getName())
              .Cases({"threadIdx", "blockIdx", "blockDim", "gridDim"}, true)
              .Default(false))
        note("reads " + VD->getName().str());
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasAttr<CUDASharedAttr>())
      note("uses __shared__ memory");
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      note("makes an indirect call");
      return true;
    }
    StringRef Name = FD->getDeclName().isIdentifier() ? FD->getName() : "";
    if (Name.starts_with("__sync") || Name.starts_with("__shfl") ||
        Name.starts_with("__ballot") || Name.starts_with("__activemask")) {
      note("calls " + Name.str());
      return true;
    }
    const SourceManager &SM = FD->getASTContext().getSourceManager();
    if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
      return true;
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->getBody()) {
      note("calls '" + FD->getNameAsString() +
           "', whose body cuda-opt cannot see");
      return true;
    }
    if (Depth == 0) {
      note("calls functions nested too deeply for cuda-opt to check");
      return true;
    }
    if (!Visited.insert(Def).second)
      return true;
    ThreadBoundFinder Inner(Depth - 1);
    Inner.Visited = Visited;
    Inner.TraverseStmt(Def->getBody());
    if (!Inner.What.empty())
      note("calls '" + FD->getNameAsString() + "', which " + Inner.What);
    return true;
  }
  void note(const std::string &W) {
    if (What.empty())
      What = W;
  }
  unsigned Depth;
  SmallPtrSet<const FunctionDecl *, 4> Visited;
  std::string What;
};

} // namespace

std::string threadBoundUse(const Stmt *S) {
  ThreadBoundFinder F(/*Depth=*/4);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.What;
}

} // namespace cuda_opt
