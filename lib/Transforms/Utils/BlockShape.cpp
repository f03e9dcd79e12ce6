//===- BlockShape.cpp - Whether a kernel may get a new block shape --------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/BlockShape.h"

#include "clang/AST/Attr.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

Error checkNewBlockShape(const KernelTarget &T, int64_t X, int64_t Y) {
  const KernelInfo &K = T.Kernel;
  int64_t Threads = X * Y;
  if (Threads > 1024)
    return refuse("a block of " + Twine(X) + "x" + Twine(Y) + " = " +
                  Twine(Threads) + " threads exceeds the CUDA limit of 1024");
  if (Threads % 32 != 0)
    return refuse("a block of " + Twine(X) + "x" + Twine(Y) + " = " +
                  Twine(Threads) +
                  " threads is not a multiple of the warp size 32");
  if (const auto *LB = K.Decl->getAttr<CUDALaunchBoundsAttr>()) {
    Expr::EvalResult R;
    if (LB->getMaxThreads()->EvaluateAsInt(R, T.Ctx) &&
        R.Val.getInt().getExtValue() < Threads)
      return refuse("kernel '" + K.name() + "' has __launch_bounds__(" +
                    Twine(R.Val.getInt().getExtValue()) +
                    "), below the new block size of " + Twine(Threads) +
                    " threads");
  }
  return Error::success();
}

} // namespace cuda_opt
