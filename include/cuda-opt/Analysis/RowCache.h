//===- RowCache.h - Row data worth holding between passes -------*- C++ -*-===//
//
// Part of cuda-opt. A row program (RowProgram.h) often reads the same row
// several times: softmax reads `in[r * cols + j]` for the maximum, again for
// the sum of exponentials and again to write. When the row is shared by a
// group of threads, each thread can load its columns once into registers and
// serve the later passes from there. This analysis finds such streams and
// the facts that make it legal:
//
//  - the loops that read the stream run over the same columns
//    [a_i, C) with the same bound C (a value fixed for the kernel: literals
//    and parameters it never writes) and constant starts a_i >= a0;
//  - one of them starts at a0 and reads `p[base + j]` unconditionally, so
//    loading the columns [a0, C) reads nothing the original does not;
//  - nothing writes the stream's array while it is held: no loop writes it,
//    the loops in between write only arrays that provably do not overlap it,
//    and no per-row store or early exit lies between the load and the loop
//    that proves it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ROWCACHE_H
#define CUDA_OPT_ANALYSIS_ROWCACHE_H

#include "cuda-opt/Analysis/RowProgram.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// One array read by several loops at `p[base + j]`.
struct RowCacheStream {
  const clang::VarDecl *Root = nullptr;
  /// The unconditional read in a loop starting at FirstColumn: the load of
  /// the cache is this access with the loop variable replaced.
  const RowAccess *Fill = nullptr;
  /// The loop (index into RowProgram::Loops) that holds Fill.
  unsigned FillLoop = 0;
  /// The first loop that reads the stream: the registers are loaded just
  /// before it.
  unsigned FirstLoop = 0;
  /// The element type (unqualified), for the register array.
  clang::QualType Element;
  /// Every read served from the registers.
  std::vector<const RowAccess *> Uses;
  /// The expression each use's register replaces (parallel to Uses): the
  /// access, or the conversion around it when Convert is set.
  std::vector<const clang::Expr *> Sites;
  /// When every use converts the element to float the same way
  /// (`__half2float(in[...])`), the registers hold the converted values:
  /// the conversion, done once when they are loaded.
  const clang::FunctionDecl *Convert = nullptr;
  /// The registers' type: Element, or the conversion's result.
  clang::QualType Held;
};

/// A value that a later cached loop computes exactly as an earlier one did
/// (softmax's `expf(in[r * cols + j] - m)`, needed for the sum and again for
/// the output): the earlier loop keeps it in a register per slot and the
/// later loops read the register instead of computing it again. Legal when
/// the expression is pure (arithmetic, casts, math functions, held streams,
/// the column and scalars), the scalars it reads are not written from the
/// producing loop to the last reading loop, the producer evaluates it in
/// every iteration, and the producer's loop starts no later than the readers'.
struct RowCacheValue {
  /// The loop (index into RowProgram::Loops) that computes and keeps it.
  unsigned ProducerLoop = 0;
  const clang::Expr *Producer = nullptr;
  /// (loop, expression) for every later occurrence read from the register.
  std::vector<std::pair<unsigned, const clang::Expr *>> Readers;
  clang::QualType Type;
  /// The stream (index into RowCache::Streams) whose registers hold the
  /// value in place, when nothing reads the stream's columns after the
  /// value replaces them; -1 when the value has registers of its own.
  int InStream = -1;
};

struct RowCache {
  /// The columns [FirstColumn, Bound) are held.
  int64_t FirstColumn = 0;
  const clang::Expr *Bound = nullptr;
  /// The loops (indices into RowProgram::Loops, in order) that read held
  /// columns; they iterate over the registers instead of the row.
  std::vector<unsigned> Loops;
  std::vector<RowCacheStream> Streams;
  /// Values computed once from the held streams and reused.
  std::vector<RowCacheValue> Values;
  /// Remarks: streams that were considered and not held, and why.
  std::vector<std::string> Notes;

  bool isCachedLoop(unsigned Loop) const;
};

/// Where the rows of an access start, when the same two numbers describe
/// every row: A's index is `Stride * r + First + (j - Column)` for the row
/// `r = blockIdx.x * blockDim.x + threadIdx.x` and every r (the rewrites
/// give threads other rows than the original mapping), with Stride and First
/// made of constants, scalar parameters, blockDim and gridDim only.
/// E.g. `in[r * cols + j]`: Stride `cols`, First `0` at column 0.
struct RowStarts {
  std::string Stride;
  std::optional<int64_t> ConstStride;
  /// The index of column Column in row 0.
  std::string First;
};
std::optional<RowStarts> rowStarts(const RowProgram &P, const RowAccess &A,
                                   int64_t Column);

/// The streams of \p P worth holding in registers, or why there are none.
llvm::Expected<RowCache> analyzeRowCache(clang::ASTContext &Ctx,
                                         const KernelInfo &K,
                                         const RowProgram &P);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ROWCACHE_H
