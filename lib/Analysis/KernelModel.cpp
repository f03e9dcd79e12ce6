//===- KernelModel.cpp - What cuda-opt knows about one kernel ------------===//
//
// Part of cuda-opt. Assembles the kernel model from the loop, access and
// idiom analyses and renders it as JSON.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/DamagedCode.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/RowOutputs.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

unsigned KernelModel::maxLoopDepth() const {
  unsigned D = 0;
  for (const LoopInfo &L : Loops)
    D = std::max(D, L.Depth);
  return D;
}

unsigned KernelModel::countAccesses(MemorySpace Space,
                                    AccessPattern Pattern) const {
  unsigned N = 0;
  for (const MemoryAccess &A : Accesses)
    if (A.Space == Space && A.Pattern == Pattern)
      ++N;
  return N;
}

std::vector<const MemoryAccess *>
KernelModel::accessesOf(const ValueDecl *Base) const {
  std::vector<const MemoryAccess *> Out;
  for (const MemoryAccess &A : Accesses)
    if (A.BaseDecl == Base)
      Out.push_back(&A);
  return Out;
}

bool KernelModel::hasDivergentBarrier() const {
  return llvm::any_of(Barriers,
                      [](const BarrierInfo &B) { return B.Divergent; });
}

std::vector<std::pair<std::string, double>> KernelModel::features() const {
  std::vector<std::pair<std::string, double>> F;
  auto Add = [&F](StringRef Name, double V) { F.push_back({Name.str(), V}); };
  Add("num_params", Params.size());
  Add("num_pointer_params",
      llvm::count_if(Params, [](const ParamInfo &P) { return P.Pointer; }));
  Add("num_loops", Loops.size());
  Add("max_loop_depth", maxLoopDepth());
  Add("num_grid_stride_loops",
      llvm::count_if(Loops, [](const LoopInfo &L) { return L.GridStride; }));
  Add("num_constant_trip_loops", llvm::count_if(Loops, [](const LoopInfo &L) {
        return L.TripCount.has_value();
      }));
  for (MemorySpace S : {MemorySpace::Global, MemorySpace::Shared})
    for (AccessPattern P : {AccessPattern::Coalesced, AccessPattern::Strided,
                            AccessPattern::Broadcast, AccessPattern::Irregular})
      Add((spaceName(S) + "_" + patternName(P)).str(), countAccesses(S, P));
  Add("num_barriers", Barriers.size());
  Add("has_divergent_barrier", hasDivergentBarrier());
  Add("num_atomics", Atomics.size());
  Add("num_shuffles", Shuffles.size());
  Add("shared_static_bytes",
      Shared.StaticBytes ? double(*Shared.StaticBytes) : -1.0);
  Add("uses_dynamic_shared", Shared.UsesDynamic);
  Add("flops_per_byte", Intensity.FlopsPerByte ? *Intensity.FlopsPerByte : -1);
  using cuda_opt::Idiom;
  for (Idiom I :
       {Idiom::Gemm, Idiom::Gemv, Idiom::Reduction, Idiom::Elementwise,
        Idiom::Stencil, Idiom::Transpose, Idiom::Scan, Idiom::Unknown})
    Add(("idiom_" + idiomName(I)).str(), this->Idiom.Kind == I);
  return F;
}

