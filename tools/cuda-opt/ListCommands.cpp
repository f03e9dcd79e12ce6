//===- ListCommands.cpp - --list-passes, --list-kernels -------------------===//
//
// Part of cuda-opt. The listing modes: the transforms and their parameters,
// the kernels of a file with their parameters and launch sites, and (for
// bench/policy/train.py) the candidate pipelines tune enumerates.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Capture/RegionCapture.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Search/CandidateSpace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <limits>

using namespace llvm;

namespace cuda_opt {

void listPasses() {
  for (const auto &T : TransformRegistry::createAll()) {
    outs() << "  " << T->getName();
    outs().indent(std::max<int>(1, 16 - (int)T->getName().size()))
        << "- " << T->getSummary() << "\n";
    for (const ParamSpec &P : T->getParams())
      if (P.IsText)
        outs() << "      " << P.Name << "=<text>: " << P.Help << "\n";
      else
        outs() << "      " << P.Name << "=<int> [" << P.Min << ".." << P.Max
               << (P.PowerOfTwo ? ", power of two" : "")
               << "] default " << P.Default << ": " << P.Help << "\n";
  }
}

void printCandidateSpace() {
  for (const std::string &P :
       candidatePipelines(std::numeric_limits<unsigned>::max()))
    outs() << P << "\n";
}

static void printInventory(const KernelInfo &K, const json::Object &O) {
  outs() << "kernel " << K.name() << " at " << *O.getString("location")
         << (K.isExternC() ? " [extern \"C\"]" : "") << "\n";
  if (K.Template) {
    outs() << "  template parameters:";
    for (const json::Value &TP : *O.getArray("template_parameters"))
      outs() << " " << *TP.getAsObject()->getString("name");
    outs() << "\n";
  }
  for (const json::Value &P : *O.getArray("parameters"))
    outs() << "  param " << *P.getAsObject()->getString("type") << " "
           << *P.getAsObject()->getString("name") << "\n";
  for (const json::Value &L : *O.getArray("launches")) {
    const json::Object &LO = *L.getAsObject();
    outs() << "  launch at " << *LO.getString("location") << " in "
           << *LO.getString("caller");
    if (auto G = LO.getString("grid")) {
      outs() << " <<<" << *G << ", " << *LO.getString("block");
      if (auto Sh = LO.getString("shmem"))
        outs() << ", " << *Sh;
      if (auto St = LO.getString("stream"))
        outs() << ", " << *St;
      outs() << ">>>";
    }
    outs() << "\n";
  }
  if (const json::Array *DL = O.getArray("device_launches"))
    for (const json::Value &L : *DL) {
      const json::Object &LO = *L.getAsObject();
      outs() << "  device-side launch at " << *LO.getString("location")
             << " in " << *LO.getString("caller")
             << " (dynamic parallelism: not modelled)\n";
    }
}

Error listKernels(const Toolchain &TC, const SourceInput &In,
                  json::Array &JsonOut) {
  return forSelectedKernels(
      TC, In, [&](clang::ASTContext &Ctx, const KernelInfo &K) {
        json::Value V = kernelInventoryToJSON(Ctx, K);
        if (cli::JSON)
          JsonOut.push_back(std::move(V));
        else
          printInventory(K, *V.getAsObject());
      });
}

/// One region as text: where, the time loop, the steps, the buffers.
static void printRegion(const json::Object &O) {
  int64_t Launches = *O.getInteger("launches");
  outs() << "region in " << *O.getString("function") << " at "
         << *O.getString("location") << ": " << Launches
         << (Launches == 1 ? " launch" : " launches");
  if (int64_t Calls = O.getInteger("calls").value_or(0))
    outs() << ", " << Calls << (Calls == 1 ? " call" : " calls");
  if (int64_t Sorts = O.getInteger("sorts").value_or(0))
    outs() << ", " << Sorts << (Sorts == 1 ? " sorting loop nest" : " sorting loop nests");
  if (const json::Object *L = O.getObject("time_loop")) {
    outs() << ", in the loop at " << *L->getString("location");
    if (auto T = L->getInteger("trips"))
      outs() << " (" << *T << " trips)";
  }
  outs() << "\n";
  for (const json::Value &S : *O.getArray("steps")) {
    const json::Object &SO = *S.getAsObject();
    outs() << "  " << *SO.getString("kind");
    if (auto K = SO.getString("kernel"))
      outs() << " " << *K;
    if (auto F = SO.getString("function"))
      outs() << " " << *F;
    if (const json::Array *B = SO.getArray("buffers")) {
      outs() << "(";
      bool First = true;
      for (const json::Value &A : *B) {
        outs() << (First ? "" : ", ")
               << (A.getAsString() ? *A.getAsString() : StringRef("_"));
        First = false;
      }
      outs() << ")";
    }
    outs() << " at " << *SO.getString("location");
    if (auto C = SO.getString("computes"))
      outs() << " (" << *C << ")";
    outs() << "\n";
  }
  for (const json::Value &B : *O.getArray("buffers")) {
    const json::Object &BO = *B.getAsObject();
    auto Flag = [&](StringRef K) { return *BO.getBoolean(K); };
    outs() << "  buffer " << *BO.getString("name") << ":"
           << (Flag("read") ? " read" : "")
           << (Flag("written") ? " written" : "")
           << (Flag("live_in") ? ", live-in" : "")
           << (Flag("live_out") ? ", live-out" : ", dead after") << "\n";
  }
  for (const json::Value &N : *O.getArray("notes"))
    outs() << "  note: " << *N.getAsString() << "\n";
}

Error listRegions(const Toolchain &TC, const SourceInput &In,
                  json::Array &JsonOut) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return Parsed.takeError();
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  std::vector<HostRegion> Regions = findHostRegions(Ctx, Kernels);
  if (unsigned N = cli::OutlineRegion) {
    if (N > Regions.size())
      return createStringError(inconvertibleErrorCode(),
                               "--outline-region=%u: %s has %zu host "
                               "region%s (--list-regions lists them)",
                               N, In.Path.c_str(), Regions.size(),
                               Regions.size() == 1 ? "" : "s");
    Expected<RegionSignature> Sig = regionSignature(Ctx, Regions[N - 1]);
    if (!Sig)
      return createStringError(inconvertibleErrorCode(),
                               "region %u cannot be outlined: %s", N,
                               toString(Sig.takeError()).c_str());
    outs() << outlineRegion(In.Text, *Sig, Sig->Begin, Sig->End, false)
           << regionEntryText(*Sig);
    return Error::success();
  }
  if (!cli::JSON && Regions.empty())
    outs() << In.Path << ": no host region (two or more launches in a row, "
                         "or a launch in a counted loop)\n";
  for (const HostRegion &R : Regions) {
    json::Value V = hostRegionToJSON(Ctx, Kernels, R);
    if (cli::JSON)
      JsonOut.push_back(std::move(V));
    else
      printRegion(*V.getAsObject());
  }
  return Error::success();
}

void printRegionList(json::Array Regions) {
  if (cli::JSON)
    outs() << formatv("{0:2}", json::Value(std::move(Regions))) << "\n";
}

void printKernelList(json::Array Inventories) {
  if (cli::JSON)
    outs() << formatv("{0:2}", json::Value(std::move(Inventories))) << "\n";
}

} // namespace cuda_opt
