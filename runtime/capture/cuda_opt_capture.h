//===- cuda_opt_capture.h - Record a kernel launch for replay ---*- CUDA -*-===//
//
// Part of cuda-opt's runtime: program-mode capture. `cuda-opt tune` builds an
// instrumented copy of the user's program in which every launch of the
// kernel being tuned,
//
//   kernel<<<Grid, Block, Shmem, Stream>>>(Args...);
//
// reads
//
//   ::cuda_opt_capture::launch(SITE, kernel, Grid, Block, Shmem, Stream, Args...);
//
// launch() runs the kernel exactly as before. For the launch chosen by the
// environment it also writes, to $CUDA_OPT_CAPTURE_DIR:
//   capture.json         grid, block, shared memory, stream, and per
//                        parameter: the bytes of a by-value argument, or the
//                        allocation a pointer points into and its offset;
//   allocN.before.bin    every such allocation before the launch;
//   allocN.after.bin     after it, for the allocations the launch changed
//                        (the reference outputs).
// The device is synchronised (not only the launch's stream) before each
// snapshot, so work the program left on other streams is included. Once the
// launch is recorded the program exits with status 0: the rest of its run
// (often a slow CPU check) is not needed.
//
// Environment:
//   CUDA_OPT_CAPTURE_DIR     where to write; unset: launch() only launches.
//   CUDA_OPT_CAPTURE_LAUNCH  which launch of the instrumented sites to
//                            record, counting from 0 (default 0).
//   CUDA_OPT_CAPTURE_MODE    "full" (default) or "config": record only the
//                            launch configuration and exit(0) without running
//                            the rest of the program (used to learn the
//                            launch of a variant whose host code changed).
//
// Header-only, CUDA runtime API; the one driver call (cuMemGetAddressRange)
// is found through cudaGetDriverEntryPointByVersion, so the program needs no
// extra link flags.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_CAPTURE_H
#define CUDA_OPT_CAPTURE_H

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuda_opt_capture {

namespace detail {

struct Param {
  enum Kind { Value, Pointer, Null } K = Value;
  std::vector<unsigned char> Bytes; // Value.
  int Alloc = -1;                   // Pointer: index into Allocs.
  size_t Offset = 0;
  std::string Where; // Pointer: "device", "managed", "host" or "unknown".
};

/// A variant's launch configuration evaluated at a site (launch probe).
struct Probe {
  int Variant;
  dim3 G, B;
  size_t Shmem;
};

/// Probes evaluated since the last launch (they precede their launch in
/// one expression, so these belong to the next launch() call).
inline std::vector<Probe> &pendingProbes() {
  static std::vector<Probe> P;
  return P;
}

struct Alloc {
  CUdeviceptr Base = 0;
  size_t Size = 0;
  std::vector<unsigned char> Before; // Contents before the launch.
  bool Changed = false;              // The launch changed them.
};

[[noreturn]] inline void fail(const char *What, const char *Detail) {
  std::fprintf(stderr, "cuda-opt capture: %s: %s\n", What, Detail);
  std::exit(86);
}

inline void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    fail(What, cudaGetErrorString(E));
}

inline std::string path(const char *Dir, const std::string &Name) {
  return std::string(Dir) + "/" + Name;
}

inline void writeFile(const std::string &Path, const void *Data, size_t Size) {
  FILE *F = std::fopen(Path.c_str(), "wb");
  if (!F || std::fwrite(Data, 1, Size, F) != Size || std::fclose(F) != 0)
    fail("cannot write", Path.c_str());
}

/// Copy every allocation to $DIR/allocN.SUFFIX.bin. The "before" contents
/// stay in memory so the "after" snapshot can say what the launch changed.
inline void snapshot(const char *Dir, std::vector<Alloc> &Allocs,
                     bool AfterLaunch) {
  check(cudaDeviceSynchronize(), "synchronising before a snapshot");
  for (size_t I = 0; I < Allocs.size(); ++I) {
    Alloc &A = Allocs[I];
    std::vector<unsigned char> Host(A.Size);
    check(cudaMemcpy(Host.data(), reinterpret_cast<void *>(A.Base), A.Size,
                     cudaMemcpyDefault),
          "reading an allocation");
    if (AfterLaunch) {
      A.Changed = Host != A.Before;
      A.Before = {};
      if (!A.Changed)
        continue; // Its contents are the "before" file's.
    }
    writeFile(path(Dir, "alloc" + std::to_string(I) +
                            (AfterLaunch ? ".after.bin" : ".before.bin")),
              Host.data(), Host.size());
    if (!AfterLaunch)
      A.Before = std::move(Host);
  }
}

using AddressRangeFn = CUresult (*)(CUdeviceptr *, size_t *, CUdeviceptr);

inline AddressRangeFn addressRange() {
  static AddressRangeFn Fn = [] {
    void *P = nullptr;
    cudaDriverEntryPointQueryResult Q;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &P, 12000,
                                         cudaEnableDefault, &Q) !=
            cudaSuccess ||
        Q != cudaDriverEntryPointSuccess)
      fail("driver", "cuMemGetAddressRange is not available");
    return reinterpret_cast<AddressRangeFn>(P);
  }();
  return Fn;
}

