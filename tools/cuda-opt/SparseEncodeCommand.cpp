//===- SparseEncodeCommand.cpp - `cuda-opt sparse-encode` -----------------===//
//
//   cuda-opt sparse-encode W.npy -o W.tls [--stats]
//   cuda-opt sparse-encode model.safetensors --tensor NAME -o W.tls
//   cuda-opt sparse-encode W.npy --stats            (no output file)
//   cuda-opt sparse-encode model.safetensors --list
//
// The subcommand parses its own arguments: it shares no option with the
// source-to-source driver, and its messages (test/Sparse) are not cl's.
// main() calls it before the options are parsed; Options.cpp registers it
// as a cl::SubCommand only for --help.
//
//===----------------------------------------------------------------------===//

#include "SparseEncodeCommand.h"

#include "TlsFormat.h"
#include "WeightFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace cudaopt::sparse;

namespace {

const char *Usage =
    "usage: cuda-opt sparse-encode INPUT (-o OUTPUT.tls | --stats | --list)\n"
    "                [--tensor NAME] [--bf16] [--threads N]\n"
    "\n"
    "Encodes a 2-D fp16/bf16 weight matrix into the three-layer sparse format\n"
    "(docs/sparse-format.md).\n"
    "  INPUT          .npy (dtype '<f2'; with --bf16 also '<V2'/'<u2'/'<i2'\n"
    "                 arrays holding bf16 bits) or .safetensors (F16/BF16)\n"
    "  -o FILE        write the encoded matrix (.tls, version 1)\n"
    "  --stats        print bytes per dense element and the share of nonzeros\n"
    "                 in each layer\n"
    "  --tensor NAME  the safetensors tensor to encode (needed when the file\n"
    "                 holds more than one)\n"
    "  --list         list the tensors of a safetensors file\n"
    "  --bf16         read 16-bit .npy arrays as bf16 bits\n"
    "  --threads N    encoder threads (default: all cores)\n";

int error(const Twine &Msg) {
  WithColor::error(errs(), "cuda-opt sparse-encode") << Msg << "\n";
  return 1;
}

void printStats(raw_ostream &OS, const std::string &Input,
                const WeightTensor &W, const TlsStats &S) {
  double Zeros = S.Elements ? 1.0 - double(S.Nonzeros) / S.Elements : 0;
  OS << "sparse-encode: " << Input << " [" << W.Name << "] "
     << elemTypeName(W.Type) << " " << W.Rows << " x " << W.Cols << "\n";
  OS << format("  sparsity                   %.2f%% (%llu nonzeros)\n",
               100 * Zeros, (unsigned long long)S.Nonzeros);
  OS << format("  bytes per dense element    %.4f (dense 2.0, pure 2:4 1.125)\n",
               S.bytesPerElement());
  OS << format("  layer 1 (2:4, sparse TC)   %.2f%%\n", 100 * S.share(S.Layer1));
  OS << format("  layer 2 (slot-filled)      %.2f%%\n", 100 * S.share(S.Layer2));
  OS << format("  layer 3 (residual)         %.2f%%\n", 100 * S.share(S.Layer3));
  OS << format("  encoded size               %llu bytes (dense %llu)\n",
               (unsigned long long)S.Bytes,
               (unsigned long long)(S.Elements * 2));
}

} // namespace

int runSparseEncodeCommand(int Argc, const char **Argv) {
  std::string Input, Output;
  bool Stats = false, List = false;
  unsigned Threads = 0;
  WeightReadOptions ReadOpts;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    auto Value = [&](StringRef Flag, std::string &Out) {
      if (I + 1 >= Argc) {
        error("'" + Flag + "' needs a value");
        return false;
      }
      Out = Argv[++I];
      return true;
    };
    if (A == "-h" || A == "--help" || A == "-help") {
      outs() << Usage;
      return 0;
    }
    if (A == "-o") {
      if (!Value(A, Output))
        return 1;
    } else if (A.consume_front("-o=") || A.consume_front("--output=")) {
      Output = A.str();
    } else if (A == "--stats") {
      Stats = true;
    } else if (A == "--list") {
      List = true;
    } else if (A == "--bf16") {
      ReadOpts.NpyRawAsBF16 = true;
    } else if (A == "--tensor") {
      if (!Value(A, ReadOpts.TensorName))
        return 1;
    } else if (A.consume_front("--tensor=")) {
      ReadOpts.TensorName = A.str();
    } else if (A == "--threads") {
      std::string V;
      if (!Value(A, V) || StringRef(V).getAsInteger(10, Threads))
        return error("'--threads' needs a number");
    } else if (A.starts_with("-") && A != "-") {
      return error("unknown option '" + A + "'; see 'cuda-opt sparse-encode --help'");
    } else if (Input.empty()) {
      Input = A.str();
    } else {
      return error("more than one input file ('" + Input + "', '" + A + "')");
    }
  }
  if (Input.empty())
    return error("no input file; see 'cuda-opt sparse-encode --help'");
  if (List) {
    std::vector<std::string> Lines;
    std::string Err = listSafetensors(Input, Lines);
    if (!Err.empty())
      return error(Err);
    for (auto &L : Lines)
      outs() << L << "\n";
    return 0;
  }
  if (Output.empty() && !Stats)
    return error("nothing to do: give '-o FILE.tls' and/or '--stats'");

  WeightTensor W;
  std::string Err = readWeightFile(Input, ReadOpts, W);
  if (!Err.empty())
    return error(Err);
  TlsMatrix M = encode(W.Data.data(), W.Rows, W.Cols, W.Type, Threads);
  // The encoder is exact by construction; check it anyway, it is cheap
  // next to reading the file.
  std::vector<uint16_t> Back(W.Data.size());
  decode(M, Back.data());
  if (Back != W.Data)
    return error("internal error: the encoding of '" + Input +
                 "' does not decode to the input");
  if (!Output.empty()) {
    Err = writeTlsFile(M, Output);
    if (!Err.empty())
      return error(Err);
  }
  if (Stats)
    printStats(outs(), Input, W, computeStats(M));
  return 0;
}
