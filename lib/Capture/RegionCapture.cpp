//===- RegionCapture.cpp - Outline, capture and replay a host region ------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Capture/RegionCapture.h"

#include "WorkerProtocol.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

constexpr llvm::StringLiteral OutlinedName = "cudaopt_region";

/// The offset just past the statement ending at \p End, its `;` included.
unsigned endOffset(const SourceManager &SM, const LangOptions &LO,
                   SourceLocation End) {
  // The end of a check macro's invocation `CK(...)`, not of its body.
  SourceLocation After = Lexer::getLocForEndOfToken(
      SM.getExpansionRange(End).getEnd(), 0, SM, LO);
  unsigned Off = SM.getFileOffset(After);
  StringRef Buf = SM.getBufferData(SM.getFileID(After));
  unsigned I = Off;
  while (I < Buf.size() && (Buf[I] == ' ' || Buf[I] == '\t'))
    ++I;
  return I < Buf.size() && Buf[I] == ';' ? I + 1 : Off;
}

/// The statements of the region, in order.
std::vector<const Stmt *> regionStatements(const HostRegion &R) {
  if (R.TimeLoop)
    return {R.TimeLoop};
  std::vector<const Stmt *> Out;
  for (const RegionStep &S : R.Steps)
    Out.push_back(S.S);
  return Out;
}

std::string printed(QualType T, StringRef Name, const PrintingPolicy &PP) {
  std::string S;
  raw_string_ostream OS(S);
  T.print(OS, PP, Name);
  return S;
}

} // namespace

Expected<RegionSignature> regionSignature(ASTContext &Ctx,
                                          const HostRegion &R) {
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Host = R.Host;
  RegionSignature Sig;
  Sig.Where = (Host ? Host->getNameAsString() : std::string("?")) + " at " +
              describeLocation(SM, R.Range.getBegin());
  if (!Host || !Host->hasBody())
    return createStringError(inconvertibleErrorCode(),
                             "the region's host function has no body");
  if (Host->isTemplated() || isa<CXXMethodDecl>(Host))
    return createStringError(inconvertibleErrorCode(),
                             "the region is in a template, a method or a "
                             "lambda, which cuda-opt does not outline");
  SourceLocation B = SM.getExpansionLoc(R.Range.getBegin());
  if (!SM.isWrittenInMainFile(B))
    return createStringError(inconvertibleErrorCode(),
                             "the region is not in the main file");
  Sig.Begin = SM.getFileOffset(B);
  Sig.End = endOffset(SM, Ctx.getLangOpts(), R.Range.getEnd());
  Sig.FunctionBegin = SM.getFileOffset(
      SM.getExpansionLoc(insertionPointBefore(Ctx, Host)));
  if (Sig.End <= Sig.Begin || Sig.FunctionBegin > Sig.Begin)
    return createStringError(inconvertibleErrorCode(),
                             "the region's text could not be located");

  auto Inside = [&](SourceLocation L) {
    unsigned O = SM.getFileOffset(SM.getExpansionLoc(L));
    return O >= Sig.Begin && O < Sig.End;
  };
  // Variables the region names and declares elsewhere, in order of use.
  class Uses : public RecursiveASTVisitor<Uses> {
  public:
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->isLocalVarDeclOrParm() && !is_contained(Vars, V))
          Vars.push_back(V);
      return true;
    }
    std::vector<const VarDecl *> Vars;
  } U;
  for (const Stmt *S : regionStatements(R))
    U.TraverseStmt(const_cast<Stmt *>(S));

  PrintingPolicy PP = Ctx.getPrintingPolicy();
  PP.SuppressTagKeyword = true;
  if (!Host->getReturnType()->isVoidType())
    Sig.ReturnType = Host->getReturnType().getAsString(PP);
  for (const VarDecl *V : U.Vars) {
    if (Inside(V->getLocation())) {
      // Declared inside (a time loop's counter): must not be used after.
      class After : public RecursiveASTVisitor<After> {
      public:
        bool VisitDeclRefExpr(DeclRefExpr *D) {
          if (D->getDecl() == V && SM->getFileOffset(SM->getExpansionLoc(
                                       D->getBeginLoc())) >= End)
            Found = true;
          return true;
        }
        const VarDecl *V;
        const SourceManager *SM;
        unsigned End;
        bool Found = false;
      } A;
      A.V = V;
      A.SM = &SM;
      A.End = Sig.End;
      A.TraverseStmt(Host->getBody());
      if (A.Found)
        return createStringError(inconvertibleErrorCode(),
                                 "'%s' is declared in the region and used "
                                 "after it",
                                 V->getName().str().c_str());
      continue;
    }
    QualType T = V->getType().getNonReferenceType();
    if (T->isArrayType() || T->isFunctionType() ||
        !T.isTriviallyCopyableType(Ctx))
      return createStringError(
          inconvertibleErrorCode(),
          "the region uses '%s' of type '%s', which cannot be passed as "
          "captured bytes",
          V->getName().str().c_str(), T.getAsString(PP).c_str());
    RegionVariable RV;
    RV.Var = V;
    RV.Name = V->getName().str();
    RV.ParamText = printed(Ctx.getLValueReferenceType(T), RV.Name, PP);
    RV.LocalText = printed(T.getUnqualifiedType(),
                           "a" + std::to_string(Sig.Vars.size()), PP);
    RV.Pointer = T->isPointerType();
    for (unsigned I = 0; I < R.Buffers.size(); ++I)
      if (R.Buffers[I].Var == V)
        RV.Buffer = static_cast<int>(I);
    Sig.Vars.push_back(std::move(RV));
  }
  return Sig;
}

