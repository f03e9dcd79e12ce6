//===- Transform.cpp - Transform registry and parameter values -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Pass/Transform.h"

#include <algorithm>

using namespace llvm;

namespace cuda_opt {

TransformPlan::~TransformPlan() = default;

Transform::~Transform() = default;

int64_t ParamValues::get(StringRef Name) const {
  auto It = Values.find(Name);
  assert(It != Values.end() && "parameter not validated");
  return It->second;
}

std::string ParamValues::str(ArrayRef<ParamSpec> Specs) const {
  std::string S;
  for (const ParamSpec &P : Specs) {
    if (P.IsText && getText(P.Name).empty())
      continue; // Not given.
    if (!S.empty())
      S += ",";
    S += P.Name + "=" +
         (P.IsText ? getText(P.Name) : std::to_string(get(P.Name)));
  }
  return S;
}

static std::vector<TransformRegistry::Factory> &factories() {
  static std::vector<TransformRegistry::Factory> List;
  return List;
}

void TransformRegistry::add(Factory F) { factories().push_back(std::move(F)); }

std::vector<std::unique_ptr<Transform>> TransformRegistry::createAll() {
  std::vector<std::unique_ptr<Transform>> All;
  for (const Factory &F : factories())
    All.push_back(F());
  std::sort(All.begin(), All.end(), [](const auto &A, const auto &B) {
    return A->getName() < B->getName();
  });
  return All;
}

std::unique_ptr<Transform> TransformRegistry::create(StringRef Name) {
  for (const Factory &F : factories()) {
    std::unique_ptr<Transform> T = F();
    if (T->getName() == Name)
      return T;
  }
  return nullptr;
}

} // namespace cuda_opt
