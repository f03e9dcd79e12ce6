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
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace cuda_opt {

/// An error whose message is \p Reason.
inline llvm::Error refuse(const llvm::Twine &Reason) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Reason);
}

/// A refusal that holds only because nothing proves two pointers apart:
/// restrict-const, run earlier in a pipeline, may lift it by marking them
/// __restrict__. The tuner's cheap filter on the original's parse therefore
/// keeps `restrict-const,X` when X refuses this way, and lets the pipeline's
/// own check (after the re-parse) decide.
class AliasRefusal : public llvm::ErrorInfo<AliasRefusal> {
public:
  static inline char ID = 0; // C++17 inline: no .cpp needed
  explicit AliasRefusal(std::string Reason) : Reason(std::move(Reason)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Reason; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string Reason;
};

/// An AliasRefusal whose message is \p Reason.
inline llvm::Error refuseMayAlias(const llvm::Twine &Reason) {
  return llvm::make_error<AliasRefusal>(Reason.str());
}

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_REFUSAL_H
