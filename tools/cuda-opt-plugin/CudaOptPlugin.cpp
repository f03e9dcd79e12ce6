//===- CudaOptPlugin.cpp - cuda-opt as a clang plugin ---------------------===//
//
// Part of cuda-opt. Loaded into clang during a normal CUDA build
// (`clang++ -x cuda -fplugin=CudaOptPlugin.so ...`). Two modes:
//
//  - advise (default): it looks at every kernel the main file defines and
//    reports, as remarks, what `cuda-opt tune` would do with it: the
//    kernel's idiom, how many candidate pipelines pass their legality
//    checks, and the ones the learned policy would measure first with
//    their predicted speedups. It never changes the build.
//  - apply (db=PATH): before clang reads the main file, the best verified
//    variant the tuning database recorded for each of its kernels is
//    applied (Search/ApplyRecorded.h, what `cuda-opt apply` does) and the
//    rewritten text is what both the host and the device side compile.
//    `-Rpass=cuda-opt` remarks say what was applied with its recorded
//    speedup, `-Rpass-missed=cuda-opt` why a kernel was left alone. A
//    missing or unreadable database is a warning naming the file (an error
//    with `strict`); a kernel that cannot be rewritten compiles unchanged.
//
// docs/plugin.md. Arguments (-fplugin-arg-cudaopt-NAME=VALUE; clang splits
// the plugin name at its first dash, hence no dash in it):
//   top=N        how many candidates to list per kernel (advise; default 3)
//   kernel=NAME  only this kernel
//   db=PATH      apply the tuning database's choices
//   strict       (apply) a database that cannot be used is an error
//   fpmodel=M    (apply) strict, reassoc (default) or fast
//   cudapath=DIR (apply) the CUDA installation cuda-opt parses against
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Search/ApplyRecorded.h"
#include "cuda-opt/Search/CandidateSpace.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Search/Ranker.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Transforms/InitAllTransforms.h"
#include "cuda-opt/Pass/Transform.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/MemoryBuffer.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include <limits>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The candidate pipelines every pass of which is legal for the kernel.
std::vector<std::string> legalCandidates(ASTContext &Ctx,
                                         const KernelInfo &K) {
  std::vector<std::string> Legal;
  for (const std::string &P :
       candidatePipelines(std::numeric_limits<unsigned>::max())) {
    Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(P);
    if (!Pipeline) {
      consumeError(Pipeline.takeError());
      continue;
    }
    bool Ok = true;
    for (const PassInvocation &PI : *Pipeline)
      if (Error E = PI.Pass->checkLegality(KernelTarget{Ctx, K}, PI.Params)) {
        consumeError(std::move(E));
        Ok = false;
        break;
      }
    if (Ok)
      Legal.push_back(P);
  }
  return Legal;
}

class AdvisorConsumer : public ASTConsumer {
public:
  AdvisorConsumer(CompilerInstance &CI, unsigned Top, std::string Only)
      : CI(CI), Top(Top), Only(std::move(Only)) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    // A CUDA build runs clang once per side; the host side sees every
    // kernel's body too, so report once, there.
    if (Ctx.getLangOpts().CUDAIsDevice)
      return;
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    const unsigned Remark = Diags.getCustomDiagID(
        DiagnosticsEngine::Remark, "cuda-opt: %0");
    const SourceManager &SM = Ctx.getSourceManager();
    // tune's default order: the learned ranker compiled in (no problem
    // signature here: the build does not run the program).
    const RankerModel &Ranker = RankerModel::builtin();
    for (const KernelInfo &K : findKernels(Ctx)) {
      if (!SM.isInMainFile(K.Decl->getLocation()) ||
          (!Only.empty() && K.name() != Only))
        continue;
      KernelModel M = buildKernelModel(Ctx, K);
      std::vector<std::string> Legal = legalCandidates(Ctx, K);
      const KernelFeatures F = M.features();
      std::string Text = formatv("kernel '{0}' ({1}): {2} candidate "
                                 "pipeline{3} legal",
                                 K.name(), idiomName(M.Idiom.Kind),
                                 Legal.size(), Legal.size() == 1 ? "" : "s")
                             .str();
      if (!Legal.empty()) {
        // The ranker's order, as tune measures them by default. Its scores
        // order candidates but are not calibrated speedups, so none is
        // printed (docs/policy.md).
        Text += "; tune would measure first (the learned ranker's order):";
        std::vector<size_t> Order = Ranker.rank(F, "", Legal);
        for (size_t I = 0; I < Order.size() && I < Top; ++I)
          Text += (I ? ", " : " ") + Legal[Order[I]];
        Text += "; measure with `cuda-opt tune`";
      }
      Diags.Report(K.Decl->getLocation(), Remark) << Text;
    }
  }