/// Describe a pointer argument: which allocation it points into (appending
/// a new one to \p Allocs) and where that memory lives.
inline Param pointerParam(const void *Ptr, std::vector<Alloc> &Allocs) {
  Param P;
  if (!Ptr) {
    P.K = Param::Null;
    return P;
  }
  P.K = Param::Pointer;
  cudaPointerAttributes Attr;
  if (cudaPointerGetAttributes(&Attr, Ptr) != cudaSuccess) {
    cudaGetLastError();
    P.Where = "unknown";
    return P;
  }
  switch (Attr.type) {
  case cudaMemoryTypeDevice:
    P.Where = "device";
    break;
  case cudaMemoryTypeManaged:
    P.Where = "managed";
    break;
  case cudaMemoryTypeHost:
    P.Where = "host";
    return P;
  default:
    P.Where = "unknown";
    return P;
  }
  CUdeviceptr Base = 0;
  size_t Size = 0;
  if (addressRange()(&Base, &Size, reinterpret_cast<CUdeviceptr>(Ptr)) !=
      CUDA_SUCCESS) {
    P.Where = "unknown";
    return P;
  }
  P.Offset = reinterpret_cast<CUdeviceptr>(Ptr) - Base;
  for (size_t I = 0; I < Allocs.size(); ++I)
    if (Allocs[I].Base == Base) {
      P.Alloc = static_cast<int>(I);
      return P;
    }
  Allocs.push_back({Base, Size, {}, false});
  P.Alloc = static_cast<int>(Allocs.size() - 1);
  return P;
}

template <typename T>
void describe(const T &Value, std::vector<Param> &Params,
              std::vector<Alloc> &Allocs) {
  if constexpr (std::is_pointer<T>::value) {
    Params.push_back(pointerParam(
        reinterpret_cast<const void *>(const_cast<
            typename std::remove_cv<typename std::remove_pointer<T>::type>::type
                *>(Value)),
        Allocs));
  } else {
    Param P;
    P.Bytes.resize(sizeof(T));
    std::memcpy(P.Bytes.data(), &Value, sizeof(T));
    Params.push_back(std::move(P));
  }
}

inline std::string hex(const std::vector<unsigned char> &Bytes) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  for (unsigned char C : Bytes) {
    S += Digits[C >> 4];
    S += Digits[C & 15];
  }
  return S;
}

