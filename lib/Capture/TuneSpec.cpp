//===- TuneSpec.cpp - Spec mode: how to run a kernel without its program --===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Capture/TuneSpec.h"
#include "WorkerProtocol.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {
/// Recursive-descent evaluator; precedence as in C. Arithmetic is checked:
/// a result that does not fit in 64 bits, a shift by a negative amount or by
/// 63 or more, and nesting deeper than MaxDepth are errors (signed overflow
/// and such shifts were undefined behaviour).
class SizeExprParser {
public:
  SizeExprParser(StringRef Text, const StringMap<int64_t> &Vars)
      : Text(Text), Vars(Vars) {}

  Expected<int64_t> run() {
    Expected<int64_t> V = shift();
    if (!V)
      return V;
    skip();
    if (Pos != Text.size())
      return err("unexpected '" + Text.substr(Pos, 1).str() + "'");
    return V;
  }

private:
  Error err(const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "in size expression '" + Text + "': " + Why);
  }
  static constexpr unsigned MaxDepth = 256;

  Error overflow() { return err("the value does not fit in 64 bits"); }
  Expected<int64_t> checked(std::optional<int64_t> V) {
    if (!V)
      return overflow();
    return *V;
  }
  void skip() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }
  bool eat(StringRef Tok) {
    skip();
    if (Text.substr(Pos).starts_with(Tok)) {
      Pos += Tok.size();
      return true;
    }
    return false;
  }
  Expected<int64_t> shift() {
    Expected<int64_t> L = additive();
    while (L) {
      if (eat("<<")) {
        Expected<int64_t> R = additive();
        if (!R)
          return R;
        if (*R < 0 || *R >= 63)
          return err("shift by " + Twine(*R) + " (must be 0 to 62)");
        L = checked(checkedMul<int64_t>(*L, int64_t(1) << *R));
      } else if (eat(">>")) {
        Expected<int64_t> R = additive();
        if (!R)
          return R;
        if (*R < 0 || *R >= 63)
          return err("shift by " + Twine(*R) + " (must be 0 to 62)");
        L = *L >> *R;
      } else {
        break;
      }
    }
    return L;
  }
  Expected<int64_t> additive() {
    Expected<int64_t> L = multiplicative();
    while (L) {
      if (eat("+")) {
        Expected<int64_t> R = multiplicative();
        if (!R)
          return R;
        L = checked(checkedAdd<int64_t>(*L, *R));
      } else if (eat("-")) {
        Expected<int64_t> R = multiplicative();
        if (!R)
          return R;
        L = checked(checkedSub<int64_t>(*L, *R));
      } else {
        break;
      }
    }
    return L;
  }
  Expected<int64_t> multiplicative() {
    Expected<int64_t> L = unary();
    while (L) {
      char Op = 0;
      skip();
      if (Pos < Text.size() && (Text[Pos] == '*' || Text[Pos] == '/' ||
                                Text[Pos] == '%'))
        Op = Text[Pos++];
      if (!Op)
        break;
      Expected<int64_t> R = unary();
      if (!R)
        return R;
      if (Op != '*' && *R == 0)
        return err("division by zero");
      if (Op == '*')
        L = checked(checkedMul<int64_t>(*L, *R));
      else if (*L == INT64_MIN && *R == -1)
        return overflow();
      else
        L = Op == '/' ? *L / *R : *L % *R;
    }
    return L;
  }
  Expected<int64_t> unary() {
    if (Depth >= MaxDepth)
      return err("nested more than " + Twine(MaxDepth) + " deep");
    if (eat("-")) {
      ++Depth;
      Expected<int64_t> V = unary();
      --Depth;
      if (!V)
        return V;
      if (*V == INT64_MIN)
        return overflow();
      return -*V;
    }
    if (eat("(")) {
      ++Depth;
      Expected<int64_t> V = shift();
      --Depth;
      if (!V)
        return V;
      if (!eat(")"))
        return err("missing ')'");
      return V;
    }
    skip();
    size_t Start = Pos;
    while (Pos < Text.size() && (isAlnum(Text[Pos]) || Text[Pos] == '_'))
      ++Pos;
    StringRef Tok = Text.slice(Start, Pos);
    if (Tok.empty())
      return err("expected a number or a name");
    if (isDigit(Tok[0])) {
      int64_t V;
      if (Tok.getAsInteger(0, V))
        return err("bad number '" + Tok + "'");
      return V;
    }
    auto It = Vars.find(Tok);
    if (It == Vars.end())
      return err("unknown size '" + Tok + "' (define it under \"sizes\")");
    return It->second;
  }

  StringRef Text;
  const StringMap<int64_t> &Vars;
  size_t Pos = 0;
  unsigned Depth = 0;
};

