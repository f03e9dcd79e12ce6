//===- IndexExpr.cpp - Symbolic polynomial index expressions -------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/IndexExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <limits>

using namespace llvm;

namespace cuda_opt {

static const char *builtinName(SymbolKind Kind) {
  switch (Kind) {
  case SymbolKind::ThreadIdx:
    return "threadIdx";
  case SymbolKind::BlockIdx:
    return "blockIdx";
  case SymbolKind::BlockDim:
    return "blockDim";
  case SymbolKind::GridDim:
    return "gridDim";
  default:
    return "?";
  }
}

unsigned SymbolTable::add(IndexSymbol S) {
  Symbols.push_back(std::move(S));
  return Symbols.size() - 1;
}

std::optional<unsigned> SymbolTable::findBuiltin(SymbolKind Kind,
                                                 unsigned Dim) const {
  for (unsigned I = 0; I < Symbols.size(); ++I)
    if (Symbols[I].Kind == Kind && Symbols[I].Dim == Dim && !Symbols[I].Decl &&
        Symbols[I].Loop < 0)
      return I;
  return std::nullopt;
}

unsigned SymbolTable::builtin(SymbolKind Kind, unsigned Dim) {
  if (std::optional<unsigned> Id = findBuiltin(Kind, Dim))
    return *Id;
  IndexSymbol S;
  S.Kind = Kind;
  S.Dim = Dim;
  S.Name = std::string(builtinName(Kind)) + "." + "xyz"[Dim % 3];
  if (Kind == SymbolKind::ThreadIdx)
    S.Deps = DepThreadX << Dim;
  else if (Kind == SymbolKind::BlockIdx)
    S.Deps = DepBlock;
  return add(std::move(S));
}

unsigned SymbolTable::decl(SymbolKind Kind, const clang::NamedDecl *D,
                           StringRef Name, unsigned Deps) {
  for (unsigned I = 0; I < Symbols.size(); ++I)
    if (Symbols[I].Kind == Kind && Symbols[I].Decl == D)
      return I;
  IndexSymbol S;
  S.Kind = Kind;
  S.Decl = D;
  S.Name = Name.str();
  S.Deps = Deps;
  return add(std::move(S));
}

unsigned SymbolTable::loop(SymbolKind Kind, int Loop, StringRef Name,
                           unsigned Deps) {
  for (unsigned I = 0; I < Symbols.size(); ++I)
    if (Symbols[I].Kind == Kind && Symbols[I].Loop == Loop)
      return I;
  IndexSymbol S;
  S.Kind = Kind;
  S.Loop = Loop;
  S.Name = Name.str();
  S.Deps = Deps;
  return add(std::move(S));
}

unsigned SymbolTable::opaque(StringRef Text, unsigned Deps) {
  for (unsigned I = 0; I < Symbols.size(); ++I)
    if (Symbols[I].Kind == SymbolKind::Opaque && Symbols[I].Name == Text) {
      Symbols[I].Deps |= Deps;
      return I;
    }
  IndexSymbol S;
  S.Kind = SymbolKind::Opaque;
  S.Name = Text.str();
  S.Deps = Deps;
  return add(std::move(S));
}

IndexExpr IndexExpr::constant(int64_t C) {
  IndexExpr E;
  E.addTerm({}, C);
  return E;
}

IndexExpr IndexExpr::symbol(unsigned Id) {
  IndexExpr E;
  E.addTerm({Id}, 1);
  return E;
}

/// a + b and a * b, clamped to the int64 range instead of overflowing.
static int64_t clampedAdd(int64_t A, int64_t B) {
  int64_t R;
  if (!AddOverflow(A, B, R))
    return R;
  return B > 0 ? std::numeric_limits<int64_t>::max()
               : std::numeric_limits<int64_t>::min();
}

static int64_t clampedMul(int64_t A, int64_t B) {
  int64_t R;
  if (!MulOverflow(A, B, R))
    return R;
  return (A < 0) != (B < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

void IndexExpr::addTerm(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  auto It = Terms.find(M);
  if (It == Terms.end()) {
    Terms.emplace(M, C);
    return;
  }
  It->second = clampedAdd(It->second, C);
  if (It->second == 0)
    Terms.erase(It);
}

IndexExpr IndexExpr::operator+(const IndexExpr &O) const {
  IndexExpr R = *this;
  for (const auto &[M, C] : O.Terms)
    R.addTerm(M, C);
  return R;
}

IndexExpr IndexExpr::operator-(const IndexExpr &O) const {
  return *this + O.scaled(-1);
}

IndexExpr IndexExpr::scaled(int64_t C) const {
  IndexExpr R;
  for (const auto &[M, V] : Terms)
    R.addTerm(M, clampedMul(V, C));
  return R;
}

IndexExpr IndexExpr::operator*(const IndexExpr &O) const {
  IndexExpr R;
  for (const auto &[MA, CA] : Terms)
    for (const auto &[MB, CB] : O.Terms) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      llvm::sort(M);
      R.addTerm(M, clampedMul(CA, CB));
    }
  return R;
}

std::optional<int64_t> IndexExpr::getConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

int64_t IndexExpr::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

std::optional<IndexExpr> IndexExpr::coefficientOf(unsigned Sym) const {
  IndexExpr R;
  for (const auto &[M, C] : Terms) {
    auto N = std::count(M.begin(), M.end(), Sym);
    if (N == 0)
      continue;
    if (N > 1)
      return std::nullopt;
    Monomial Rest;
    for (unsigned S : M)
      if (S != Sym)
        Rest.push_back(S);
    R.addTerm(Rest, C);
  }
  return R;
}

bool IndexExpr::mentions(unsigned Sym) const {
  for (const auto &Term : Terms)
    if (llvm::is_contained(Term.first, Sym))
      return true;
  return false;
}

unsigned IndexExpr::degree() const {
  unsigned D = 0;
  for (const auto &Term : Terms)
    D = std::max<unsigned>(D, Term.first.size());
  return D;
}

unsigned IndexExpr::dependence(const SymbolTable &Symbols) const {
  unsigned D = DepNone;
  for (const auto &Term : Terms)
    for (unsigned S : Term.first)
      D |= Symbols[S].Deps;
  return D;
}

std::optional<std::pair<IndexExpr::Monomial, int64_t>>
IndexExpr::leadingTerm() const {
  std::optional<std::pair<Monomial, int64_t>> Best;
  for (const auto &[M, C] : Terms)
    if (!Best || M.size() > Best->first.size())
      Best = {M, C};
  return Best;
}

/// A symbol's name as a factor: parenthesised when it has operators outside
/// brackets, "(n / 2)".
static std::string factorName(const std::string &Name) {
  int Depth = 0;
  for (char Ch : Name) {
    if (Ch == '(' || Ch == '[')
      ++Depth;
    else if (Ch == ')' || Ch == ']')
      --Depth;
    else if (Depth == 0 && !isAlnum(Ch) && Ch != '_' && Ch != '.')
      return "(" + Name + ")";
  }
  return Name;
}

namespace {
/// One term with its factors named and sorted, independent of the order in
/// which symbols were interned.
struct NamedTerm {
  std::vector<std::string> Factors;
  int64_t Coeff;
};
} // namespace

/// The terms in a canonical order: highest degree first (reads naturally:
/// "K*row + k"), then by the names of their factors.
static std::vector<NamedTerm>
namedTerms(const std::map<IndexExpr::Monomial, int64_t> &Terms,
           const SymbolTable &Symbols) {
  std::vector<NamedTerm> Out;
  for (const auto &[M, C] : Terms) {
    NamedTerm T{{}, C};
    for (unsigned S : M)
      T.Factors.push_back(factorName(Symbols[S].Name));
    llvm::sort(T.Factors);
    Out.push_back(std::move(T));
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const NamedTerm &A, const NamedTerm &B) {
                     if (A.Factors.size() != B.Factors.size())
                       return A.Factors.size() > B.Factors.size();
                     return A.Factors < B.Factors;
                   });
  return Out;
}

std::string IndexExpr::str(const SymbolTable &Symbols) const {
  if (Terms.empty())
    return "0";
  std::string Out;
  bool First = true;
  for (const NamedTerm &T : namedTerms(Terms, Symbols)) {
    int64_t Mag = T.Coeff < 0 ? -T.Coeff : T.Coeff;
    if (First)
      Out += T.Coeff < 0 ? "-" : "";
    else
      Out += T.Coeff < 0 ? " - " : " + ";
    First = false;
    std::vector<std::string> Factors;
    if (Mag != 1 || T.Factors.empty())
      Factors.push_back(std::to_string(Mag));
    Factors.insert(Factors.end(), T.Factors.begin(), T.Factors.end());
    Out += llvm::join(Factors, "*");
  }
  return Out;
}

json::Value IndexExpr::toJSON(const SymbolTable &Symbols) const {
  json::Array Out;
  for (const NamedTerm &T : namedTerms(Terms, Symbols)) {
    json::Array Names;
    for (const std::string &F : T.Factors)
      Names.push_back(F);
    Out.push_back(
        json::Object{{"coeff", T.Coeff}, {"symbols", std::move(Names)}});
  }
  return Out;
}

} // namespace cuda_opt
