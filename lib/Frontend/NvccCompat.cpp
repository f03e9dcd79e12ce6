//===- NvccCompat.cpp - What nvcc accepts and clang does not --------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Frontend/NvccCompat.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace cuda_opt {

llvm::StringRef nvccCompatHeaderPath() {
  return "/cuda-opt-builtin/nvcc_host_compat.h";
}

// The overload set of CUDA 13's crt/math_functions.hpp (min/max for the
// integer types and their signed/unsigned mixes, float, double and their
// mixes), host-only: clang's headers already give the device the same set.
// Only parsed, never compiled: cuda-opt's variants are built by nvcc/NVRTC.
// Also the C headers that nvcc makes visible to host code without an
// include: crt/common_functions.h includes <string.h> and <time.h> (time()
// without <ctime> is found in Rodinia), crt/math_functions.h <stdlib.h>.
// Not the <stdio.h>, <stdlib.h>, <assert.h> and <new> that common_functions.h
// includes only when __CUDA_ARCH__ is defined: nvcc's host pass does not see
// them, so printf, assert and placement new without an include are errors
// under nvcc 13, in host and device code alike, and stay errors here.
llvm::StringRef nvccCompatHeaderText() {
  return R"(#ifndef CUDA_OPT_NVCC_HOST_COMPAT_H
#define CUDA_OPT_NVCC_HOST_COMPAT_H
#if defined(__cplusplus) && defined(__CUDA__)
#include <string.h>
#include <time.h>
#include <stdlib.h>
#define CUDA_OPT_MINMAX(R, A, B)                                              \
  static inline __attribute__((host)) R min(const A a, const B b) {          \
    return (R)a < (R)b ? (R)a : (R)b;                                        \
  }                                                                          \
  static inline __attribute__((host)) R max(const A a, const B b) {          \
    return (R)a > (R)b ? (R)a : (R)b;                                        \
  }
CUDA_OPT_MINMAX(int, int, int)
CUDA_OPT_MINMAX(unsigned int, unsigned int, unsigned int)
CUDA_OPT_MINMAX(unsigned int, int, unsigned int)
CUDA_OPT_MINMAX(unsigned int, unsigned int, int)
CUDA_OPT_MINMAX(long int, long int, long int)
CUDA_OPT_MINMAX(unsigned long int, unsigned long int, unsigned long int)
CUDA_OPT_MINMAX(unsigned long int, long int, unsigned long int)
CUDA_OPT_MINMAX(unsigned long int, unsigned long int, long int)
CUDA_OPT_MINMAX(long long int, long long int, long long int)
CUDA_OPT_MINMAX(unsigned long long int, unsigned long long int,
                unsigned long long int)
CUDA_OPT_MINMAX(unsigned long long int, long long int, unsigned long long int)
CUDA_OPT_MINMAX(unsigned long long int, unsigned long long int, long long int)
CUDA_OPT_MINMAX(float, float, float)
CUDA_OPT_MINMAX(double, double, double)
CUDA_OPT_MINMAX(double, float, double)
CUDA_OPT_MINMAX(double, double, float)
#undef CUDA_OPT_MINMAX
#endif
#endif
)";
}

llvm::StringRef cudaLegacyHeaderPath() {
  return "/cuda-opt-builtin/cuda_legacy.h";
}

// The runtime calls CUDA 13 removed whose cudaDevice* successors do the
// same thing (CUDA 12's documentation says each is "identical" to it), with
// CUDA 12's signatures. Not texture references or the removed cudaDeviceProp
// fields: their replacements work differently, and RemovedCudaApis.cpp says
// how. Host-only and not for NVRTC, which has no runtime API.
static constexpr llvm::StringLiteral LegacyApis[] = {
    "cudaThreadSynchronize",    "cudaThreadExit",
    "cudaThreadSetLimit",       "cudaThreadGetLimit",
    "cudaThreadSetCacheConfig", "cudaThreadGetCacheConfig"};

llvm::StringRef cudaLegacyHeaderText() {
  return R"(#ifndef CUDA_OPT_CUDA_LEGACY_H
#define CUDA_OPT_CUDA_LEGACY_H
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
static inline __host__ cudaError_t cudaThreadSynchronize(void) {
  return cudaDeviceSynchronize();
}
static inline __host__ cudaError_t cudaThreadExit(void) {
  return cudaDeviceReset();
}
static inline __host__ cudaError_t cudaThreadSetLimit(enum cudaLimit limit,
                                                      size_t value) {
  return cudaDeviceSetLimit(limit, value);
}
static inline __host__ cudaError_t cudaThreadGetLimit(size_t *pValue,
                                                      enum cudaLimit limit) {
  return cudaDeviceGetLimit(pValue, limit);
}
static inline __host__ cudaError_t
cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig) {
  return cudaDeviceSetCacheConfig(cacheConfig);
}
static inline __host__ cudaError_t
cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
  return cudaDeviceGetCacheConfig(pCacheConfig);
}
#endif
#endif
)";
}

llvm::StringRef hostCompilerHeaderDir() {
  return "/cuda-opt-builtin/host-compiler";
}

