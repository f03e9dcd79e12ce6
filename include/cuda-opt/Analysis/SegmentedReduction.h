//===- SegmentedReduction.h - One thread reduces one segment ----*- C++ -*-===//
//
// Part of cuda-opt. Recognises a one-thread-per-row kernel (RowProgram.h)
// whose row work is a sum, maximum or minimum of one segment of an input
// array stored to the row's output element:
//
//   int s = blockIdx.x * blockDim.x + threadIdx.x;
//   if (s < segments) {
//     float acc = 0.0f;                               // a constant
//     for (int j = offsets[s]; j < offsets[s + 1]; ++j)
//       acc += in[j];                                 // or fmaxf(acc, in[j])
//     out[s] = acc;
//   }
//
// The segment is `[begin[s], end[s + k])` of offset arrays (k = 0 or 1; the
// same array for CSR offsets), or a fixed-length row `in[s * len + j]` for
// `0 <= j < len`. Every launch must cover [0, segments) (launches on a
// stream are matched; cub-segmented-reduce refuses them). This is what
// cub-segmented-reduce hands to cub::DeviceSegmentedReduce: for each
// segment, the initial value combined with its elements.
//
// A sum over offsets may also add products of the element and a vector
// entry it selects, `acc += vals[j] * x[cols[j]]` (either order): a CSR
// sparse matrix-vector product, y = A x, which cusparse-spmv routes to
// cuSPARSE (Gathered and Columns set; cub-segmented-reduce refuses it).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_SEGMENTEDREDUCTION_H
#define CUDA_OPT_ANALYSIS_SEGMENTEDREDUCTION_H

#include "cuda-opt/Analysis/RowProgram.h"
#include "llvm/Support/Error.h"

namespace cuda_opt {

struct SegmentedReduction {
  ThreadMapping Mapping;
  /// Sum, Max or Min.
  RecurrenceKind Kind = RecurrenceKind::Sum;
  /// Max/Min: the function combining the accumulator with an element
  /// (fmaxf, fmax, max, fminf, fmin, min).
  std::string Combine;
  /// The element, accumulator and output type.
  clang::QualType Element;
  const clang::ParmVarDecl *In = nullptr, *Out = nullptr;
  /// The accumulator's initial value, a constant expression.
  const clang::Expr *Init = nullptr;
  /// Offset arrays: segment s is [Begin[s], End[s + EndShift]).
  const clang::ParmVarDecl *Begin = nullptr, *End = nullptr;
  int64_t EndShift = 0;
  /// Fixed-length rows (Begin null): segment s is [s * len, (s + 1) * len)
  /// with len the parameter LengthParam or the constant LengthValue.
  const clang::ParmVarDecl *LengthParam = nullptr;
  int64_t LengthValue = 0;
  /// The segment count: `s < Count` (CountParam, else the constant
  /// CountValue); `s <= Count` when Inclusive.
  const clang::ParmVarDecl *CountParam = nullptr;
  int64_t CountValue = 0;
  bool Inclusive = false;

  /// A CSR sparse matrix-vector product: the term is `In[j] *
  /// Gathered[Columns[j]]` (In the values, Gathered the vector x).
  const clang::ParmVarDecl *Gathered = nullptr, *Columns = nullptr;

  bool fixedLength() const { return Begin == nullptr; }
  bool sparseMatVec() const { return Gathered != nullptr; }
  /// Integer elements: any order gives the same bits.
  bool exact() const { return Element->isIntegerType(); }
};

/// Recognise the segmented reduction of \p K, or say why it is not one.
llvm::Expected<SegmentedReduction>
matchSegmentedReduction(clang::ASTContext &Ctx, const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_SEGMENTEDREDUCTION_H
