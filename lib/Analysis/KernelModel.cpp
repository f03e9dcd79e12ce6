//===- KernelModel.cpp - What cuda-opt knows about one kernel ------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelModel.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

json::Value analyzeKernelToJSON(ASTContext &Ctx, const KernelInfo &K) {
  // TODO(analysis): loops, accesses, idioms. Only the inventory for now.
  return kernelInventoryToJSON(Ctx, K);
}

} // namespace cuda_opt
