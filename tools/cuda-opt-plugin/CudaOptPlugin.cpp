//===- CudaOptPlugin.cpp - cuda-opt as a clang plugin ---------------------===//
//
// Part of cuda-opt. Loaded into clang during a normal CUDA build
// (`clang++ -x cuda -fplugin=CudaOptPlugin.so ...`), it looks at every
// kernel the main file defines and reports, as remarks, what `cuda-opt tune`
// would do with it: the kernel's idiom, how many candidate pipelines pass
// their legality checks, and the ones the learned policy would measure
// first with their predicted speedups. It never changes the build; the
// measured answer is `cuda-opt tune FILE`. docs/plugin.md.
//
// Arguments (-fplugin-arg-cudaopt-NAME=VALUE; clang splits the plugin name
// at its first dash, hence no dash in it):
//   top=N       how many candidates to list per kernel (default 3)
//   kernel=NAME only this kernel
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Search/CandidateSpace.h"
#include "cuda-opt/Search/TuningPolicy.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Transforms/InitAllTransforms.h"
#include "cuda-opt/Pass/Transform.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include <limits>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The candidate pipelines every pass of which is legal for the kernel.
std::vector<std::string> legalCandidates(ASTContext &Ctx,
                                         const KernelInfo &K) {
  std::vector<std::string> Legal;
  for (const std::string &P :
       candidatePipelines(std::numeric_limits<unsigned>::max())) {
    Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(P);
    if (!Pipeline) {
      consumeError(Pipeline.takeError());
      continue;
    }
    bool Ok = true;
    for (const PassInvocation &PI : *Pipeline)
      if (Error E = PI.Pass->checkLegality(KernelTarget{Ctx, K}, PI.Params)) {
        consumeError(std::move(E));
        Ok = false;
        break;
      }
    if (Ok)
      Legal.push_back(P);
  }
  return Legal;
}

class AdvisorConsumer : public ASTConsumer {
public:
  AdvisorConsumer(CompilerInstance &CI, unsigned Top, std::string Only)
      : CI(CI), Top(Top), Only(std::move(Only)) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    // A CUDA build runs clang once per side; the host side sees every
    // kernel's body too, so report once, there.
    if (Ctx.getLangOpts().CUDAIsDevice)
      return;
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    const unsigned Remark = Diags.getCustomDiagID(
        DiagnosticsEngine::Remark, "cuda-opt: %0");
    const SourceManager &SM = Ctx.getSourceManager();
    const TuningPolicy &Policy = TuningPolicy::learned();
    for (const KernelInfo &K : findKernels(Ctx)) {
      if (!SM.isInMainFile(K.Decl->getLocation()) ||
          (!Only.empty() && K.name() != Only))
        continue;
      KernelModel M = buildKernelModel(Ctx, K);
      std::vector<std::string> Legal = legalCandidates(Ctx, K);
      const KernelFeatures F = M.features();
      std::string Text = formatv("kernel '{0}' ({1}): {2} candidate "
                                 "pipeline{3} legal",
                                 K.name(), idiomName(M.Idiom.Kind),
                                 Legal.size(), Legal.size() == 1 ? "" : "s")
                             .str();
      if (!Legal.empty()) {
        // The policy's order: its picks interleaved with round-robin
        // exploration, as tune measures them.
        Text += "; tune would measure first:";
        std::vector<size_t> Order = Policy.rank(F, Legal);
        for (size_t I = 0; I < Order.size() && I < Top; ++I) {
          const std::string &P = Legal[Order[I]];
          std::optional<double> S = Policy.predictSpeedup(F, P);
          Text += (I ? ", " : " ") + P + " " +
                  (S ? formatv("(predicted {0:F2}x)", *S).str()
                     : std::string("(never measured on a similar kernel)"));
        }
        Text += "; measure with `cuda-opt tune`";
      }
      Diags.Report(K.Decl->getLocation(), Remark) << Text;
    }
  }

private:
  CompilerInstance &CI;
  unsigned Top;
  std::string Only;
};

class AdvisorAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<AdvisorConsumer>(CI, Top, Only);
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    registerAllTransforms();
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &A : Args) {
      StringRef Arg(A);
      if (Arg.consume_front("top=")) {
        if (Arg.getAsInteger(10, Top)) {
          D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                     "cuda-opt plugin: top=N needs a "
                                     "number, not '%0'"))
              << Arg;
          return false;
        }
      } else if (Arg.consume_front("kernel=")) {
        Only = Arg.str();
      } else {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                   "cuda-opt plugin: unknown argument '%0' "
                                   "(known: top=N, kernel=NAME)"))
            << A;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddAfterMainAction; }

private:
  unsigned Top = 3;
  std::string Only;
};

} // namespace
} // namespace cuda_opt

static FrontendPluginRegistry::Add<cuda_opt::AdvisorAction>
    X("cudaopt", "report what cuda-opt tune would try on each kernel");
