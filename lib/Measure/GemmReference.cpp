//===- GemmReference.cpp - The cuBLAS problem a GEMM kernel solves --------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/GemmReference.h"
#include "WorkerProtocol.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Capture/TuneSpec.h"

using namespace llvm;

namespace cuda_opt {

std::optional<json::Object>
gemmReferenceFor(const KernelModel &Model,
                 const StringMap<int64_t> &IntArgs,
                 const StringMap<int64_t> &BufferElements,
                 const std::array<int64_t, 3> &Grid,
                 const std::array<int64_t, 3> &Block, std::string &Why) {
  json::Object J = Model.toJSON();
  const json::Object *Idiom = J.getObject("idiom");
  if (!Idiom || Idiom->getString("kind") != "gemm") {
    Why = "not classified as a GEMM";
    return std::nullopt;
  }
  // K: the loop of the product accumulation.
  std::optional<int64_t> KDim;
  const json::Array *Loops = J.getArray("loops");
  if (const json::Array *Accs = J.getArray("accumulations"))
    for (const json::Value &AV : *Accs) {
      const json::Object *A = AV.getAsObject();
      if (!A || !A->getBoolean("product").value_or(false) || !Loops)
        continue;
      int64_t L = A->getInteger("loop").value_or(-1);
      if (L < 0 || L >= static_cast<int64_t>(Loops->size()))
        continue;
      const json::Object *LO = (*Loops)[L].getAsObject();
      std::optional<StringRef> Trip =
          LO ? LO->getString("trip_count_expr") : std::nullopt;
      if (!Trip)
        continue;
      if (Expected<int64_t> V = evalSizeExpr(*Trip, IntArgs)) {
        KDim = *V;
        break;
      } else {
        consumeError(V.takeError());
      }
    }
  if (!KDim || *KDim <= 0) {
    Why = "the reduction loop's trip count is not known from the arguments";
    return std::nullopt;
  }
  // N and batch from the output's index; M from the output's size.
  const json::Array *Accesses = J.getArray("accesses");
  for (const json::Value &AV : Accesses ? *Accesses : json::Array()) {
    const json::Object *A = AV.getAsObject();
    if (!A || A->getString("kind") != "write" ||
        A->getString("space") != "global")
      continue;
    std::string Base = A->getString("base").value_or("").str();
    auto Count = BufferElements.find(Base);
    const json::Array *Terms = A->getArray("index_terms");
    if (Count == BufferElements.end() || !Terms)
      continue;
    std::optional<int64_t> N;
    int64_t Batch = 1;
    for (const json::Value &TV : *Terms) {
      const json::Object *T = TV.getAsObject();
      const json::Array *Syms = T ? T->getArray("symbols") : nullptr;
      if (!Syms)
        continue;
      std::vector<std::string> Names;
      for (const json::Value &S : *Syms)
        Names.push_back(S.getAsString().value_or("").str());
      auto Has = [&](StringRef S) { return llvm::is_contained(Names, S); };
      if (Has("blockIdx.z"))
        Batch = Grid[2];
      if (!Has("threadIdx.y"))
        continue;
      int64_t Product = T->getInteger("coeff").value_or(1);
      bool Known = true;
      for (const std::string &S : Names) {
        if (S == "threadIdx.y")
          continue;
        auto V = IntArgs.find(S);
        if (V == IntArgs.end()) {
          Known = false;
          break;
        }
        Product *= V->second;
      }
      if (Known)
        N = Product;
    }
    if (!N || *N <= 0) {
      Why = "the output's row stride is not known from the arguments";
      return std::nullopt;
    }
    int64_t M = Count->second / (*N * Batch);
    int64_t GridRows = Grid[1] * Block[1];
    if (GridRows > 0)
      M = std::min(M, GridRows);
    if (M <= 0) {
      Why = "the output holds less than one row";
      return std::nullopt;
    }
    std::string DType = A->getString("element_type").value_or("").str();
    std::string RT = DType == "float"    ? "f32"
                     : DType == "__half" ? "f16"
                     : DType == "__nv_bfloat16" ? "bf16"
                                                : "";
    if (RT.empty()) {
      Why = "cuBLAS has no GEMM for element type '" + DType + "'";
      return std::nullopt;
    }
    namespace ref = worker::reference;
    return json::Object{{ref::Kind, ref::KindCublasGemm},
                        {ref::M, M},
                        {ref::N, *N},
                        {ref::K, *KDim},
                        {ref::Batch, Batch},
                        {ref::DType, RT}};
  }
  Why = "no global store to a known buffer";
  return std::nullopt;
}

} // namespace cuda_opt