namespace {

std::optional<uint64_t> typeBytes(ASTContext &Ctx, QualType T) {
  if (T->isDependentType() || T->isIncompleteType() || T->isVoidType())
    return std::nullopt;
  return Ctx.getTypeSizeInChars(T).getQuantity();
}

ParamInfo describeParam(ASTContext &Ctx, const ParmVarDecl *P) {
  ParamInfo PI;
  PI.Decl = P;
  PI.Name = P->getNameAsString();
  QualType T = P->getType();
  PI.Type = T.getAsString(Ctx.getPrintingPolicy());
  PI.Pointer = T->isPointerType();
  PI.Restrict = T.isRestrictQualified();
  QualType Elem = PI.Pointer ? T->getPointeeType() : T;
  PI.Const = Elem.isConstQualified();
  PI.ElementType =
      Elem.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  PI.ElementBytes = typeBytes(Ctx, Elem);
  return PI;
}

/// Collects the local variable declarations of a body.
void collectVars(const Stmt *S, std::vector<const VarDecl *> &Out) {
  if (!S)
    return;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        Out.push_back(V);
  for (const Stmt *Child : S->children())
    collectVars(Child, Out);
}

/// `threadIdx.x % 32`, `threadIdx.x & 31`, `threadIdx.x / warpSize`, ...
std::string laneOrWarpRole(IndexExprBuilder &B, const Expr *Init) {
  const auto *BO = dyn_cast<BinaryOperator>(IndexExprBuilder::stripCasts(Init));
  if (!BO)
    return "";
  if (!(B.dependence(BO->getLHS()) & DepThread))
    return "";
  std::optional<int64_t> C = B.evaluate(BO->getRHS());
  if (!C)
    return "";
  switch (BO->getOpcode()) {
  case BO_Rem:
    return *C == 32 ? "lane index" : "";
  case BO_And:
    return *C == 31 ? "lane index" : "";
  case BO_Div:
    return *C == 32 ? "warp index" : "";
  case BO_Shr:
    return *C == 5 ? "warp index" : "";
  default:
    return "";
  }
}

std::string threadIndexRole(SymbolTable &Syms, const IndexExpr &F) {
  static const char *const Axis[] = {"x", "y", "z"};
  for (unsigned D = 0; D < 3; ++D) {
    unsigned TidId = Syms.builtin(SymbolKind::ThreadIdx, D);
    unsigned BidId = Syms.builtin(SymbolKind::BlockIdx, D);
    IndexExpr Tid = IndexExpr::symbol(TidId);
    IndexExpr Bid = IndexExpr::symbol(BidId);
    IndexExpr Dim = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockDim, D));
    IndexExpr Grid = IndexExpr::symbol(Syms.builtin(SymbolKind::GridDim, D));
    if (F == Tid)
      return std::string("thread index ") + Axis[D];
    if (F == Bid)
      return std::string("block index ") + Axis[D];
    if (F == Dim * Grid)
      return std::string("grid stride ") + Axis[D];
    std::optional<IndexExpr> BlockSize = F.coefficientOf(BidId);
    std::optional<IndexExpr> TidCoeff = F.coefficientOf(TidId);
    if (TidCoeff && *TidCoeff == IndexExpr::constant(1) && BlockSize &&
        !BlockSize->isZero() && !(BlockSize->dependence(Syms) & DepVarying) &&
        F - Tid - Bid * *BlockSize == IndexExpr()) {
      std::string Role = std::string("global linear index ") + Axis[D];
      if (*BlockSize != Dim)
        Role += " (block size " + BlockSize->str(Syms) + ")";
      return Role;
    }
  }
  unsigned Deps = F.dependence(Syms);
  if ((Deps & DepThread) && !(Deps & (DepBlock | DepLoop | DepData)))
    return "thread index within the block";
  if ((Deps & DepThread) && (Deps & DepBlock) && !(Deps & (DepLoop | DepData)))
    return "global thread index";
  if (Deps & DepThread)
    return "thread-dependent value";
  return "block-dependent value";
}

void findThreadIndices(KernelModel &M, IndexExprBuilder &B,
                       const FunctionDecl *Kernel) {
  std::vector<const VarDecl *> Vars;
  collectVars(Kernel->getBody(), Vars);
  for (const VarDecl *V : Vars) {
    if (!V->hasLocalStorage() || !V->getInit() || !B.writesOf(V).empty() ||
        !V->getType()->isIntegralOrEnumerationType())
      continue;
    unsigned Deps = B.dependence(V->getInit());
    if (Deps & (DepData | DepLoop))
      continue;
    IndexExpr Form = B.build(V->getInit());
    std::string Role = laneOrWarpRole(B, V->getInit());
    if (Role.empty()) {
      if (!(Deps & (DepThread | DepBlock))) {
        // Keep only the grid stride among the thread-independent values.
        std::string R = threadIndexRole(M.Symbols, Form);
        if (!StringRef(R).starts_with("grid stride"))
          continue;
        Role = R;
      } else {
        Role = threadIndexRole(M.Symbols, Form);
      }
    }
    ThreadIndexVar TV;
    TV.Decl = V;
    TV.Name = V->getNameAsString();
    TV.Text = B.text(V->getInit());
    TV.Form = Form;
    TV.Role = Role;
    M.ThreadIndices.push_back(std::move(TV));
  }
}

