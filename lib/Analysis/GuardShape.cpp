//===- GuardShape.cpp - The shape of a kernel's range guard ---------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "GuardShape.h"
#include "cuda-opt/Analysis/ThreadMapping.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

void flattenLogical(const Expr *E, BinaryOperatorKind Op,
                    SmallVectorImpl<const Expr *> &Out) {
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (BO && BO->getOpcode() == Op) {
    flattenLogical(BO->getLHS(), Op, Out);
    flattenLogical(BO->getRHS(), Op, Out);
    return;
  }
  Out.push_back(E);
}

bool isBareReturn(const Stmt *S) {
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return CS->size() == 1 && isBareReturn(CS->body_front());
  const auto *RS = dyn_cast<ReturnStmt>(S);
  return RS && !RS->getRetValue();
}

const Stmt *collectGuardedWork(const IfStmt *If, bool EarlyReturn,
                               ArrayRef<Stmt *> After,
                               SmallVectorImpl<const Stmt *> &Work) {
  if (!EarlyReturn)
    Work.push_back(If->getThen());
  for (const Stmt *S : After) {
    if (isa<NullStmt>(S))
      continue;
    if (!EarlyReturn)
      return S;
    Work.push_back(S);
  }
  return nullptr;
}

const Stmt *firstMacroStatement(ArrayRef<const Stmt *> Work) {
  for (const Stmt *S : Work)
    if (inMacro(S->getSourceRange()))
      return S;
  return nullptr;
}

} // namespace cuda_opt
