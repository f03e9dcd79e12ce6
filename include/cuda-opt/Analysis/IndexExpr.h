//===- IndexExpr.h - Symbolic polynomial index expressions ------*- C++ -*-===//
//
// Part of cuda-opt. An index such as `(blockIdx.y * TILE + threadIdx.y) * K +
// t * TILE + threadIdx.x` is held as a polynomial with integer coefficients
// over symbols: the CUDA builtins (threadIdx, blockIdx, blockDim, gridDim),
// scalar parameters, template parameters, loop iteration counters, and
// opaque sub-expressions (divisions, loads, calls) that cannot be expanded.
// Every opaque symbol records what it depends on, so that a caller can still
// tell whether an index is affine in threadIdx.x or data dependent.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_INDEXEXPR_H
#define CUDA_OPT_ANALYSIS_INDEXEXPR_H

#include "llvm/Support/JSON.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class NamedDecl;
} // namespace clang

namespace cuda_opt {

/// What a symbol stands for.
enum class SymbolKind {
  ThreadIdx,     ///< threadIdx.{x,y,z}
  BlockIdx,      ///< blockIdx.{x,y,z}
  BlockDim,      ///< blockDim.{x,y,z}
  GridDim,       ///< gridDim.{x,y,z}
  Param,         ///< a scalar kernel parameter never written in the body
  TemplateParam, ///< a non-type template parameter
  LoopIter,      ///< the iteration counter 0, 1, 2, ... of a loop
  LoopVar,       ///< a loop variable without an affine closed form (s >>= 1)
  TripCount,     ///< the unknown trip count of a loop (for cost estimates)
  Opaque,        ///< anything else: a division, a load, a call, a variable
                 ///< written in several places
};

/// Bits of what a value depends on.
enum DependenceBits : unsigned {
  DepNone = 0,
  DepThreadX = 1u << 0,
  DepThreadY = 1u << 1,
  DepThreadZ = 1u << 2,
  DepBlock = 1u << 3,
  DepLoop = 1u << 4,
  DepData = 1u << 5, ///< reads memory: the value is data dependent
  DepThread = DepThreadX | DepThreadY | DepThreadZ,
  /// Different between threads or between iterations.
  DepVarying = DepThread | DepBlock | DepLoop | DepData,
};

struct IndexSymbol {
  SymbolKind Kind = SymbolKind::Opaque;
  /// 0, 1, 2 for the .x, .y, .z of a builtin.
  unsigned Dim = 0;
  /// The parameter, template parameter or variable, when there is one.
  const clang::NamedDecl *Decl = nullptr;
  /// The loop (index into KernelModel::Loops) of loop symbols, else -1.
  int Loop = -1;
  /// How the symbol is printed.
  std::string Name;
  /// DependenceBits of the value.
  unsigned Deps = DepNone;
};

/// The symbols of one kernel. Symbols are interned: asking twice for the same
/// builtin, declaration, loop or opaque text gives the same id.
class SymbolTable {
public:
  unsigned builtin(SymbolKind Kind, unsigned Dim);
  unsigned decl(SymbolKind Kind, const clang::NamedDecl *D,
                llvm::StringRef Name, unsigned Deps = DepNone);
  unsigned loop(SymbolKind Kind, int Loop, llvm::StringRef Name, unsigned Deps);
  unsigned opaque(llvm::StringRef Text, unsigned Deps);

  const IndexSymbol &operator[](unsigned Id) const { return Symbols[Id]; }
  /// The id of a builtin if it was ever interned.
  std::optional<unsigned> findBuiltin(SymbolKind Kind, unsigned Dim) const;
  size_t size() const { return Symbols.size(); }

private:
  unsigned add(IndexSymbol S);
  std::vector<IndexSymbol> Symbols;
};

/// A polynomial with int64 coefficients over symbols of a SymbolTable.
class IndexExpr {
public:
  /// A product of symbols, as sorted symbol ids (repeats allowed).
  using Monomial = std::vector<unsigned>;

  IndexExpr() = default;
  static IndexExpr constant(int64_t C);
  static IndexExpr symbol(unsigned Id);

  IndexExpr operator+(const IndexExpr &O) const;
  IndexExpr operator-(const IndexExpr &O) const;
  IndexExpr operator*(const IndexExpr &O) const;
  IndexExpr scaled(int64_t C) const;
  bool operator==(const IndexExpr &O) const { return Terms == O.Terms; }
  bool operator!=(const IndexExpr &O) const { return Terms != O.Terms; }

  bool isZero() const { return Terms.empty(); }
  std::optional<int64_t> getConstant() const;
  /// The constant term (0 when there is none).
  int64_t constantTerm() const;
  /// The polynomial multiplying \p Sym, or std::nullopt when \p Sym occurs
  /// with degree two or more in some term.
  std::optional<IndexExpr> coefficientOf(unsigned Sym) const;
  bool mentions(unsigned Sym) const;
  /// The highest total degree of a term.
  unsigned degree() const;
  /// The OR of the dependences of every symbol used.
  unsigned dependence(const SymbolTable &Symbols) const;
  /// The term of highest degree (ties: the first in order) and its
  /// coefficient; std::nullopt for zero.
  std::optional<std::pair<Monomial, int64_t>> leadingTerm() const;

  const std::map<Monomial, int64_t> &terms() const { return Terms; }

  /// Readable form, e.g. "blockIdx.x*blockDim.x + threadIdx.x".
  std::string str(const SymbolTable &Symbols) const;
  /// [{"coeff": 1, "symbols": ["blockIdx.x", "blockDim.x"]}, ...]
  llvm::json::Value toJSON(const SymbolTable &Symbols) const;

private:
  void addTerm(const Monomial &M, int64_t C);
  std::map<Monomial, int64_t> Terms;
};

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_INDEXEXPR_H