void findSharedMemory(KernelModel &M, ASTContext &Ctx,
                      const FunctionDecl *Kernel) {
  std::vector<const VarDecl *> Vars;
  collectVars(Kernel->getBody(), Vars);
  // File-scope __shared__ arrays used by the kernel count as well.
  for (const MemoryAccess &A : M.Accesses)
    if (const auto *V = dyn_cast_or_null<VarDecl>(A.BaseDecl))
      if (A.Space == MemorySpace::Shared && !llvm::is_contained(Vars, V))
        Vars.push_back(V);
  M.Shared.StaticBytes = 0;
  for (const VarDecl *V : Vars) {
    if (!V->hasAttr<CUDASharedAttr>())
      continue;
    SharedArray SA;
    SA.Decl = V;
    SA.Name = V->getNameAsString();
    SA.Type = V->getType().getAsString(Ctx.getPrintingPolicy());
    SA.Dynamic = V->getType()->isIncompleteArrayType();
    if (SA.Dynamic) {
      M.Shared.UsesDynamic = true;
    } else {
      SA.Bytes = typeBytes(Ctx, V->getType());
      if (SA.Bytes && M.Shared.StaticBytes)
        *M.Shared.StaticBytes += *SA.Bytes;
      else
        M.Shared.StaticBytes.reset();
    }
    M.Shared.Arrays.push_back(std::move(SA));
  }
}

void estimateIntensity(KernelModel &M, const BodySummary &Body) {
  IntensityInfo &I = M.Intensity;
  I.Flops = Body.Flops;
  I.GlobalBytes = Body.GlobalBytes;
  if (Body.DependentArithmetic)
    I.Note = "arithmetic on template-dependent types counted as floating "
             "point; ";
  if (I.GlobalBytes.isZero()) {
    I.Note += "no global memory traffic found";
    return;
  }
  std::optional<int64_t> F = I.Flops.getConstant();
  std::optional<int64_t> Bytes = I.GlobalBytes.getConstant();
  if (I.Flops.isZero()) {
    I.Status = "exact";
    I.FlopsPerByte = 0;
    I.Note += "no floating-point arithmetic";
    return;
  }
  if (F && Bytes) {
    I.Status = "exact";
    I.FlopsPerByte = double(*F) / double(*Bytes);
    I.Note += "static count; all trip counts known";
    return;
  }
  auto LF = I.Flops.leadingTerm();
  auto LB = I.GlobalBytes.leadingTerm();
  if (LF && LB && LF->first == LB->first &&
      I.Flops.degree() == LF->first.size() &&
      I.GlobalBytes.degree() == LB->first.size()) {
    // Both grow with the same product of trip counts: the ratio of the
    // leading coefficients is the limit for long loops.
    bool Unique = true;
    for (const auto &T : I.Flops.terms())
      if (T.first.size() == LF->first.size() && T.first != LF->first)
        Unique = false;
    for (const auto &T : I.GlobalBytes.terms())
      if (T.first.size() == LB->first.size() && T.first != LB->first)
        Unique = false;
    if (Unique) {
      I.Status = "asymptotic";
      I.FlopsPerByte = double(LF->second) / double(LB->second);
      I.Note += "limit for large trip counts; trip counts are symbolic";
      return;
    }
  }
  I.Note += "depends on symbolic trip counts or element sizes";
}

json::Array indexTermsJSON(const IndexExpr &E, const SymbolTable &S) {
  json::Value V = E.toJSON(S);
  return std::move(*V.getAsArray());
}

} // namespace

KernelModel buildKernelModel(ASTContext &Ctx, const KernelInfo &K) {
  KernelModel M;
  M.Name = K.name();
  M.Location = describeLocation(Ctx.getSourceManager(), K.Decl->getLocation());
  M.IsTemplate = K.Template != nullptr;
  for (const ParmVarDecl *P : K.Decl->parameters())
    M.Params.push_back(describeParam(Ctx, P));
  if (!K.Decl->getBody())
    return M;

  IndexExprBuilder B(Ctx, K.Decl, M.Symbols);
  M.Loops = analyzeLoops(K.Decl, B);
  static_cast<BodySummary &>(M) = analyzeBody(K.Decl, B, M.Loops);
  for (ParamInfo &P : M.Params)
    for (const MemoryAccess *A : M.accessesOf(P.Decl)) {
      if (A->Kind == AccessKind::Atomic)
        ++P.Atomics;
      if (A->Kind == AccessKind::Read || A->Kind == AccessKind::ReadWrite)
        ++P.Reads;
      if (A->Kind == AccessKind::Write || A->Kind == AccessKind::ReadWrite)
        ++P.Writes;
    }
  findThreadIndices(M, B, K.Decl);
  findSharedMemory(M, Ctx, K.Decl);
  estimateIntensity(M, M);
  M.Idiom = classifyIdiom(M);
  return M;
}