Error specError(const Twine &Why) {
  return createStringError(inconvertibleErrorCode(), "tuning spec: " + Why);
}

Expected<int64_t> intField(const json::Value &V, const StringMap<int64_t> &Sizes,
                           const Twine &Where) {
  if (std::optional<int64_t> I = V.getAsInteger())
    return *I;
  if (std::optional<StringRef> S = V.getAsString()) {
    Expected<int64_t> R = evalSizeExpr(*S, Sizes);
    if (!R)
      return specError(Where + ": " + toString(R.takeError()));
    return R;
  }
  return specError(Where + " must be an integer or a size expression");
}

Error dim3Field(const json::Object &O, StringRef Key,
                const StringMap<int64_t> &Sizes, std::array<int64_t, 3> &Out) {
  const json::Value *V = O.get(Key);
  if (!V)
    return specError("missing \"" + Key + "\" (e.g. [\"(n + 255) / 256\"])");
  const json::Array *A = V->getAsArray();
  json::Array Single;
  if (!A) {
    Single.push_back(*V);
    A = &Single;
  }
  if (A->empty() || A->size() > 3)
    return specError("\"" + Key + "\" needs 1 to 3 dimensions");
  for (size_t I = 0; I < A->size(); ++I) {
    Expected<int64_t> D = intField((*A)[I], Sizes, "\"" + Key + "\"");
    if (!D)
      return D.takeError();
    if (*D <= 0)
      return specError("\"" + Key + "\" dimension " + Twine(I) +
                       " is not positive");
    Out[I] = *D;
  }
  return Error::success();
}
} // namespace

Expected<int64_t> evalSizeExpr(StringRef Expr, const StringMap<int64_t> &Vars) {
  return SizeExprParser(Expr, Vars).run();
}

std::string runtimeDTypeOf(QualType T, ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  std::string Name = T.getAsString(Ctx.getPrintingPolicy());
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return "f32";
  if (T->isSpecificBuiltinType(BuiltinType::Double))
    return "f64";
  if (T->isSpecificBuiltinType(BuiltinType::Int))
    return "i32";
  if (T->isSpecificBuiltinType(BuiltinType::UInt))
    return "u32";
  if (T->isSpecificBuiltinType(BuiltinType::LongLong) ||
      T->isSpecificBuiltinType(BuiltinType::Long))
    return "i64";
  if (T->isSpecificBuiltinType(BuiltinType::ULongLong) ||
      T->isSpecificBuiltinType(BuiltinType::ULong))
    return "u64";
  if (T->isSpecificBuiltinType(BuiltinType::SChar) ||
      T->isSpecificBuiltinType(BuiltinType::Char_S))
    return "i8";
  if (T->isSpecificBuiltinType(BuiltinType::UChar) ||
      T->isSpecificBuiltinType(BuiltinType::Char_U))
    return "u8";
  if (StringRef(Name).contains("__half") || Name == "half")
    return "f16";
  if (StringRef(Name).contains("bfloat16"))
    return "bf16";
  return "";
}

