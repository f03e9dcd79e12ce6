//===- PipelineParser.cpp - Parse --passes pipeline strings --------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Pass/Pipeline.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace cuda_opt {

std::string PassInvocation::str() const {
  std::string S = Pass->getName().str();
  std::string P = Params.str(Pass->getParams());
  if (!P.empty())
    S += "{" + P + "}";
  return S;
}

static std::string knownPassNames() {
  std::string S;
  for (const auto &T : TransformRegistry::createAll()) {
    if (!S.empty())
      S += ", ";
    S += T->getName().str();
  }
  return S;
}

static Error parseParams(StringRef Body, const Transform &T,
                         ParamValues &Out) {
  for (const ParamSpec &P : T.getParams())
    if (P.IsText)
      Out.setText(P.Name, "");
    else
      Out.set(P.Name, P.Default);
  SmallVector<StringRef, 4> Items;
  // Parameters may be separated by commas or spaces.
  std::string Normalized = Body.str();
  std::replace(Normalized.begin(), Normalized.end(), ',', ' ');
  SplitString(Normalized, Items, " ");
  for (StringRef Item : Items) {
    auto [Key, Value] = Item.split('=');
    Key = Key.trim();
    Value = Value.trim();
    const ParamSpec *Spec = nullptr;
    for (const ParamSpec &P : T.getParams())
      if (P.Name == Key)
        Spec = &P;
    if (!Spec) {
      std::string Valid;
      for (const ParamSpec &P : T.getParams())
        Valid += (Valid.empty() ? "" : ", ") + P.Name;
      return createStringError(
          inconvertibleErrorCode(),
          "pass '%s' has no parameter '%s' (valid: %s)",
          T.getName().str().c_str(), Key.str().c_str(),
          Valid.empty() ? "none" : Valid.c_str());
    }
    if (Spec->IsText) {
      // A file name or identifier; quotes are optional.
      if (Value.size() >= 2 && Value.front() == '"' && Value.back() == '"')
        Value = Value.drop_front().drop_back();
      if (Value.empty())
        return createStringError(inconvertibleErrorCode(),
                                 "parameter '%s' of pass '%s' needs a value",
                                 Key.str().c_str(), T.getName().str().c_str());
      Out.setText(Key, Value);
      continue;
    }
    int64_t V;
    if (Value.empty() || Value.getAsInteger(10, V))
      return createStringError(inconvertibleErrorCode(),
                               "parameter '%s' of pass '%s' needs an integer "
                               "value, got '%s'",
                               Key.str().c_str(), T.getName().str().c_str(),
                               Value.str().c_str());
    if (V < Spec->Min || V > Spec->Max)
      return createStringError(
          inconvertibleErrorCode(),
          "parameter '%s' of pass '%s' is %lld, outside its range [%lld, %lld]",
          Key.str().c_str(), T.getName().str().c_str(), (long long)V,
          (long long)Spec->Min, (long long)Spec->Max);
    if (Spec->PowerOfTwo && (V & (V - 1)) != 0)
      return createStringError(
          inconvertibleErrorCode(),
          "parameter '%s' of pass '%s' must be a power of two, got %lld",
          Key.str().c_str(), T.getName().str().c_str(), (long long)V);
    Out.set(Key, V);
  }
  return Error::success();
}

Expected<std::vector<PassInvocation>> parsePipeline(StringRef Spec) {
  std::vector<PassInvocation> Result;
  StringRef Rest = Spec.trim();
  if (Rest.empty())
    return createStringError(inconvertibleErrorCode(),
                             "empty pass pipeline; available passes: %s",
                             knownPassNames().c_str());
  while (!Rest.empty()) {
    size_t NameEnd = Rest.find_first_of(",{");
    StringRef Name = Rest.substr(0, NameEnd).trim();
    StringRef Body;
    Rest = NameEnd == StringRef::npos ? StringRef() : Rest.substr(NameEnd);
    if (Rest.starts_with("{")) {
      size_t Close = Rest.find('}');
      if (Close == StringRef::npos)
        return createStringError(inconvertibleErrorCode(),
                                 "missing '}' after parameters of pass '%s'",
                                 Name.str().c_str());
      Body = Rest.substr(1, Close - 1);
      Rest = Rest.substr(Close + 1);
    }
    Rest = Rest.ltrim();
    if (Rest.starts_with(","))
      Rest = Rest.drop_front().ltrim();
    else if (!Rest.empty())
      return createStringError(inconvertibleErrorCode(),
                               "expected ',' after pass '%s' in pipeline",
                               Name.str().c_str());
    if (Name.empty())
      return createStringError(inconvertibleErrorCode(),
                               "empty pass name in pipeline '%s'",
                               Spec.str().c_str());
    std::unique_ptr<Transform> T = TransformRegistry::create(Name);
    if (!T)
      return createStringError(inconvertibleErrorCode(),
                               "unknown pass '%s'; available passes: %s "
                               "(see --list-passes)",
                               Name.str().c_str(), knownPassNames().c_str());
    PassInvocation PI;
    if (Error E = parseParams(Body, *T, PI.Params))
      return std::move(E);
    PI.Pass = std::move(T);
    Result.push_back(std::move(PI));
  }
  return Result;
}

FpModel modelNeededFor(const KernelTarget &Target,
                       ArrayRef<PassInvocation> Steps) {
  FpModel Needs = FpModel::Strict;
  for (const PassInvocation &PI : Steps) {
    FpEffect E = PI.Pass->fpEffectOn(Target, PI.Params);
    if (!fpModelAllows(Needs, E))
      Needs = modelRequiredFor(E);
  }
  return Needs;
}

bool appendLinkFlags(const PassInvocation &PI,
                     std::vector<std::string> &Flags) {
  std::vector<std::string> Own = PI.Pass->linkFlags(PI.Params);
  for (std::string &F : Own)
    if (!is_contained(Flags, F))
      Flags.push_back(std::move(F));
  return !Own.empty();
}

bool appendLinkFlags(StringRef Pipeline, std::vector<std::string> &Flags) {
  // A region's label ("region #1: cub-sort") names its rewrite after ": ".
  if (Pipeline.starts_with("region #"))
    Pipeline = Pipeline.split(": ").second;
  if (Pipeline.trim().empty())
    return false;
  Expected<std::vector<PassInvocation>> Steps = parsePipeline(Pipeline);
  if (!Steps) {
    consumeError(Steps.takeError());
    return false;
  }
  bool Any = false;
  for (const PassInvocation &PI : *Steps)
    Any |= appendLinkFlags(PI, Flags);
  return Any;
}

std::string linkFlagsHeader(ArrayRef<std::string> Flags,
                            ArrayRef<std::string> Passes) {
  if (Flags.empty())
    return "";
  return "// cuda-opt: link with " + join(Flags, " ") + " (" +
         join(Passes, ", ") + " calls the library).\n";
}

} // namespace cuda_opt