static json::Value optionalInt(std::optional<int64_t> V) {
  if (V)
    return *V;
  return nullptr;
}

json::Object KernelModel::toJSON() const {
  json::Array ParamsJ;
  for (const ParamInfo &P : Params) {
    json::Object O{{"name", P.Name},         {"type", P.Type},
                   {"pointer", P.Pointer},   {"const", P.Const},
                   {"restrict", P.Restrict}, {"element_type", P.ElementType},
                   {"reads", P.Reads},       {"writes", P.Writes},
                   {"atomics", P.Atomics}};
    O["element_bytes"] =
        P.ElementBytes ? json::Value(int64_t(*P.ElementBytes)) : nullptr;
    ParamsJ.push_back(std::move(O));
  }
  json::Array IndicesJ;
  for (const ThreadIndexVar &T : ThreadIndices)
    IndicesJ.push_back(json::Object{{"name", T.Name},
                                    {"text", T.Text},
                                    {"form", T.Form.str(Symbols)},
                                    {"role", T.Role}});
  json::Array LoopsJ;
  for (unsigned I = 0; I < Loops.size(); ++I) {
    const LoopInfo &L = Loops[I];
    StringRef StepKindName = L.Step == StepKind::Additive    ? "additive"
                             : L.Step == StepKind::Geometric ? "geometric"
                                                             : "unknown";
    json::Object O{{"id", I},
                   {"kind", L.Kind},
                   {"location", L.Location},
                   {"depth", L.Depth},
                   {"parent", L.Parent},
                   {"induction_var", L.VarName},
                   {"init", L.InitText},
                   {"bound", L.BoundText},
                   {"compare", L.Compare},
                   {"step", L.StepText},
                   {"step_kind", StepKindName},
                   {"trip_count", optionalInt(L.TripCount)},
                   {"trip_count_expr", L.TripCountText},
                   {"grid_stride", L.GridStride},
                   {"block_stride", L.BlockStride},
                   {"contains_barrier", L.ContainsBarrier}};
    if (L.Step == StepKind::Additive)
      O["stride"] = L.Stride.str(Symbols);
    if (L.Step == StepKind::Geometric)
      O["factor"] = formatv("{0}{1}", L.Growing ? "*" : "/", L.Factor).str();
    LoopsJ.push_back(std::move(O));
  }
  json::Array AccessesJ;
  for (unsigned I = 0; I < Accesses.size(); ++I) {
    const MemoryAccess &A = Accesses[I];
    json::Object O{{"id", I},
                   {"location", A.Location},
                   {"text", A.Text},
                   {"base", A.Base},
                   {"space", spaceName(A.Space)},
                   {"kind", accessKindName(A.Kind)},
                   {"index", A.IndexText},
                   {"index_form", A.Index.str(Symbols)},
                   {"index_terms", indexTermsJSON(A.Index, Symbols)},
                   {"affine", A.Affine},
                   {"pattern", patternName(A.Pattern)},
                   {"stride", optionalInt(A.Stride)},
                   {"stride_expr", A.StrideText},
                   {"element_type", A.ElementType},
                   {"loop", A.Loop}};
    O["element_bytes"] =
        A.ElementBytes ? json::Value(int64_t(*A.ElementBytes)) : nullptr;
    if (!A.Reason.empty())
      O["reason"] = A.Reason;
    AccessesJ.push_back(std::move(O));
  }
  json::Object Summary;
  for (MemorySpace S :
       {MemorySpace::Global, MemorySpace::Shared, MemorySpace::Constant}) {
    json::Object Counts;
    for (AccessPattern P : {AccessPattern::Coalesced, AccessPattern::Strided,
                            AccessPattern::Broadcast, AccessPattern::Irregular})
      Counts[patternName(P)] = countAccesses(S, P);
    Summary[spaceName(S)] = std::move(Counts);
  }
  json::Array BarriersJ;
  for (const BarrierInfo &Bar : Barriers)
    BarriersJ.push_back(json::Object{{"kind", Bar.Kind},
                                     {"scope", Bar.Scope},
                                     {"location", Bar.Location},
                                     {"loop", Bar.Loop},
                                     {"divergent", Bar.Divergent}});
  json::Array AtomicsJ;
  for (const AtomicInfo &At : Atomics) {
    json::Object O{{"op", At.Op},
                   {"location", At.Location},
                   {"access", At.Access},
                   {"loop", At.Loop}};
    if (At.Access >= 0) {
      O["target"] = Accesses[At.Access].Base;
      O["target_pattern"] = patternName(Accesses[At.Access].Pattern);
    }
    AtomicsJ.push_back(std::move(O));
  }
  json::Array ShufflesJ;
  for (const ShuffleInfo &Sh : Shuffles)
    ShufflesJ.push_back(json::Object{
        {"op", Sh.Op}, {"location", Sh.Location}, {"loop", Sh.Loop}});
  json::Array AccJ;
  for (const Accumulation &Acc : Accumulations)
    AccJ.push_back(json::Object{{"target", Acc.Target},
                                {"location", Acc.Location},
                                {"product", Acc.Product},
                                {"lhs_access", Acc.LHS},
                                {"rhs_access", Acc.RHS},
                                {"target_access", Acc.TargetAccess},
                                {"loop", Acc.Loop}});
  json::Array SharedJ;
  for (const SharedArray &SA : Shared.Arrays) {
    json::Object O{
        {"name", SA.Name}, {"type", SA.Type}, {"dynamic", SA.Dynamic}};
    O["bytes"] = SA.Bytes ? json::Value(int64_t(*SA.Bytes)) : nullptr;
    SharedJ.push_back(std::move(O));
  }
  json::Object SharedO{{"arrays", std::move(SharedJ)},
                       {"dynamic", Shared.UsesDynamic}};
  SharedO["static_bytes"] = Shared.StaticBytes
                                ? json::Value(int64_t(*Shared.StaticBytes))
                                : json::Value("unknown");
  json::Object IntensityO{{"flops", Intensity.Flops.str(Symbols)},
                          {"global_bytes", Intensity.GlobalBytes.str(Symbols)},
                          {"status", Intensity.Status},
                          {"note", Intensity.Note}};
  IntensityO["flops_per_byte"] =
      Intensity.FlopsPerByte ? json::Value(*Intensity.FlopsPerByte) : nullptr;
  // Three significant digits, for people and tests.
  IntensityO["flops_per_byte_text"] =
      Intensity.FlopsPerByte
          ? formatv("{0}", format("%.3g", *Intensity.FlopsPerByte)).str()
          : std::string("unknown");
  json::Array CallsJ;
  for (const std::string &C : Calls)
    CallsJ.push_back(C);
  json::Object FeaturesJ;
  for (auto &[Name, Value] : features())
    FeaturesJ[Name] = Value;

  return json::Object{
      {"name", Name},
      {"location", Location},
      {"template", IsTemplate},
      {"parameters", std::move(ParamsJ)},
      {"thread_indices", std::move(IndicesJ)},
      {"loops", std::move(LoopsJ)},
      {"max_loop_depth", maxLoopDepth()},
      {"accesses", std::move(AccessesJ)},
      {"access_summary", std::move(Summary)},
      {"barriers", std::move(BarriersJ)},
      {"atomics", std::move(AtomicsJ)},
      {"shuffles", std::move(ShufflesJ)},
      {"accumulations", std::move(AccJ)},
      {"shared_memory", std::move(SharedO)},
      {"arithmetic_intensity", std::move(IntensityO)},
      {"idiom", json::Object{{"kind", idiomName(Idiom.Kind)},
                             {"evidence", Idiom.Evidence}}},
      {"calls", std::move(CallsJ)},
      {"features", std::move(FeaturesJ)},
  };
}

json::Value analyzeKernelToJSON(ASTContext &Ctx, const KernelInfo &K) {
  json::Value Inventory = kernelInventoryToJSON(Ctx, K);
  json::Object &Out = *Inventory.getAsObject();
  KernelModel M = buildKernelModel(Ctx, K);
  for (auto &Entry : M.toJSON())
    Out[Entry.first] = std::move(Entry.second);
  // Code clang rejected and nvcc compiles: the model misses what the AST
  // dropped around it.
  if (std::optional<std::string> Why = damagedKernelReason(Ctx, K))
    Out["incomplete"] = *Why;
  // Outputs written in rows (checked row by row against the fp64 reference).
  if (std::map<unsigned, RowLength> Rows = rowStructuredOutputs(Ctx, K);
      !Rows.empty())
    Out["row_outputs"] = rowOutputsToJSON(K, Rows);
  return Inventory;
}

} // namespace cuda_opt
