//===- TuneBatchScript.cpp - The script a tune-batch shard runs -----------===//
//
// Part of cuda-opt. Writes DIR/tune-batch.sh and reads back what its shards
// leave in DIR/status (TuneBatch.h).
//
//===----------------------------------------------------------------------===//
#include "TuneBatch.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

std::vector<std::vector<std::string>>
dealIntoShards(ArrayRef<std::string> Files, unsigned Count) {
  std::vector<std::vector<std::string>> Shards(Count);
  for (size_t I = 0; I < Files.size(); ++I)
    Shards[I % Count].push_back(Files[I]);
  return Shards;
}

std::string shellWord(StringRef Word) {
  if (!Word.empty() && all_of(Word, [](char C) {
        return isAlnum(C) || StringRef("_-./=:,+@%").contains(C);
      }))
    return Word.str();
  std::string Out = "'";
  for (char C : Word)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

std::string shardLogPath(StringRef OutDir, unsigned Shard) {
  SmallString<256> P(OutDir);
  sys::path::append(P, "logs", formatv("shard-{0}.log", Shard).str());
  return std::string(P);
}

std::string batchScriptText(const BatchScript &S) {
  std::string Text;
  raw_string_ostream OS(Text);
  size_t Files = 0;
  for (const std::vector<std::string> &Shard : S.Shards)
    Files += Shard.size();
  const unsigned Last = S.Shards.size() - 1;
  OS << "#!/bin/bash\n"
     << "# Written by cuda-opt tune-batch: " << Files << " files in "
     << S.Shards.size() << " shards, tuned into one database.\n"
     << "# Slurm runs it as a job array (sbatch " << shellWord("tune-batch.sh")
     << ": task N tunes shard N);\n"
     << "# by hand: bash tune-batch.sh SHARD [GPU]. Each shard writes "
        "status/shard-SHARD at its end.\n"
     << "#SBATCH --job-name=cuda-opt-tune\n"
     << "#SBATCH --array=0-" << Last << "\n"
     << "#SBATCH --ntasks=1\n"
     << "#SBATCH --output=" << S.OutDir << "/logs/shard-%a.log\n"
     << "#SBATCH --chdir=" << S.WorkingDir << "\n";
  if (!S.DryRun)
    OS << "#SBATCH --gres=gpu:1\n";
  if (!S.Partition.empty())
    OS << "#SBATCH --partition=" << S.Partition << "\n";
  if (!S.TimeLimit.empty())
    OS << "#SBATCH --time=" << S.TimeLimit << "\n";
  OS << "set -u\n"
     << "shard=${1:-${SLURM_ARRAY_TASK_ID:-}}\n"
     << "gpu=${2:-}\n"
     << "if [ -z \"$shard\" ]; then\n"
     << "  echo \"usage: bash $0 SHARD [GPU] (under Slurm: "
        "SLURM_ARRAY_TASK_ID)\" >&2\n"
     << "  exit 2\n"
     << "fi\n"
     << "out=" << shellWord(S.OutDir) << "\n"
     << "case \"$shard\" in\n";
  for (size_t I = 0; I < S.Shards.size(); ++I) {
    OS << "  " << I << ") files=(";
    ListSeparator Sep(" ");
    for (const std::string &F : S.Shards[I])
      OS << Sep << shellWord(F);
    OS << ") ;;\n";
  }
  OS << "  *) echo \"cuda-opt tune-batch: no shard $shard (0-" << Last
     << ")\" >&2; exit 2 ;;\n"
     << "esac\n"
     << "echo \"cuda-opt tune-batch: shard $shard on $(hostname), files: "
        "${#files[@]}\"\n"
     << "# A TERM (scancel, the time limit, tune-batch's timeout) ends the "
        "tune in flight too.\n"
     << "child=\n"
     << "trap '[ -n \"$child\" ] && kill -TERM \"$child\" 2>/dev/null; "
        "exit 143' TERM INT\n"
     << "status=0\n"
     << "results=\n"
     << "for f in \"${files[@]}\"; do\n"
     << "  name=${f##*/}\n"
     << "  " << shellWord(S.CudaOpt)
     << " tune \"$f\" --db=" << shellWord(S.Database);
  for (const std::string &A : S.TuneArgs)
    OS << " " << shellWord(A);
  OS << " ${gpu:+\"--gpus=$gpu\"} -o \"$out/$name\"";
  if (!S.ParseFlags.empty()) {
    OS << " --";
    for (const std::string &F : S.ParseFlags)
      OS << " " << shellWord(F);
  }
  OS << " &\n"
     << "  child=$!\n"
     << "  wait \"$child\"\n"
     << "  rc=$?\n"
     << "  child=\n"
     << "  results=\"$results$rc $f\"$'\\n'\n"
     << "  [ \"$rc\" = 0 ] || status=1\n"
     << "done\n"
     << "printf 'exit %s\\n%s' \"$status\" \"$results\" > "
        "\"$out/status/shard-$shard.tmp\" &&\n"
     << "  mv \"$out/status/shard-$shard.tmp\" \"$out/status/shard-$shard\"\n"
     << "exit \"$status\"\n";
  return Text;
}

std::optional<ShardStatus> readShardStatus(StringRef OutDir, unsigned Shard) {
  SmallString<256> P(OutDir);
  sys::path::append(P, "status", formatv("shard-{0}", Shard).str());
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(P);
  if (!B)
    return std::nullopt;
  ShardStatus St;
  SmallVector<StringRef> Lines;
  (*B)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    if (L.consume_front("exit ")) {
      if (L.trim().getAsInteger(10, St.Exit))
        St.Exit = -1;
      continue;
    }
    auto [Code, File] = L.split(' ');
    int Exit = -1;
    if (!Code.getAsInteger(10, Exit))
      St.Files.push_back({Exit, File.str()});
  }
  return St;
}

} // namespace cuda_opt