private:
  CompilerInstance &CI;
  unsigned Top;
  std::string Only;
};

/// The -I, -D/-U and -std flags of this compilation, for cuda-opt's own
/// parses of the main file.
std::vector<std::string> userFlags(const CompilerInstance &CI) {
  std::vector<std::string> Flags;
  for (const HeaderSearchOptions::Entry &E :
       CI.getHeaderSearchOpts().UserEntries)
    if (!E.IsFramework &&
        (E.Group == frontend::Angled || E.Group == frontend::Quoted))
      Flags.push_back((E.Group == frontend::Quoted ? "-iquote" : "-I") +
                      E.Path);
  for (const auto &[Macro, IsUndef] : CI.getPreprocessorOpts().Macros)
    Flags.push_back((IsUndef ? "-U" : "-D") + Macro);
  const LangStandard &Std =
      LangStandard::getLangStandardForKind(CI.getLangOpts().LangStd);
  if (CI.getLangOpts().LangStd != LangStandard::lang_unspecified)
    Flags.push_back(std::string("-std=") + Std.getName());
  return Flags;
}

/// What the apply mode did, reported by the consumer on the host side at
/// each kernel (the device side compiles the same text silently).
struct ApplyOutcome {
  std::vector<AppliedKernel> Kernels;
  /// No kernel name of the database occurs in the file: it was not parsed
  /// again, and every kernel clang finds has nothing recorded.
  std::string NothingRecordedIn;
};

/// Whether \p Name occurs in \p Text as a whole identifier.
bool mentionsIdentifier(StringRef Text, StringRef Name) {
  auto IsIdent = [](char C) { return isAlnum(C) || C == '_'; };
  for (size_t At = Text.find(Name); At != StringRef::npos;
       At = Text.find(Name, At + 1)) {
    bool Before = At > 0 && IsIdent(Text[At - 1]);
    bool After = At + Name.size() < Text.size() && IsIdent(Text[At + Name.size()]);
    if (!Before && !After)
      return true;
  }
  return false;
}

/// Reports the apply mode's outcome as -Rpass / -Rpass-missed remarks.
class ApplyReporter : public ASTConsumer {
public:
  ApplyReporter(CompilerInstance &CI, std::shared_ptr<ApplyOutcome> Outcome)
      : CI(CI), Outcome(std::move(Outcome)) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getLangOpts().CUDAIsDevice || !Outcome)
      return;
    const CodeGenOptions &CG = CI.getCodeGenOpts();
    bool Applied = CG.OptimizationRemark.patternMatches("cuda-opt");
    bool Missed = CG.OptimizationRemarkMissed.patternMatches("cuda-opt");
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    const unsigned Remark =
        Diags.getCustomDiagID(DiagnosticsEngine::Remark, "cuda-opt: %0");
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    if (!Outcome->NothingRecordedIn.empty()) {
      if (Missed)
        for (const KernelInfo &K : Kernels)
          if (Ctx.getSourceManager().isInMainFile(K.Decl->getLocation()))
            Diags.Report(K.Decl->getLocation(), Remark)
                << "kernel '" + K.name() + "' left unchanged: nothing "
                   "recorded in " + Outcome->NothingRecordedIn;
      return;
    }
    for (const AppliedKernel &A : Outcome->Kernels) {
      bool Done = !A.Pipeline.empty();
      if (Done ? !Applied : !Missed)
        continue;
      const KernelInfo *K = lookupKernel(Kernels, A.Name);
      SourceLocation Loc =
          K ? K->Decl->getLocation()
            : Ctx.getSourceManager().getLocForStartOfFile(
                  Ctx.getSourceManager().getMainFileID());
      std::string Text =
          Done ? formatv("kernel '{0}': applied '{1}' from the tuning "
                         "database{2} on {3} ({4})",
                         A.Name, A.Pipeline,
                         A.Speedup > 0
                             ? formatv(", {0:F2}x over the original",
                                       A.Speedup)
                                   .str()
                             : std::string(),
                         A.Gpu, A.FpModelName)
                     .str()
               : "kernel '" + A.Name + "' left unchanged: " + A.Why;
      Diags.Report(Loc, Remark) << Text;
    }
  }

private:
  CompilerInstance &CI;
  std::shared_ptr<ApplyOutcome> Outcome;
};

class AdvisorAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    if (DbPath.empty())
      return std::make_unique<AdvisorConsumer>(CI, Top, Only);
    return std::make_unique<ApplyReporter>(CI, applyDatabase(CI));
  }

  /// Rewrites the main file's buffer (clang has not read it yet) with the
  /// database's choices; null when nothing was applied.
  std::shared_ptr<ApplyOutcome> applyDatabase(CompilerInstance &CI) {
    DiagnosticsEngine &D = CI.getDiagnostics();
    auto Problem = [&](const Twine &Message) {
      D.Report(D.getCustomDiagID(Strict ? DiagnosticsEngine::Error
                                        : DiagnosticsEngine::Warning,
                                 "cuda-opt plugin: %0"))
          << Message.str();
      return nullptr;
    };
    SourceManager &SM = CI.getSourceManager();
    OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
    if (!Main)
      return Problem("the main file is not a file; nothing applied");
    Expected<std::unique_ptr<TuningDatabase>> Db =
        TuningDatabase::open(DbPath, TuningDatabase::OpenMode::Existing);
    if (!Db)
      return Problem("cannot use the tuning database '" + DbPath +
                     "': " + toString(Db.takeError()) +
                     "; compiling the file as written");
    std::optional<MemoryBufferRef> Buf = SM.getBufferOrNone(SM.getMainFileID());
    if (!Buf)
      return Problem("cannot read the main file; nothing applied");
    // The cheap first look (no parse): a kernel's hash covers its name.
    Expected<std::vector<std::string>> Names = (*Db)->kernelNames();
    if (!Names)
      return Problem("cannot use the tuning database '" + DbPath +
                     "': " + toString(Names.takeError()) +
                     "; compiling the file as written");
    if (none_of(*Names, [&](const std::string &N) {
          return mentionsIdentifier(Buf->getBuffer(), N);
        })) {
      auto Outcome = std::make_shared<ApplyOutcome>();
      Outcome->NothingRecordedIn = (*Db)->path();
      return Outcome;
    }
    ToolchainOptions TO;
    TO.CudaPath = CudaPath;
    TO.ResourceDir = CI.getHeaderSearchOpts().ResourceDir;
    Expected<Toolchain> TC = Toolchain::discover(TO);
    if (!TC)
      return Problem(toString(TC.takeError()) +
                     "; compiling the file as written");
    SourceInput In;
    In.Path = Main->getFileEntry().tryGetRealPathName().str();
    if (In.Path.empty())
      In.Path = Main->getName().str();
    In.Text = Buf->getBuffer().str();
    In.Flags = userFlags(CI);
    ApplyOptions AO;
    AO.KernelName = Only;
    AO.Model = Model;
    Expected<ApplyResult> R = applyRecordedChoices(*TC, In, **Db, AO);
    if (!R)
      return Problem("cannot apply the tuning database '" + DbPath + "': " +
                     toString(R.takeError()) +
                     "; compiling the file as written");
    auto Outcome = std::make_shared<ApplyOutcome>();
    Outcome->Kernels = R->Kernels;
    if (R->Text != In.Text) {
      // The main file's FileID was sized for the original text: give the
      // rewritten contents a FileID of their own and make it the main one
      // (the preprocessor enters the main file only when parsing starts).
      SM.overrideFileContents(*Main, MemoryBuffer::getMemBufferCopy(
                                         R->Text, In.Path));
      SM.setMainFileID(SM.createFileID(*Main, SourceLocation(),
                                       SrcMgr::C_User));
    }
    return Outcome;
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    registerAllTransforms();
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &A : Args) {
      StringRef Arg(A);
      if (Arg.consume_front("top=")) {
        if (Arg.getAsInteger(10, Top)) {
          D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                     "cuda-opt plugin: top=N needs a "
                                     "number, not '%0'"))
              << Arg;
          return false;
        }
      } else if (Arg.consume_front("kernel=")) {
        Only = Arg.str();
      } else if (Arg.consume_front("db=")) {
        DbPath = Arg.str();
      } else if (Arg.consume_front("cudapath=")) {
        CudaPath = Arg.str();
      } else if (Arg == "strict") {
        Strict = true;
      } else if (Arg.consume_front("fpmodel=")) {
        std::optional<FpModel> M = parseFpModel(Arg);
        if (!M) {
          D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                     "cuda-opt plugin: fpmodel=%0: use "
                                     "strict, reassoc or fast"))
              << Arg;
          return false;
        }
        Model = *M;
      } else {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                   "cuda-opt plugin: unknown argument '%0' "
                                   "(known: top=N, kernel=NAME, db=PATH, "
                                   "strict, fpmodel=M, cudapath=DIR)"))
            << A;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddAfterMainAction; }

private:
  unsigned Top = 3;
  std::string Only, DbPath, CudaPath;
  bool Strict = false;
  FpModel Model = FpModel::Reassoc;
};

} // namespace
} // namespace cuda_opt

static FrontendPluginRegistry::Add<cuda_opt::AdvisorAction>
    X("cudaopt", "report what cuda-opt tune would try on each kernel, or "
                 "compile the variants its tuning database recorded");
