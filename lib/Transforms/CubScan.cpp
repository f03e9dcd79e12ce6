//===- CubScan.cpp - Route a device-wide scan function to CUB -------------===//
//
// Part of cuda-opt. `cub-scan` on the per-block scan kernel of a
// scan-then-propagate host function (Analysis/ScanRoutine.h): the function's
// body, which launches the block scan, recurses on the block totals and
// adds them back (three passes over the data, more launches per level), is
// replaced by CUB's single-pass device-wide scan, which reads the input and
// writes the output once:
//
//   static int scan_device(int *out, const int *in, int n) {
//     size_t cudaopt_scan_bytes = 0;
//     CK(cub::DeviceScan::InclusiveSum(nullptr, cudaopt_scan_bytes, in, out, n));
//     ...the same call with stream-ordered scratch memory...
//     CK(cudaDeviceSynchronize());          // kept from the original
//     return 0;
//   }
//
// The user's own check macro wraps the new calls (none when the original
// called the CUDA API bare), the function's final synchronisation and
// status are kept, and the kernels stay in the file (other code may launch
// them). Integer sums are exact in any order (bitwise equal, allowed under
// --fp-model=strict); floating-point sums are reassociated (reassoc).
// Host regions (tune's region phase) measure the call as one unit.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ScanRoutine.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Support/Refusal.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

struct CubScanPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
};

/// The routine \p K is the block scan of, or why there is none. \p Kernels
/// is findKernels' (the routine's kernel indices point into it).
Expected<ScanRoutine> routineOfBlockKernel(const KernelTarget &T,
                                           const std::vector<KernelInfo> &Kernels) {
  const KernelInfo &K = T.Kernel;
  std::string Name = "kernel '" + K.name() + "'";
  if (K.Launches.size() != 1)
    return refuse(Name + " is launched " + std::to_string(K.Launches.size()) +
                  " times; cub-scan needs the one launch in a recursive scan "
                  "function");
  Expected<ScanRoutine> R =
      matchScanRoutine(T.Ctx, K.Launches[0].Caller, Kernels);
  if (!R) {
    // The pipeline names the kernel already.
    std::string Why = toString(R.takeError());
    StringRef Rest(Why);
    Rest.consume_front(Name + ": ");
    return refuse(Rest);
  }
  if (Kernels[R->BlockKernel].Decl != K.Decl)
    return refuse(Name + " is not the block scan of function '" +
                  R->Function->getNameAsString() + "'");
  return R;
}

class CubScan : public TransformWithPlan<CubScanPlan> {
public:
  StringRef getName() const override { return "cub-scan"; }
  StringRef getSummary() const override {
    return "replace a recursive scan-then-propagate prefix-sum function "
           "(this per-block scan kernel, a recursion on the block totals, an "
           "offset kernel) with CUB's single-pass device scan (host region "
           "rewrite; integer sums stay exact)";
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  /// Integer sums are associative: CUB's order gives the same bits.
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<ScanRoutine> R = routineOfBlockKernel(T, findKernels(T.Ctx));
    if (!R) {
      consumeError(R.takeError());
      return fpEffect(P);
    }
    return R->Element->isIntegerType() ? FpEffect::Preserves
                                       : FpEffect::Reassociates;
  }

  Expected<CubScanPlan> makePlan(const KernelTarget &T,
                                 const ParamValues &) const override {
    std::vector<KernelInfo> Kernels = findKernels(T.Ctx);
    Expected<ScanRoutine> R = routineOfBlockKernel(T, Kernels);
    if (!R)
      return R.takeError();
    const FunctionDecl *F = R->Function;
    const SourceManager &SM = T.getSourceManager();
    const Stmt *Body = F->getBody();
    SourceLocation B = Body->getBeginLoc(), E = Body->getEndLoc();
    if (B.isMacroID() || E.isMacroID() || !SM.isWrittenInMainFile(B))
      return refuse("function '" + F->getNameAsString() +
                    "' is not written out in the main file");
    std::string Out = F->getParamDecl(R->Out)->getNameAsString();
    std::string In = F->getParamDecl(R->In)->getNameAsString();
    std::string N = F->getParamDecl(R->Count)->getNameAsString();
    if (Out.empty() || In.empty() || N.empty())
      return refuse("function '" + F->getNameAsString() +
                    "' has unnamed parameters");
    auto Wrap = [&](const std::string &Call) {
      return "  " +
             (R->CheckMacro.empty() ? Call : R->CheckMacro + "(" + Call + ")") +
             ";\n";
    };
    bool Exact = R->Element->isIntegerType();
    // CUB carries the running prefix from tile to tile in sequence, so in
    // float its error grows with n, past the original tree's (measured on
    // the H200: 3.7x the recursive scan's at 4M floats, which the reassoc
    // check rejects). Floats are summed in double instead and rounded once
    // per output; a double has no wider type to go to.
    const auto *BT = R->Element->getAs<BuiltinType>();
    bool Float = BT && BT->getKind() == BuiltinType::Float;
    if (!Exact && !Float)
      return refuse("function '" + F->getNameAsString() + "' sums '" +
                    R->Element.getAsString() +
                    "': CUB's running prefix would add its tiles in "
                    "sequence, in no wider type than the original's tree, "
                    "and lose accuracy as n grows");
    std::string Scan =
        Exact ? "cub::DeviceScan::InclusiveSum("
              : "cub::DeviceScan::InclusiveScan(";
    std::string Tail = Exact ? ", " + N + ")"
                             : ", cuda::std::plus<double>(), " + N + ")";
    std::string Text =
        "{\n"
        "  // cuda-opt cub-scan: the launches of " +
        Kernels[R->BlockKernel].name() + " and " +
        Kernels[R->OffsetKernel].name() + " and the recursion on the\n"
        "  // block totals computed the inclusive prefix sum of " + In +
        "[0, " + N + ") into " + Out + ";\n"
        "  // CUB's single-pass device scan computes it reading and writing "
        "each\n  // element once (" +
        (Exact ? "integer sums: the same bits"
               : "float sums accumulated in double, rounded once per "
                 "output: --fp-model=reassoc") +
        ").\n"
        "  size_t cudaopt_scan_bytes = 0;\n" +
        Wrap(Scan + "nullptr, cudaopt_scan_bytes, " + In + ", " + Out + Tail) +
        "  void *cudaopt_scan_temp = nullptr;\n" +
        Wrap("cudaMallocAsync(&cudaopt_scan_temp, cudaopt_scan_bytes, 0)") +
        Wrap(Scan + "cudaopt_scan_temp, cudaopt_scan_bytes, " + In + ", " +
             Out + Tail) +
        Wrap("cudaFreeAsync(cudaopt_scan_temp, 0)");
    if (!R->FinalSync.empty())
      Text += "  " + R->FinalSync + "\n";
    if (!R->SuccessValue.empty())
      Text += "  return " + R->SuccessValue + ";\n";
    Text += "}";
    CubScanPlan P;
    P.Edits.push_back(
        {CharSourceRange::getTokenRange(Body->getSourceRange()), Text});
    P.Notes.push_back("cub-scan: function '" + F->getNameAsString() +
                      "' now calls " + Scan.substr(0, Scan.size() - 1));
    return P;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const CubScanPlan &P) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cub/device/device_scan.cuh",
         "#include <cub/device/device_scan.cuh>\n"}};
    return libraryCallReplacements(T.Ctx, P.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createCubScanTransform() {
  return std::make_unique<CubScan>();
}

} // namespace cuda_opt