std::vector<std::pair<std::string, std::string>>
virtualHeaders(const Toolchain &TC) {
  std::vector<std::pair<std::string, std::string>> Files = {
      {nvccCompatHeaderPath().str(), nvccCompatHeaderText().str()},
      {cudaLegacyHeaderPath().str(), cudaLegacyHeaderText().str()}};
  if (!TC.HostOmpHeader.empty())
    Files.push_back({(hostCompilerHeaderDir() + "/omp.h").str(),
                     "#include \"" + TC.HostOmpHeader + "\"\n"});
  return Files;
}

bool isMappedByCudaLegacy(llvm::StringRef Name) {
  return llvm::is_contained(LegacyApis, Name);
}

std::string standaloneText(const Toolchain &TC, llvm::StringRef Text,
                           bool KeepLines) {
  if (!TC.CudaLegacy || Text.contains(cudaLegacyHeaderText()))
    return Text.str();
  return ("// cuda-opt --cuda-legacy: CUDA 13 removed these runtime calls; "
          "each maps to the\n// cudaDevice* call that does the same. Calling "
          "those instead makes this block\n// unnecessary.\n" +
          cudaLegacyHeaderText() +
          (KeepLines ? "#line 1\n"
                     : "// End of the cuda-opt --cuda-legacy block.\n\n") +
          Text)
      .str();
}

namespace {
struct RawToken {
  clang::tok::TokenKind Kind;
  unsigned Begin, End; ///< Offsets in the text.
};
} // namespace

/// Only whitespace (no comment, no backslash-newline) between two offsets.
static bool onlySpaces(llvm::StringRef Text, unsigned From, unsigned To) {
  return From < To && Text.slice(From, To).find_first_not_of(" \t\r\n") ==
                          llvm::StringRef::npos;
}

std::string normalizeSpacedLaunches(llvm::StringRef Text) {
  // Cheap test first: almost every file has no "<<" or ">>" followed by
  // blanks.
  auto SpacedPair = [&](llvm::StringRef Pair) {
    for (size_t I = Text.find(Pair); I != llvm::StringRef::npos;
         I = Text.find(Pair, I + 2))
      if (I + 2 < Text.size() &&
          llvm::StringRef(" \t\n\r").contains(Text[I + 2]))
        return true;
    return false;
  };
  bool Candidate = SpacedPair("<<") || SpacedPair(">>");
  if (!Candidate)
    return Text.str();

  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  LO.CUDA = true;
  clang::Lexer Lex(clang::SourceLocation(), LO, Text.begin(), Text.begin(),
                   Text.end());
  llvm::SmallVector<RawToken, 0> Toks;
  clang::Token T;
  while (true) {
    Lex.LexFromRawLexer(T);
    if (T.is(clang::tok::eof))
      break;
    unsigned End = Lex.getBufferLocation() - Text.begin();
    Toks.push_back({T.getKind(), End - T.getLength(), End});
  }

  std::string Out = Text.str();
  // `<<<`, or `<<` blank `<` unless it follows `operator` (explicit template
  // arguments of operator<<), opens a launch; it closes at the first `>>>`
  // or `>>` blank `>` outside parentheses, brackets and braces, before the
  // statement's `;`.
  for (size_t I = 0; I + 1 < Toks.size(); ++I) {
    bool SpacedOpen =
        Toks[I].Kind == clang::tok::lessless &&
        Toks[I + 1].Kind == clang::tok::less &&
        onlySpaces(Text, Toks[I].End, Toks[I + 1].Begin) &&
        !(I > 0 && Toks[I - 1].Kind == clang::tok::raw_identifier &&
          Text.slice(Toks[I - 1].Begin, Toks[I - 1].End) == "operator");
    if (!SpacedOpen && Toks[I].Kind != clang::tok::lesslessless)
      continue;
    size_t Close = 0;
    int Depth = 0;
    for (size_t J = I + (SpacedOpen ? 2 : 1); J < Toks.size() && !Close; ++J) {
      switch (Toks[J].Kind) {
      case clang::tok::l_paren:
      case clang::tok::l_square:
      case clang::tok::l_brace:
        ++Depth;
        break;
      case clang::tok::r_paren:
      case clang::tok::r_square:
      case clang::tok::r_brace:
        --Depth;
        break;
      case clang::tok::semi:
        J = Toks.size(); // No close before the statement ends.
        continue;
      case clang::tok::greatergreatergreater:
        if (Depth == 0)
          Close = J;
        break;
      case clang::tok::greatergreater:
        if (Depth == 0 && J + 1 < Toks.size() &&
            Toks[J + 1].Kind == clang::tok::greater &&
            onlySpaces(Text, Toks[J].End, Toks[J + 1].Begin))
          Close = J;
        break;
      default:
        break;
      }
      if (Depth < 0)
        break;
    }
    if (!Close)
      continue;
    auto Join = [&](size_t First, char C) {
      // "<<" blanks "<"  ->  "<<<" blanks: the same length.
      unsigned Begin = Toks[First].Begin, End = Toks[First + 1].End;
      std::string Blanks =
          Text.slice(Toks[First].End, Toks[First + 1].Begin).str();
      Out.replace(Begin, End - Begin, std::string(3, C) + Blanks);
    };
    if (SpacedOpen)
      Join(I, '<');
    if (Toks[Close].Kind == clang::tok::greatergreater)
      Join(Close, '>');
    I = Close;
  }
  return Out;
}

} // namespace cuda_opt
