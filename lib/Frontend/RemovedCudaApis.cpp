//===- RemovedCudaApis.cpp - Notes for APIs that CUDA 13 removed ----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "RemovedCudaApis.h"
#include "cuda-opt/Frontend/NvccCompat.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace cuda_opt {

namespace {
struct Removed {
  StringLiteral Name;
  StringLiteral Replacement;
};
} // namespace

// Functions of the runtime API that CUDA 13's cuda_runtime_api.h no longer
// declares.
static constexpr Removed RemovedFunctions[] = {
    {"cudaThreadSynchronize", "cudaDeviceSynchronize()"},
    {"cudaThreadExit", "cudaDeviceReset()"},
    {"cudaThreadSetLimit", "cudaDeviceSetLimit()"},
    {"cudaThreadGetLimit", "cudaDeviceGetLimit()"},
    {"cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig()"},
    {"cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig()"},
    {"cudaBindTexture", "a texture object (cudaCreateTextureObject())"},
    {"cudaBindTexture2D", "a texture object (cudaCreateTextureObject())"},
    {"cudaBindTextureToArray", "a texture object (cudaCreateTextureObject())"},
    {"cudaUnbindTexture", "cudaDestroyTextureObject() on a texture object"},
    {"cudaGetTextureReference", "a texture object (cudaCreateTextureObject())"},
    {"texture", "a cudaTextureObject_t (texture references are gone)"},
};

// Fields of cudaDeviceProp that CUDA 13 removed.
static constexpr Removed RemovedDeviceProps[] = {
    {"clockRate", "cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev)"},
    {"memoryClockRate",
     "cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev)"},
    {"deviceOverlap", "the asyncEngineCount field"},
    {"computeMode", "cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, dev)"},
    {"kernelExecTimeoutEnabled",
     "cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, dev)"},
    {"maxTexture1DLinear",
     "cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, dev)"},
    {"singleToDoublePrecisionPerfRatio",
     "cudaDeviceGetAttribute(&v, cudaDevAttrSingleToDoublePrecisionPerfRatio, "
     "dev)"},
    {"cooperativeMultiDeviceLaunch",
     "nothing: multi-device cooperative launches are gone"},
};

/// The text between the first pair of single quotes after \p Prefix.
static std::optional<StringRef> quotedAfter(StringRef Message,
                                            StringRef Prefix) {
  size_t At = Message.find(Prefix);
  if (At == StringRef::npos)
    return std::nullopt;
  StringRef Rest = Message.substr(At + Prefix.size());
  if (!Rest.consume_front("'"))
    return std::nullopt;
  return Rest.take_until([](char C) { return C == '\''; });
}

std::optional<std::string> removedCudaApiNote(StringRef Message) {
  for (StringRef Prefix :
       {"undeclared identifier ", "no template named ", "unknown type name "})
    if (std::optional<StringRef> Name = quotedAfter(Message, Prefix))
      for (const Removed &R : RemovedFunctions)
        if (*Name == R.Name)
          return (Twine("'") + *Name +
                  "' was removed in CUDA 13 (nvcc 13 rejects it "
                  "too); use " +
                  R.Replacement +
                  (isMappedByCudaLegacy(*Name)
                       ? ", or pass --cuda-legacy to map it (cuda-opt's "
                         "output then carries the mapping)"
                       : ""))
              .str();
  if (std::optional<StringRef> Field = quotedAfter(Message, "no member named ");
      Field && Message.contains("cudaDeviceProp"))
    for (const Removed &R : RemovedDeviceProps)
      if (*Field == R.Name)
        return (Twine("cudaDeviceProp::") + *Field +
                " was removed in CUDA 13 (nvcc 13 rejects it too); use " +
                R.Replacement)
            .str();
  return std::nullopt;
}

} // namespace cuda_opt