Expected<TuneSpec> TuneSpec::parse(StringRef Text, ASTContext &Ctx,
                                   const std::vector<KernelInfo> &Kernels) {
  Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    return specError("not valid JSON: " + toString(Root.takeError()));
  const json::Object *O = Root->getAsObject();
  if (!O)
    return specError("the top level must be an object");
  TuneSpec Spec;
  std::optional<StringRef> Kernel = O->getString("kernel");
  if (!Kernel)
    return specError("missing \"kernel\" (the kernel's name)");
  Spec.Kernel = Kernel->str();
  const KernelInfo *K = lookupKernel(Kernels, *Kernel);
  if (!K)
    return specError("no kernel named '" + *Kernel + "' in the file");
  if (K->Template)
    return specError("kernel '" + *Kernel +
                     "' is a template; spec mode needs a non-template kernel "
                     "(tune the program that instantiates it instead)");

  StringMap<int64_t> Sizes;
  if (const json::Object *S = O->getObject("sizes"))
    for (const auto &KV : *S) {
      Expected<int64_t> V = intField(KV.second, Sizes, "size '" + KV.first + "'");
      if (!V)
        return V.takeError();
      Sizes[KV.first] = *V;
    }
  if (Error E = dim3Field(*O, "grid", Sizes, Spec.Grid))
    return std::move(E);
  if (Error E = dim3Field(*O, "block", Sizes, Spec.Block))
    return std::move(E);
  if (const json::Value *Sh = O->get("shmem")) {
    Expected<int64_t> V = intField(*Sh, Sizes, "\"shmem\"");
    if (!V)
      return V.takeError();
    Spec.Shmem = *V;
  }
  if (const json::Value *F = O->get("flops")) {
    Expected<int64_t> V = intField(*F, Sizes, "\"flops\"");
    if (!V)
      return V.takeError();
    Spec.Flops = *V;
  }
  if (std::optional<double> Tol = O->getNumber("rtol"))
    Spec.RelTol = *Tol;
  if (std::optional<int64_t> Runs = O->getInteger("runs"))
    Spec.Runs = std::max<int64_t>(20, *Runs);

  const json::Object *Args = O->getObject("args");
  if (!Args)
    return specError("missing \"args\" (one entry per kernel parameter)");
  for (const ParmVarDecl *P : K->Decl->parameters()) {
    std::string PName = P->getNameAsString();
    const json::Value *V = Args->get(PName);
    if (!V)
      return specError("no entry for parameter '" + PName + "' under \"args\"");
    SpecArg A;
    A.Name = PName;
    QualType T = P->getType();
    if (T->isPointerType()) {
      QualType Pointee = T->getPointeeType();
      A.IsBuffer = true;
      A.DType = runtimeDTypeOf(Pointee, Ctx);
      if (A.DType.empty())
        return specError("parameter '" + PName + "' points to '" +
                         Pointee.getAsString() +
                         "', which the measurement runtime cannot fill");
      A.Output = !Pointee.isConstQualified();
      const json::Object *BO = V->getAsObject();
      if (!BO)
        return specError("parameter '" + PName +
                         "' is a pointer; give {\"count\": ...}");
      const json::Value *Count = BO->get("count");
      if (!Count)
        return specError("buffer '" + PName + "' needs \"count\"");
      Expected<int64_t> C = intField(*Count, Sizes, "count of '" + PName + "'");
      if (!C)
        return C.takeError();
      if (*C <= 0)
        return specError("count of '" + PName + "' is not positive");
      A.Count = *C;
      if (std::optional<bool> Out = BO->getBoolean("output"))
        A.Output = *Out;
      if (std::optional<bool> In = BO->getBoolean("input"))
        A.Input = *In;
      if (std::optional<StringRef> Init = BO->getString("init")) {
        if (*Init != "uniform" && *Init != "normal" && *Init != "zero" &&
            *Init != "iota")
          return specError("init of '" + PName + "' must be uniform, normal, "
                           "zero or iota");
        A.Init = Init->str();
      }
      if (std::optional<double> Lo = BO->getNumber("lo"))
        A.Lo = *Lo;
      if (std::optional<double> Hi = BO->getNumber("hi"))
        A.Hi = *Hi;
    } else {
      A.DType = runtimeDTypeOf(T, Ctx);
      if (A.DType.empty())
        return specError("parameter '" + PName + "' has type '" +
                         T.getAsString() + "', which spec mode cannot pass");
      if (std::optional<double> D = V->getAsNumber()) {
        A.Value = *D;
      } else {
        Expected<int64_t> I = intField(*V, Sizes, "value of '" + PName + "'");
        if (!I)
          return I.takeError();
        A.Value = static_cast<double>(*I);
      }
    }
    if (A.IsBuffer) {
      std::optional<int64_t> Bytes = checkedMul<int64_t>(
          A.Count, Ctx.getTypeSizeInChars(T->getPointeeType()).getQuantity() *
                       ((A.Input ? 1 : 0) + (A.Output ? 1 : 0)));
      std::optional<int64_t> Total =
          Bytes ? checkedAdd<int64_t>(Spec.MinBytes, *Bytes) : std::nullopt;
      if (!Total)
        return specError("buffer '" + PName + "' is too large (" +
                         Twine(A.Count) + " elements)");
      Spec.MinBytes = *Total;
    }
    Spec.Args.push_back(A);
  }
  for (const auto &KV : *Args)
    if (llvm::none_of(Spec.Args,
                      [&](const SpecArg &A) { return A.Name == KV.first; }))
      return specError("\"args\" names '" + KV.first +
                       "', which is not a parameter of '" + Spec.Kernel + "'");
  return Spec;
}

json::Array TuneSpec::argsToJob() const {
  json::Array Out;
  for (const SpecArg &A : Args) {
    json::Object O{{worker::arg::Name, A.Name}, {worker::arg::DType, A.DType}};
    if (A.IsBuffer) {
      O[worker::arg::Kind] = worker::arg::KindBuffer;
      O[worker::arg::Count] = A.Count;
      O[worker::arg::Output] = A.Output;
      O[worker::arg::Input] = A.Input;
      O[worker::arg::Init] = A.Init;
      O[worker::arg::Lo] = A.Lo;
      O[worker::arg::Hi] = A.Hi;
    } else {
      O[worker::arg::Kind] = worker::arg::KindScalar;
      O[worker::arg::Value] = A.Value;
    }
    Out.push_back(std::move(O));
  }
  return Out;
}

} // namespace cuda_opt
