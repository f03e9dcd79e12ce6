//===- WeightFile.cpp - Read 2-D fp16/bf16 weights ------------------------===//

#include "WeightFile.h"

#include "Json.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

namespace cudaopt {
namespace sparse {

namespace {

bool readFile(const std::string &Path, std::vector<unsigned char> &Bytes,
              std::string &Err) {
  FILE *F = std::fopen(Path.c_str(), "rb");
  if (!F) {
    Err = "cannot open '" + Path + "': " + std::strerror(errno);
    return false;
  }
  unsigned char Buf[1 << 16];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof(Buf), F)) > 0)
    Bytes.insert(Bytes.end(), Buf, Buf + N);
  bool Bad = std::ferror(F);
  std::fclose(F);
  if (Bad)
    Err = "cannot read '" + Path + "'";
  return !Bad;
}

uint64_t le(const unsigned char *P, int N) {
  uint64_t V = 0;
  for (int I = 0; I < N; ++I)
    V |= uint64_t(P[I]) << (8 * I);
  return V;
}

bool endsWith(const std::string &S, const std::string &Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

using co_runtime::Json;

/// \p D as a count or offset: a whole number in [0, 2^53]. NaN, infinities
/// and negative numbers (the JSON reader takes what strtod takes) are not,
/// and converting them to an integer is undefined behaviour.
bool wholeNumber(double D, uint64_t &Out) {
  if (!(D >= 0 && D <= 9007199254740992.0) || D != double(uint64_t(D)))
    return false;
  Out = uint64_t(D);
  return true;
}

bool shape2D(const std::vector<double> &Shape, uint32_t &Rows, uint32_t &Cols,
             std::string &Err, const std::string &What) {
  if (Shape.size() != 2) {
    Err = What + " is " + std::to_string(Shape.size()) +
          "-D; sparse-encode needs a 2-D weight matrix";
    return false;
  }
  for (double D : Shape) {
    uint64_t N;
    if (!wholeNumber(D, N) || N < 1 || N > 4294967295u) {
      Err = What + " has an invalid shape";
      return false;
    }
  }
  Rows = uint32_t(Shape[0]);
  Cols = uint32_t(Shape[1]);
  return true;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// Finds 'Key': in a Python dict literal and returns the text after it.
bool npyField(const std::string &H, const std::string &Key, std::string &Out) {
  size_t P = H.find("'" + Key + "'");
  if (P == std::string::npos)
    return false;
  P = H.find(':', P);
  if (P == std::string::npos)
    return false;
  Out = H.substr(P + 1);
  size_t B = Out.find_first_not_of(" ");
  Out = B == std::string::npos ? "" : Out.substr(B);
  return true;
}

std::string readNpy(const std::string &Path,
                    const std::vector<unsigned char> &B,
                    const WeightReadOptions &Opts, WeightTensor &Out) {
  if (B.size() < 10)
    return "'" + Path + "' is truncated (no .npy header)";
  int Major = B[6];
  size_t HLenBytes = Major == 1 ? 2 : 4;
  if (Major < 1 || Major > 3)
    return "'" + Path + "' has unsupported .npy version " +
           std::to_string(Major);
  size_t HStart = 8 + HLenBytes;
  if (B.size() < HStart)
    return "'" + Path + "' is truncated (no .npy header)";
  size_t HLen = size_t(le(&B[8], int(HLenBytes)));
  if (B.size() < HStart + HLen)
    return "'" + Path + "' is truncated (.npy header cut short)";
  std::string H(B.begin() + HStart, B.begin() + HStart + HLen);
  std::string Descr, Fortran, ShapeText;
  if (!npyField(H, "descr", Descr) || !npyField(H, "shape", ShapeText))
    return "'" + Path + "' has a malformed .npy header";
  bool FortranOrder = npyField(H, "fortran_order", Fortran) &&
                      Fortran.compare(0, 4, "True") == 0;
  // The dtype is a quoted string: '<f2'. (Found by fuzzing: an empty or
  // unquoted value made substr throw.)
  size_t DescrEnd = std::string::npos;
  if (!Descr.empty() && (Descr[0] == '\'' || Descr[0] == '"'))
    DescrEnd = Descr.find(Descr[0], 1);
  if (DescrEnd == std::string::npos)
    return "'" + Path + "' has a malformed .npy dtype";
  std::string Type = Descr.substr(1, DescrEnd - 1);
  if (Type == "<f2" || Type == "|f2") {
    Out.Type = ElemType::F16;
  } else if ((Type == "<V2" || Type == "<u2" || Type == "<i2" ||
              Type == "|V2") &&
             Opts.NpyRawAsBF16) {
    Out.Type = ElemType::BF16;
  } else if (Type == "<V2" || Type == "<u2" || Type == "<i2") {
    return "'" + Path + "' has dtype '" + Type +
           "'; pass --bf16 to read its 16-bit values as bf16";
  } else {
    return "'" + Path + "' has unsupported dtype '" + Type +
           "'; sparse-encode reads fp16 ('<f2') or bf16";
  }
  std::vector<double> Shape;
  size_t Open = ShapeText.find('('), Close = ShapeText.find(')');
  if (Open == std::string::npos || Close == std::string::npos)
    return "'" + Path + "' has a malformed .npy shape";
  std::string Dims = ShapeText.substr(Open + 1, Close - Open - 1);
  for (size_t P = 0; P < Dims.size();) {
    while (P < Dims.size() && (Dims[P] == ' ' || Dims[P] == ','))
      ++P;
    if (P >= Dims.size())
      break;
    size_t E = P;
    while (E < Dims.size() && std::isdigit(static_cast<unsigned char>(Dims[E])))
      ++E;
    if (E == P)
      return "'" + Path + "' has a malformed .npy shape";
    Shape.push_back(std::strtod(Dims.substr(P, E - P).c_str(), nullptr));
    P = E;
  }
  std::string Err;
  if (!shape2D(Shape, Out.Rows, Out.Cols, Err, "the array in '" + Path + "'"))
    return Err;
  uint64_t N = uint64_t(Out.Rows) * Out.Cols;
  size_t DataStart = HStart + HLen;
  // Rows x Cols can pass 2^63, where N * 2 wraps around (the check passed
  // and the vector below was sized for 2^63 values).
  if ((B.size() - DataStart) / 2 < N)
    return "'" + Path + "' is truncated: the header promises " +
           (N <= UINT64_MAX / 2 ? std::to_string(N * 2) + " data bytes"
                                : std::to_string(N) + " 16-bit values") +
           ", the file has " + std::to_string(B.size() - DataStart);
  Out.Data.resize(N);
  const unsigned char *D = B.data() + DataStart;
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t Src = I;
    if (FortranOrder) // element (r, c) sits at c * Rows + r
      Src = (I % Out.Cols) * Out.Rows + I / Out.Cols;
    Out.Data[I] = uint16_t(D[2 * Src] | D[2 * Src + 1] << 8);
  }
  Out.Name = "array";
  return "";
}

//===----------------------------------------------------------------------===//
// .safetensors
//===----------------------------------------------------------------------===//

std::string parseSafetensorsHeader(const std::string &Path,
                                   const std::vector<unsigned char> &B,
                                   Json &Header, size_t &DataStart) {
  if (B.size() < 8)
    return "'" + Path + "' is truncated (no safetensors header length)";
  uint64_t N = le(B.data(), 8);
  if (N > B.size() - 8)
    return "'" + Path + "' is not a safetensors file or is truncated "
           "(header length " + std::to_string(N) + " exceeds the file)";
  std::string Text(B.begin() + 8, B.begin() + 8 + N);
  std::string ParseError;
  Header = Json::parse(Text, ParseError);
  if (Header.kind() != Json::Object)
    return "'" + Path + "' has a malformed safetensors header";
  DataStart = 8 + N;
  return "";
}

std::string describe(const std::string &Name, const Json &T) {
  const Json *DT = T.find("dtype"), *Sh = T.find("shape");
  std::string S = Name + " " + (DT ? DT->string() : "?") + " [";
  if (Sh)
    for (size_t I = 0; I < Sh->items().size(); ++I) {
      uint64_t N;
      S += (I ? ", " : "") + (wholeNumber(Sh->items()[I].number(), N)
                                  ? std::to_string(N)
                                  : std::string("?"));
    }
  return S + "]";
}

std::string readSafetensors(const std::string &Path,
                            const std::vector<unsigned char> &B,
                            const WeightReadOptions &Opts, WeightTensor &Out) {
  Json Header;
  size_t DataStart;
  std::string Err = parseSafetensorsHeader(Path, B, Header, DataStart);
  if (!Err.empty())
    return Err;
  std::vector<const Json::Member *> Tensors;
  for (const Json::Member &M : Header.members())
    if (M.first != "__metadata__")
      Tensors.push_back(&M);
  const Json::Member *Pick = nullptr;
  if (Opts.TensorName.empty()) {
    if (Tensors.size() != 1) {
      std::string Names;
      for (size_t I = 0; I < Tensors.size() && I < 8; ++I)
        Names += (I ? ", '" : "'") + Tensors[I]->first + "'";
      return "'" + Path + "' holds " + std::to_string(Tensors.size()) +
             " tensors; choose one with --tensor (" + Names + ")";
    }
    Pick = Tensors[0];
  } else {
    for (auto *T : Tensors)
      if (T->first == Opts.TensorName)
        Pick = T;
    if (!Pick)
      return "'" + Path + "' has no tensor named '" + Opts.TensorName + "'";
  }
  const Json &T = Pick->second;
  const Json &DT = T["dtype"], &Sh = T["shape"], &Off = T["data_offsets"];
  if (DT.kind() != Json::String || Sh.kind() != Json::Array ||
      Off.kind() != Json::Array || Off.items().size() != 2)
    return "tensor '" + Pick->first + "' in '" + Path +
           "' has a malformed entry";
  if (DT.string() == "F16")
    Out.Type = ElemType::F16;
  else if (DT.string() == "BF16")
    Out.Type = ElemType::BF16;
  else
    return "tensor '" + Pick->first + "' has unsupported dtype " +
           DT.string() + "; sparse-encode reads F16 or BF16";
  std::vector<double> Shape;
  for (const Json &D : Sh.items())
    Shape.push_back(D.number());
  if (!shape2D(Shape, Out.Rows, Out.Cols, Err,
               "tensor '" + Pick->first + "'"))
    return Err;
  uint64_t Begin, End;
  uint64_t N = uint64_t(Out.Rows) * Out.Cols;
  if (!wholeNumber(Off.items()[0].number(), Begin) ||
      !wholeNumber(Off.items()[1].number(), End) || End < Begin ||
      (End - Begin) % 2 != 0 || (End - Begin) / 2 != N)
    return "tensor '" + Pick->first + "' has data offsets that do not match "
           "its shape";
  if (End > B.size() - DataStart)
    return "'" + Path + "' is truncated: tensor '" + Pick->first +
           "' ends past the end of the file";
  Out.Data.resize(N);
  const unsigned char *D = B.data() + DataStart + Begin;
  for (uint64_t I = 0; I < N; ++I)
    Out.Data[I] = uint16_t(D[2 * I] | D[2 * I + 1] << 8);
  Out.Name = Pick->first;
  return "";
}

} // namespace

