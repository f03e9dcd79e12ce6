//===- AnalyzeCommand.cpp - --analyze -------------------------------------===//
//
// Part of cuda-opt. The kernel model of every selected kernel, as JSON
// (--json) or as the text summary, printed once every input is read.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/KernelModelText.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

Error analyze(const Toolchain &TC, const SourceInput &In,
              json::Array &JsonOut) {
  return forSelectedKernels(TC, In,
                            [&](clang::ASTContext &Ctx, const KernelInfo &K) {
                              JsonOut.push_back(analyzeKernelToJSON(Ctx, K));
                            });
}

void printAnalyses(json::Array Models) {
  if (!cli::JSON) {
    for (const json::Value &V : Models)
      printKernelModelText(*V.getAsObject(), outs());
    return;
  }
  outs() << formatv("{0:2}", json::Value(std::move(Models))) << "\n";
}

} // namespace cuda_opt
