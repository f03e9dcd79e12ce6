//===- NvccCompat.h - What nvcc accepts and clang's CUDA mode does not -*- C++ -*-===//
//
// Part of cuda-opt. nvcc makes CUDA's min/max overloads (crt/math_functions.hpp)
// callable from host code; clang's CUDA headers declare them for the device
// only, so host code that nvcc compiles, such as `max(x, 1.0f)` in main(),
// does not parse. Every parse force-includes a small virtual header that adds
// the host overloads nvcc has. With --cuda-legacy a second one maps the
// runtime calls CUDA 13 removed whose successors do the same; what cuda-opt
// writes or compiles then carries it inline (standaloneText).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_FRONTEND_NVCCCOMPAT_H
#define CUDA_OPT_FRONTEND_NVCCCOMPAT_H

#include "cuda-opt/Frontend/CudaToolchain.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <utility>
#include <vector>

namespace cuda_opt {

/// The path the parse arguments `-include` (no such file exists on disk:
/// each parse maps it to nvccCompatHeaderText()).
llvm::StringRef nvccCompatHeaderPath();

/// The header's text.
llvm::StringRef nvccCompatHeaderText();

/// The path of the header --cuda-legacy force-includes (virtual too) and its
/// text: cudaThreadSynchronize, cudaThreadExit, cudaThreadSet/GetLimit and
/// cudaThreadSet/GetCacheConfig as calls of their cudaDevice* successors.
llvm::StringRef cudaLegacyHeaderPath();
llvm::StringRef cudaLegacyHeaderText();

/// The virtual directory searched last (-idirafter) when clang's resource
/// directory has no <omp.h>: it holds only an omp.h that includes the host
/// compiler's (Toolchain::HostOmpHeader). nvcc compiles host code with gcc,
/// whose own include directory has omp.h, so `#include <omp.h>` works there
/// without any flag; clang ships omp.h only with libomp.
llvm::StringRef hostCompilerHeaderDir();

/// Every virtual file the parses of \p TC map: path and text.
std::vector<std::pair<std::string, std::string>>
virtualHeaders(const Toolchain &TC);

/// Whether the --cuda-legacy header maps \p Name.
bool isMappedByCudaLegacy(llvm::StringRef Name);

/// \p Text as cuda-opt writes it or hands it to nvcc and NVRTC: under
/// --cuda-legacy (\p TC .CudaLegacy) the legacy header is inlined at the top
/// behind a comment, once, so that nvcc 13 builds the file without cuda-opt;
/// otherwise \p Text itself. With \p KeepLines (a text for a compiler, not a
/// file for the user) a #line directive after the header keeps the line
/// numbers of \p Text in the compiler's messages.
std::string standaloneText(const Toolchain &TC, llvm::StringRef Text,
                           bool KeepLines = false);

/// \p Text with every kernel launch written with spaced chevrons
/// (`k << < grid, block >> > (args)`, which nvcc accepts and clang does not)
/// turned into `k<<<` ... `>>>` followed by the same whitespace, so every
/// offset, line and column after each chevron stays where it was. Only the
/// parses see this text; rewrites apply to the user's own, so untouched
/// launches keep their spelling. Returns \p Text unchanged when it has none.
std::string normalizeSpacedLaunches(llvm::StringRef Text);

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_NVCCCOMPAT_H