std::string readWeightFile(const std::string &Path,
                           const WeightReadOptions &Opts, WeightTensor &Out) {
  std::vector<unsigned char> B;
  std::string Err;
  if (!readFile(Path, B, Err))
    return Err;
  static const unsigned char NpyMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (B.size() >= 6 && std::memcmp(B.data(), NpyMagic, 6) == 0)
    return readNpy(Path, B, Opts, Out);
  if (endsWith(Path, ".npy"))
    return "'" + Path + "' is not a .npy file (bad magic)";
  if (endsWith(Path, ".safetensors"))
    return readSafetensors(Path, B, Opts, Out);
  return "'" + Path + "' is neither .npy (no \\x93NUMPY magic) nor "
         ".safetensors; name safetensors files *.safetensors";
}

std::string listSafetensors(const std::string &Path,
                            std::vector<std::string> &Lines) {
  std::vector<unsigned char> B;
  std::string Err;
  if (!readFile(Path, B, Err))
    return Err;
  Json Header;
  size_t DataStart;
  Err = parseSafetensorsHeader(Path, B, Header, DataStart);
  if (!Err.empty())
    return Err;
  for (const Json::Member &M : Header.members())
    if (M.first != "__metadata__")
      Lines.push_back(describe(M.first, M.second));
  return "";
}

} // namespace sparse
} // namespace cudaopt