std::string outlineRegion(StringRef Text, const RegionSignature &Sig,
                          unsigned Begin, unsigned End, bool ForCapture) {
  std::string Params, Args;
  for (const RegionVariable &V : Sig.Vars) {
    Params += (Params.empty() ? "" : ", ") + V.ParamText;
    Args += ", " + V.Name;
  }
  // The region keeps the host function's return type: a check macro in it
  // may `return 1;`. Only its effects on memory are measured.
  std::string Ret = Sig.ReturnType.empty() ? "void" : Sig.ReturnType;
  std::string Fn = "// cuda-opt: the host region of " + Sig.Where +
                   ", outlined to be measured as one unit.\nstatic " + Ret +
                   " " + OutlinedName.str() + "(" + Params + ") {\n" +
                   Text.slice(Begin, End).str() + "\n" +
                   (Ret == "void" ? "" : "  return {};\n") + "}\n\n";
  std::string Call =
      ForCapture ? "::cuda_opt_capture::call(0, \"" + OutlinedName.str() +
                       "\", " + OutlinedName.str() + Args + ");"
                 : OutlinedName.str() + "(" + StringRef(Args).drop_front(
                                                  Args.empty() ? 0 : 2)
                                                  .str() +
                       ");";
  std::string Out;
  if (ForCapture)
    Out += "#include \"cuda_opt_capture.h\"\n";
  Out += Text.take_front(Sig.FunctionBegin).str();
  Out += Fn;
  Out += Text.slice(Sig.FunctionBegin, Begin).str();
  Out += Call;
  Out += Text.drop_front(End).str();
  return Out;
}

std::string regionEntryText(const RegionSignature &Sig) {
  std::string S =
      "\n// cuda-opt: the entry the measurement worker calls (runtime/measure,\n"
      "// library kind cudaopt_region): args[i] points to variable i's value.\n"
      "// The region runs on the legacy default stream, after the work already\n"
      "// queued on the worker's stream and before what it queues next.\n"
      "extern \"C\" int cudaopt_region_entry(void **cudaopt_args,\n"
      "                                      void *cudaopt_stream) {\n"
      "  static cudaEvent_t cudaopt_before, cudaopt_after;\n"
      "  static bool cudaopt_events = false;\n"
      "  if (!cudaopt_events) {\n"
      "    cudaEventCreateWithFlags(&cudaopt_before, cudaEventDisableTiming);\n"
      "    cudaEventCreateWithFlags(&cudaopt_after, cudaEventDisableTiming);\n"
      "    cudaopt_events = true;\n"
      "  }\n"
      "  cudaStream_t cudaopt_s = static_cast<cudaStream_t>(cudaopt_stream);\n"
      "  cudaEventRecord(cudaopt_before, cudaopt_s);\n"
      "  cudaStreamWaitEvent(cudaStreamLegacy, cudaopt_before, 0);\n";
  std::string Args;
  for (size_t I = 0; I < Sig.Vars.size(); ++I) {
    const RegionVariable &V = Sig.Vars[I];
    std::string A = "a" + std::to_string(I);
    S += "  " + V.LocalText + ";\n  __builtin_memcpy(&" + A +
         ", cudaopt_args[" + std::to_string(I) + "], sizeof(" + A + "));\n";
    Args += (I ? ", " : "") + A;
  }
  S += "  (void)" + OutlinedName.str() + "(" + Args + ");\n";
  S += "  cudaError_t cudaopt_error = cudaGetLastError();\n"
       "  cudaEventRecord(cudaopt_after, cudaStreamLegacy);\n"
       "  cudaStreamWaitEvent(cudaopt_s, cudaopt_after, 0);\n"
       "  return static_cast<int>(cudaopt_error);\n"
       "}\n";
  return S;
}

