//===- ProblemSignature.cpp - The problem a measurement was made on -------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/ProblemSignature.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace llvm;

namespace cuda_opt {

static std::string dims(const std::array<int64_t, 3> &D) {
  return formatv("{0}x{1}x{2}", D[0], D[1], D[2]).str();
}

static void appendSorted(std::string &Out, StringRef Prefix,
                         const StringMap<int64_t> &Values) {
  std::vector<std::pair<std::string, int64_t>> Sorted;
  for (const auto &E : Values)
    Sorted.emplace_back(E.getKey().str(), E.getValue());
  llvm::sort(Sorted);
  for (const auto &[Name, Value] : Sorted)
    Out += formatv(";{0}:{1}={2}", Prefix, Name, Value).str();
}

std::string problemSignature(const std::array<int64_t, 3> &Grid,
                             const std::array<int64_t, 3> &Block, int64_t Shmem,
                             const StringMap<int64_t> &IntArgs,
                             const StringMap<int64_t> &BufferElements) {
  std::string Out = "grid=" + dims(Grid) + ";block=" + dims(Block) +
                    ";shmem=" + std::to_string(Shmem);
  appendSorted(Out, "int", IntArgs);
  appendSorted(Out, "buf", BufferElements);
  return Out;
}

/// The numbers of a signature by name ("grid.0", "int:n", ...); parts that
/// are not numbers are kept as text and compare equal or not.
static std::map<std::string, std::string> numbers(StringRef Signature) {
  std::map<std::string, std::string> Out;
  SmallVector<StringRef> Parts;
  Signature.split(Parts, ';', -1, /*KeepEmpty=*/false);
  for (StringRef Part : Parts) {
    auto [Name, Value] = Part.split('=');
    SmallVector<StringRef> Dims;
    Value.split(Dims, 'x');
    if (Dims.size() == 3) {
      for (unsigned I = 0; I < 3; ++I)
        Out[(Name + "." + Twine(I)).str()] = Dims[I].str();
      continue;
    }
    Out[Name.str()] = Value.str();
  }
  return Out;
}

double signatureDistance(StringRef A, StringRef B) {
  if (A == B)
    return 0;
  std::map<std::string, std::string> NA = numbers(A), NB = numbers(B);
  double D = 0;
  for (const auto &[Name, VA] : NA) {
    auto It = NB.find(Name);
    if (It == NB.end()) {
      D += 64;
      continue;
    }
    int64_t X, Y;
    if (StringRef(VA).getAsInteger(10, X) ||
        StringRef(It->second).getAsInteger(10, Y)) {
      D += VA == It->second ? 0 : 64;
      continue;
    }
    D += std::fabs(std::log2((std::fabs(static_cast<double>(X)) + 1) /
                             (std::fabs(static_cast<double>(Y)) + 1)));
  }
  for (const auto &E : NB)
    if (!NA.count(E.first))
      D += 64;
  return D;
}

} // namespace cuda_opt