inline void writeManifest(const char *Dir, int Site, long Index,
                          const char *Kernel, dim3 G, dim3 B, size_t Shmem,
                          bool DefaultStream, const std::vector<Param> &Params,
                          const std::vector<Alloc> &Allocs, bool Full,
                          const std::vector<Probe> &Probes = {}) {
  std::string J = "{\n";
  J += "  \"kernel\": \"" + std::string(Kernel) + "\",\n";
  J += "  \"site\": " + std::to_string(Site) + ",\n";
  J += "  \"launch\": " + std::to_string(Index) + ",\n";
  J += "  \"mode\": \"" + std::string(Full ? "full" : "config") + "\",\n";
  J += "  \"grid\": [" + std::to_string(G.x) + ", " + std::to_string(G.y) +
       ", " + std::to_string(G.z) + "],\n";
  J += "  \"block\": [" + std::to_string(B.x) + ", " + std::to_string(B.y) +
       ", " + std::to_string(B.z) + "],\n";
  J += "  \"shmem\": " + std::to_string(Shmem) + ",\n";
  J += "  \"default_stream\": " + std::string(DefaultStream ? "true" : "false") +
       ",\n";
  J += "  \"params\": [";
  for (size_t I = 0; I < Params.size(); ++I) {
    const Param &P = Params[I];
    J += I ? ",\n    " : "\n    ";
    if (P.K == Param::Value)
      J += "{\"kind\": \"value\", \"bytes\": \"" + hex(P.Bytes) + "\"}";
    else if (P.K == Param::Null)
      J += "{\"kind\": \"null\"}";
    else
      J += "{\"kind\": \"pointer\", \"memory\": \"" + P.Where +
           "\", \"alloc\": " + std::to_string(P.Alloc) +
           ", \"offset\": " + std::to_string(P.Offset) + "}";
  }
  J += "\n  ],\n  \"allocs\": [";
  for (size_t I = 0; I < Allocs.size(); ++I) {
    std::string N = "alloc" + std::to_string(I);
    J += I ? ",\n    " : "\n    ";
    J += "{\"size\": " + std::to_string(Allocs[I].Size);
    if (Full)
      J += ", \"before\": \"" + N + ".before.bin\", \"after\": \"" + N +
           (Allocs[I].Changed ? ".after" : ".before") +
           ".bin\", \"changed\": " + (Allocs[I].Changed ? "true" : "false");
    J += "}";
  }
  J += "\n  ],\n  \"probes\": [";
  for (size_t I = 0; I < Probes.size(); ++I) {
    const Probe &P = Probes[I];
    J += I ? ",\n    " : "\n    ";
    J += "{\"variant\": " + std::to_string(P.Variant) + ", \"grid\": [" +
         std::to_string(P.G.x) + ", " + std::to_string(P.G.y) + ", " +
         std::to_string(P.G.z) + "], \"block\": [" + std::to_string(P.B.x) +
         ", " + std::to_string(P.B.y) + ", " + std::to_string(P.B.z) +
         "], \"shmem\": " + std::to_string(P.Shmem) + "}";
  }
  J += "\n  ]\n}\n";
  writeFile(path(Dir, "capture.json"), J.data(), J.size());
}

inline long &launchCounter() {
  static long Count = 0;
  return Count;
}

} // namespace detail

/// Record variant \p Variant's launch configuration for the next launch at
/// \p Site (cuda-opt's launch probe evaluates each variant's <<<...>>>
/// expressions in the original program, in the launch's own scope). Returns
/// 0 so it can stand in a comma expression before the launch.
inline int probe(int Site, int Variant, dim3 G, dim3 B, size_t Shmem) {
  (void)Site;
  detail::pendingProbes().push_back({Variant, G, B, Shmem});
  return 0;
}

