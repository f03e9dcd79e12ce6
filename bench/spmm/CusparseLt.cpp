//===- CusparseLt.cpp - cuSPARSELt 2:4 baseline through dlopen ------------===//

#include "CusparseLt.h"

#include <dlfcn.h>
#include <library_types.h>

#include <cstdint>
#include <cstring>

namespace spmmbench {

namespace {

// Opaque objects: generously sized, 16-byte aligned.
struct alignas(16) Opaque {
  uint8_t Data[1024];
};
using Status = int;
enum { OpNonTranspose = 0, OpTranspose = 1 };
enum { OrderCol = 1, OrderRow = 2 };
enum { Sparsity50 = 0 };
enum { Compute32F = 2 };  // cuSPARSELt >= 0.6: 32I, 16F, 32F
enum { AlgDefault = 0 };
enum { PruneStrip = 1 };

struct Api {
  Status (*Init)(Opaque *);
  Status (*Destroy)(const Opaque *);
  Status (*GetVersion)(const Opaque *, int *);
  Status (*DenseInit)(const Opaque *, Opaque *, int64_t, int64_t, int64_t,
                      uint32_t, cudaDataType, int);
  Status (*StructuredInit)(const Opaque *, Opaque *, int64_t, int64_t, int64_t,
                           uint32_t, cudaDataType, int, int);
  Status (*MatDestroy)(const Opaque *);
  Status (*MatmulInit)(const Opaque *, Opaque *, int, int, const Opaque *,
                       const Opaque *, const Opaque *, const Opaque *, int);
  Status (*AlgInit)(const Opaque *, Opaque *, const Opaque *, int);
  Status (*AlgDestroy)(const Opaque *);
  Status (*PlanInit)(const Opaque *, Opaque *, const Opaque *, const Opaque *);
  Status (*PlanDestroy)(const Opaque *);
  Status (*GetWorkspace)(const Opaque *, const Opaque *, size_t *);
  Status (*Prune)(const Opaque *, const Opaque *, const void *, void *, int,
                  cudaStream_t);
  Status (*CompressedSize)(const Opaque *, const Opaque *, size_t *, size_t *);
  Status (*Compress)(const Opaque *, const Opaque *, const void *, void *,
                     void *, cudaStream_t);
  Status (*Matmul)(const Opaque *, const Opaque *, const void *, const void *,
                   const void *, const void *, const void *, void *, void *,
                   cudaStream_t *, int32_t);
};

Api TheApi;
bool Loaded = false;
Opaque Handle;
int Version = 0;

template <typename F> bool sym(void *Lib, const char *Name, F &Out) {
  Out = reinterpret_cast<F>(dlsym(Lib, Name));
  return Out != nullptr;
}

} // namespace

struct CusparseLtGemm::State {
  Opaque A, B, C, Matmul, Alg, Plan;
  bool HaveA = false, HaveB = false, HaveC = false, HaveAlg = false,
       HavePlan = false;
  void *Compressed = nullptr, *CompressBuffer = nullptr, *Workspace = nullptr;
};

bool CusparseLtGemm::load(const std::string &Path, std::string &Error) {
  if (Loaded)
    return true;
  void *Lib = dlopen(Path.empty() ? "libcusparseLt.so.0" : Path.c_str(),
                     RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    Error = std::string("dlopen failed: ") + dlerror();
    return false;
  }
  Api &A = TheApi;
  bool Ok = sym(Lib, "cusparseLtInit", A.Init) &&
            sym(Lib, "cusparseLtDestroy", A.Destroy) &&
            sym(Lib, "cusparseLtGetVersion", A.GetVersion) &&
            sym(Lib, "cusparseLtDenseDescriptorInit", A.DenseInit) &&
            sym(Lib, "cusparseLtStructuredDescriptorInit", A.StructuredInit) &&
            sym(Lib, "cusparseLtMatDescriptorDestroy", A.MatDestroy) &&
            sym(Lib, "cusparseLtMatmulDescriptorInit", A.MatmulInit) &&
            sym(Lib, "cusparseLtMatmulAlgSelectionInit", A.AlgInit) &&
            sym(Lib, "cusparseLtMatmulAlgSelectionDestroy", A.AlgDestroy) &&
            sym(Lib, "cusparseLtMatmulPlanInit", A.PlanInit) &&
            sym(Lib, "cusparseLtMatmulPlanDestroy", A.PlanDestroy) &&
            sym(Lib, "cusparseLtMatmulGetWorkspace", A.GetWorkspace) &&
            sym(Lib, "cusparseLtSpMMAPrune", A.Prune) &&
            sym(Lib, "cusparseLtSpMMACompressedSize", A.CompressedSize) &&
            sym(Lib, "cusparseLtSpMMACompress", A.Compress) &&
            sym(Lib, "cusparseLtMatmul", A.Matmul);
  if (!Ok) {
    Error = "libcusparseLt lacks an expected entry point";
    return false;
  }
  if (Status St = A.Init(&Handle)) {
    Error = "cusparseLtInit failed with status " + std::to_string(St);
    return false;
  }
  A.GetVersion(&Handle, &Version);
  Loaded = true;
  return true;
}

bool CusparseLtGemm::loaded() { return Loaded; }
int CusparseLtGemm::version() { return Version; }

CusparseLtGemm::~CusparseLtGemm() {
  if (!S)
    return;
  if (S->HavePlan)
    TheApi.PlanDestroy(&S->Plan);
  if (S->HaveAlg)
    TheApi.AlgDestroy(&S->Alg);
  if (S->HaveA)
    TheApi.MatDestroy(&S->A);
  if (S->HaveB)
    TheApi.MatDestroy(&S->B);
  if (S->HaveC)
    TheApi.MatDestroy(&S->C);
  cudaFree(S->Compressed);
  cudaFree(S->CompressBuffer);
  cudaFree(S->Workspace);
  delete S;
}

bool CusparseLtGemm::init(const __half *W, __half *Pruned, int M, int K, int N,
                          int Ldx, int Ldy, cudaStream_t Stream,
                          std::string &Error) {
  if (!Loaded) {
    Error = "cuSPARSELt is not loaded";
    return false;
  }
  S = new State();
  Api &A = TheApi;
  auto Check = [&](Status St, const char *What) {
    if (St)
      Error = std::string(What) + " failed with status " + std::to_string(St);
    return St == 0;
  };
  // Column-major view: W (M x K row-major) is a K x M column-major matrix
  // used transposed; X is K x N and Y is M x N, both column-major.
  if (!Check(A.StructuredInit(&Handle, &S->A, K, M, K, 16, CUDA_R_16F,
                              OrderCol, Sparsity50),
             "structured descriptor"))
    return false;
  S->HaveA = true;
  if (!Check(A.DenseInit(&Handle, &S->B, K, N, Ldx, 16, CUDA_R_16F, OrderCol),
             "dense descriptor B"))
    return false;
  S->HaveB = true;
  if (!Check(A.DenseInit(&Handle, &S->C, M, N, Ldy, 16, CUDA_R_16F, OrderCol),
             "dense descriptor C"))
    return false;
  S->HaveC = true;
  if (!Check(A.MatmulInit(&Handle, &S->Matmul, OpTranspose, OpNonTranspose,
                          &S->A, &S->B, &S->C, &S->C, Compute32F),
             "matmul descriptor"))
    return false;
  if (!Check(A.AlgInit(&Handle, &S->Alg, &S->Matmul, AlgDefault),
             "algorithm selection"))
    return false;
  S->HaveAlg = true;
  if (!Check(A.PlanInit(&Handle, &S->Plan, &S->Matmul, &S->Alg), "plan"))
    return false;
  S->HavePlan = true;
  if (!Check(A.Prune(&Handle, &S->Matmul, W, Pruned, PruneStrip, Stream),
             "prune"))
    return false;
  size_t Size = 0, BufSize = 0, WsSize = 0;
  if (!Check(A.CompressedSize(&Handle, &S->Plan, &Size, &BufSize),
             "compressed size") ||
      !Check(A.GetWorkspace(&Handle, &S->Plan, &WsSize), "workspace size"))
    return false;
  if (cudaMalloc(&S->Compressed, Size) != cudaSuccess ||
      cudaMalloc(&S->CompressBuffer, BufSize ? BufSize : 16) != cudaSuccess ||
      cudaMalloc(&S->Workspace, WsSize ? WsSize : 16) != cudaSuccess) {
    Error = "out of device memory";
    return false;
  }
  return Check(A.Compress(&Handle, &S->Plan, Pruned, S->Compressed,
                          S->CompressBuffer, Stream),
               "compress");
}

bool CusparseLtGemm::run(const __half *X, __half *Y, cudaStream_t Stream,
                         std::string &Error) {
  float Alpha = 1.f, Beta = 0.f;
  Status St = TheApi.Matmul(&Handle, &S->Plan, &Alpha, S->Compressed, X, &Beta,
                            Y, Y, S->Workspace, &Stream, 1);
  if (St)
    Error = "cusparseLtMatmul failed with status " + std::to_string(St);
  return St == 0;
}

} // namespace spmmbench
