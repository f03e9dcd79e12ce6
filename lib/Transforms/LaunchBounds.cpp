//===- LaunchBounds.cpp - Add __launch_bounds__ to a kernel --------------===//
//
// Part of cuda-opt.
//
// launch-bounds{threads,blocks} writes __launch_bounds__(threads, blocks) on
// the kernel. The bound is a promise to the compiler: launching with more
// threads per block than `threads` fails at run time, so the transform is
// legal only when every launch in the file has a known block size within the
// bound. threads=0 takes the largest block size seen at the launch sites; an
// explicit threads=N is accepted for kernels not launched in the file.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/Attr.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The attribute's arguments.
struct LaunchBoundsPlan : TransformPlan {
  int64_t Threads = 0;
  int64_t Blocks = 0; ///< 0 = not written.
};

class LaunchBounds : public TransformWithPlan<LaunchBoundsPlan> {
public:
  bool assumesUnseenLaunches(const ParamValues &P) const override {
    return P.get("threads") > 0;
  }
  StringRef getName() const override { return "launch-bounds"; }
  StringRef getSummary() const override {
    return "add __launch_bounds__(threads, blocks) so the compiler can budget "
           "registers";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"threads", 0, 0, 1024,
         "max threads per block; 0 = largest block size at the launch sites",
         false, {0, 256, 512, 1024}},
        {"blocks", 0, 0, 32,
         "min resident blocks per SM; 0 = leave to the compiler", false,
         {0, 2, 4, 8}},
    };
    return Specs;
  }

  /// The threads bound to write, or an error saying why no bound is safe.
  Expected<int64_t> boundFor(const KernelTarget &T,
                             const ParamValues &P) const {
    const KernelInfo &K = T.Kernel;
    // A library kernel launched elsewhere: only an explicit bound, which the
    // user (or the tuner, from a spec's block size) vouches for.
    if (K.Launches.empty() && P.get("threads") > 0)
      return P.get("threads");
    if (K.Launches.empty())
      return refuse("kernel '" + K.name() +
                    "' is not launched in this file, so its block size is "
                    "unknown; give threads=N if every launch uses at most N "
                    "threads per block");
    int64_t Largest = 0;
    for (const LaunchSite &L : K.Launches) {
      std::optional<int64_t> N = threadsPerBlock(L, T.Ctx);
      if (!N)
        return refuse("the block size of the launch at " +
                      describeLocation(T.getSourceManager(),
                                       L.Call->getBeginLoc()) +
                      " is not a compile-time constant");
      Largest = std::max(Largest, *N);
    }
    int64_t Threads = P.get("threads");
    if (Threads == 0)
      return Largest;
    if (Threads < Largest)
      return refuse("threads=" + Twine(Threads) + " is below the block size " +
                    Twine(Largest) + " used at a launch site");
    return Threads;
  }

  Expected<LaunchBoundsPlan> makePlan(const KernelTarget &T,
                                      const ParamValues &P) const override {
    if (T.Kernel.Decl->hasAttr<CUDALaunchBoundsAttr>())
      return refuse("kernel '" + T.Kernel.name() +
                    "' already has __launch_bounds__");
    Expected<int64_t> Threads = boundFor(T, P);
    if (!Threads)
      return Threads.takeError();
    LaunchBoundsPlan Plan;
    Plan.Threads = *Threads;
    Plan.Blocks = P.get("blocks");
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const LaunchBoundsPlan &Plan) const override {
    std::string Attr = "__launch_bounds__(" + std::to_string(Plan.Threads);
    if (Plan.Blocks > 0)
      Attr += ", " + std::to_string(Plan.Blocks);
    Attr += ") ";
    // Insert right before the kernel's name: `__global__ void
    // __launch_bounds__(256) k(...)` is where nvcc and clang both accept it.
    const SourceManager &SM = T.getSourceManager();
    SourceLocation Loc = SM.getExpansionLoc(T.Kernel.Decl->getLocation());
    tooling::Replacements R;
    if (Error E = R.add(tooling::Replacement(SM, Loc, 0, Attr)))
      return std::move(E);
    return R;
  }
};

} // namespace

std::unique_ptr<Transform> createLaunchBoundsTransform() {
  return std::make_unique<LaunchBounds>();
}
} // namespace cuda_opt