/// Launch \p Kernel as `Kernel<<<G, B, Shmem, Stream>>>(Args...)` would, and
/// record it if it is the launch the environment asks for.
template <typename... Params, typename... Args>
void launch(int Site, const char *Name, void (*Kernel)(Params...), dim3 G,
            dim3 B, size_t Shmem, cudaStream_t Stream, Args &&...A) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "cuda-opt capture: argument count differs from the kernel's");
  const char *Dir = std::getenv("CUDA_OPT_CAPTURE_DIR");
  long Wanted = 0;
  if (const char *L = std::getenv("CUDA_OPT_CAPTURE_LAUNCH"))
    Wanted = std::atol(L);
  long Index = detail::launchCounter()++;
  std::vector<detail::Probe> Probes;
  Probes.swap(detail::pendingProbes());
  // Convert as the call would, so by-value bytes are the parameter's.
  std::tuple<Params...> Converted(std::forward<Args>(A)...);
  if (!Dir || Index != Wanted) {
    std::apply([&](auto &...P) { Kernel<<<G, B, Shmem, Stream>>>(P...); },
               Converted);
    return;
  }
  const char *Mode = std::getenv("CUDA_OPT_CAPTURE_MODE");
  bool Full = !Mode || std::strcmp(Mode, "config") != 0;
  std::vector<detail::Param> Described;
  std::vector<detail::Alloc> Allocs;
  std::apply([&](auto &...P) { (detail::describe(P, Described, Allocs), ...); },
             Converted);
  bool DefaultStream = Stream == nullptr || Stream == cudaStreamLegacy ||
                       Stream == cudaStreamPerThread;
  if (!Full) {
    detail::writeManifest(Dir, Site, Index, Name, G, B, Shmem, DefaultStream,
                          Described, Allocs, false, Probes);
    std::fflush(nullptr);
    std::_Exit(0);
  }
  detail::snapshot(Dir, Allocs, /*AfterLaunch=*/false);
  std::apply([&](auto &...P) { Kernel<<<G, B, Shmem, Stream>>>(P...); },
             Converted);
  detail::check(cudaGetLastError(), "launching the captured kernel");
  detail::snapshot(Dir, Allocs, /*AfterLaunch=*/true);
  detail::writeManifest(Dir, Site, Index, Name, G, B, Shmem, DefaultStream,
                        Described, Allocs, true);
  std::fflush(nullptr);
  std::_Exit(0);
}

/// Call the host function \p Fn (a host region cuda-opt outlined, whose
/// parameters are references to the region's variables) as `Fn(Args...)`
/// would, and record the call like a launch if it is the one the
/// environment asks for: by-value bytes of each variable, the allocation
/// each pointer points into, and snapshots of those allocations before and
/// after the whole region (grid and block are recorded as 1). The region
/// returns what its host function returns (a check macro's `return 1;`);
/// the value is not used.
template <typename Ret, typename... Params, typename... Args>
void call(int Site, const char *Name, Ret (*Fn)(Params...), Args &&...A) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "cuda-opt capture: argument count differs from the region's");
  const char *Dir = std::getenv("CUDA_OPT_CAPTURE_DIR");
  long Wanted = 0;
  if (const char *L = std::getenv("CUDA_OPT_CAPTURE_LAUNCH"))
    Wanted = std::atol(L);
  long Index = detail::launchCounter()++;
  if (!Dir || Index != Wanted) {
    (void)Fn(std::forward<Args>(A)...);
    return;
  }
  std::tuple<Params...> Bound(std::forward<Args>(A)...);
  std::vector<detail::Param> Described;
  std::vector<detail::Alloc> Allocs;
  std::apply([&](auto &...P) { (detail::describe(P, Described, Allocs), ...); },
             Bound);
  dim3 One(1, 1, 1);
  const char *Mode = std::getenv("CUDA_OPT_CAPTURE_MODE");
  if (Mode && std::strcmp(Mode, "config") == 0) {
    detail::writeManifest(Dir, Site, Index, Name, One, One, 0, true,
                          Described, Allocs, false);
    std::fflush(nullptr);
    std::_Exit(0);
  }
  detail::snapshot(Dir, Allocs, /*AfterLaunch=*/false);
  std::apply([&](auto &...P) { (void)Fn(P...); }, Bound);
  detail::check(cudaGetLastError(), "running the captured region");
  detail::snapshot(Dir, Allocs, /*AfterLaunch=*/true);
  detail::writeManifest(Dir, Site, Index, Name, One, One, 0, true, Described,
                        Allocs, true);
  std::fflush(nullptr);
  std::_Exit(0);
}

} // namespace cuda_opt_capture

#endif // CUDA_OPT_CAPTURE_H
