//===- Refusal.h - A reason, phrased for the user, as an llvm::Error ------===//
//
// Part of cuda-opt. Recognisers (lib/Analysis) and transforms (lib/Transforms)
// say why they refuse a kernel with an error whose message is the reason
// ("kernel 'k' has no counted loop to unroll"); callers record it as a value.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_REFUSAL_H
#define CUDA_OPT_SUPPORT_REFUSAL_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace cuda_opt {

/// An error whose message is \p Reason.
inline llvm::Error refuse(const llvm::Twine &Reason) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Reason);
}

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_REFUSAL_H