Expected<json::Array> regionReplayArgs(const CapturedLaunch &L,
                                       ASTContext &Ctx, const HostRegion &R,
                                       const RegionSignature &Sig) {
  if (L.Params.size() != Sig.Vars.size())
    return createStringError(inconvertibleErrorCode(),
                             "the captured region call has %zu arguments, "
                             "the region uses %zu variables",
                             L.Params.size(), Sig.Vars.size());
  if (!L.Full)
    return createStringError(inconvertibleErrorCode(),
                             "a config-only capture has no buffer contents");
  namespace A = worker::arg;
  json::Array Args;
  std::vector<int> OwnerOfAlloc(L.Allocs.size(), -1);
  for (unsigned I = 0; I < Sig.Vars.size(); ++I) {
    const CapturedParam &P = L.Params[I];
    const RegionVariable &V = Sig.Vars[I];
    if (P.K != CapturedParam::Pointer) {
      Args.push_back(scalarReplayArg(V.Name, P));
      continue;
    }
    if (P.Memory != "device" && P.Memory != "managed")
      return createStringError(
          inconvertibleErrorCode(),
          "'%s' points to %s memory; regions are replayed on device and "
          "managed allocations only",
          V.Name.c_str(), P.Memory == "host" ? "pinned host" : "unidentified");
    const CapturedAlloc &Al = L.Allocs[P.Alloc];
    bool Written = V.Buffer < 0 ? Al.Changed : R.Buffers[V.Buffer].Written;
    bool LiveOut = V.Buffer < 0 || R.Buffers[V.Buffer].LiveOut;
    bool Read = V.Buffer < 0 || R.Buffers[V.Buffer].Read ||
                R.Buffers[V.Buffer].LiveIn;
    bool Output = (Written || Al.Changed) && LiveOut;
    bool Scratch = (Written || Al.Changed) && !LiveOut;
    if (OwnerOfAlloc[P.Alloc] >= 0) {
      // Two variables into one allocation: the owner's flags cover both.
      json::Object *Owner = Args[OwnerOfAlloc[P.Alloc]].getAsObject();
      bool OwnerOut = Owner->getBoolean(A::Output).value_or(false) || Output;
      bool OwnerScratch =
          !OwnerOut && (Owner->getBoolean(A::Scratch).value_or(false) ||
                        Scratch);
      (*Owner)[A::Output] = OwnerOut;
      (*Owner)[A::Scratch] = OwnerScratch;
      (*Owner)[A::Input] = true;
      Args.push_back(json::Object{{A::Name, V.Name},
                                  {A::Kind, A::KindBuffer},
                                  {A::SameAs, OwnerOfAlloc[P.Alloc]},
                                  {A::Offset, static_cast<int64_t>(P.Offset)}});
      continue;
    }
    OwnerOfAlloc[P.Alloc] = static_cast<int>(I);
    uint64_t Elt = 1;
    std::string DType = replayDType(
        V.Var->getType().getNonReferenceType()->getPointeeType(), Al,
        P.Offset, Ctx, Elt);
    // An output the region never reads is poisoned before each run, so a
    // variant that skips part of it is caught.
    bool Input = !Output || Read;
    json::Object B{{A::Name, V.Name},
                   {A::Kind, A::KindBuffer},
                   {A::DType, DType},
                   {A::Count, static_cast<int64_t>(Al.Size / Elt)},
                   {A::Init, A::InitFile},
                   {A::File, Al.Before},
                   {A::Perturb, true},
                   {A::Offset, static_cast<int64_t>(P.Offset)},
                   {A::Output, Output},
                   {A::Scratch, Scratch},
                   {A::Input, Input}};
    if (Output)
      B[A::ExpectFile] = Al.After;
    Args.push_back(std::move(B));
  }
  return Args;
}

} // namespace cuda_opt
