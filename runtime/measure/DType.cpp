//===- DType.cpp - Element types the measurement runtime understands -----===//
//
// Part of cuda-opt's runtime. fp16/bf16 conversions are done by hand so the
// host side needs no CUDA headers.
//
//===----------------------------------------------------------------------===//
#include "DType.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace co_runtime {

DType parseDType(const std::string &N) {
  if (N == "f32" || N == "float") return DType::F32;
  if (N == "f64" || N == "double") return DType::F64;
  if (N == "f16" || N == "half" || N == "__half") return DType::F16;
  if (N == "bf16" || N == "__nv_bfloat16") return DType::BF16;
  if (N == "i8" || N == "char" || N == "int8_t") return DType::I8;
  if (N == "u8" || N == "unsigned char" || N == "uint8_t") return DType::U8;
  if (N == "i32" || N == "int" || N == "int32_t") return DType::I32;
  if (N == "u32" || N == "unsigned int" || N == "unsigned" || N == "uint32_t") return DType::U32;
  if (N == "i64" || N == "long long" || N == "int64_t" || N == "long") return DType::I64;
  if (N == "u64" || N == "unsigned long long" || N == "uint64_t" || N == "size_t") return DType::U64;
  return DType::Invalid;
}

const char *dtypeName(DType T) {
  switch (T) {
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I8: return "i8";
  case DType::U8: return "u8";
  case DType::I32: return "i32";
  case DType::U32: return "u32";
  case DType::I64: return "i64";
  case DType::U64: return "u64";
  case DType::Invalid: break;
  }
  return "invalid";
}

size_t dtypeSize(DType T) {
  switch (T) {
  case DType::I8: case DType::U8: return 1;
  case DType::F16: case DType::BF16: return 2;
  case DType::F32: case DType::I32: case DType::U32: return 4;
  case DType::F64: case DType::I64: case DType::U64: return 8;
  case DType::Invalid: break;
  }
  return 0;
}

bool isFloating(DType T) {
  return T == DType::F32 || T == DType::F64 || T == DType::F16 ||
         T == DType::BF16;
}

double defaultRelTol(DType T) {
  switch (T) {
  case DType::F64: return 1e-12;
  case DType::F32: return 1e-5;
  case DType::F16: case DType::BF16: return 1e-2;
  default: return 0;
  }
}

static float halfToFloat(uint16_t H) {
  uint32_t Sign = (H & 0x8000u) << 16, Exp = (H >> 10) & 0x1F, Man = H & 0x3FF;
  uint32_t Bits;
  if (Exp == 0) {
    if (Man == 0) {
      Bits = Sign;
    } else { // Subnormal: renormalise.
      Exp = 127 - 15 + 1;
      while (!(Man & 0x400)) {
        Man <<= 1;
        --Exp;
      }
      Bits = Sign | (Exp << 23) | ((Man & 0x3FF) << 13);
    }
  } else if (Exp == 31) {
    Bits = Sign | 0x7F800000u | (Man << 13);
  } else {
    Bits = Sign | ((Exp + 127 - 15) << 23) | (Man << 13);
  }
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

static uint16_t floatToHalf(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000u;
  int32_t Exp = static_cast<int32_t>((X >> 23) & 0xFF) - 127 + 15;
  uint32_t Man = X & 0x7FFFFFu;
  if (((X >> 23) & 0xFF) == 0xFF) // Inf/NaN
    return static_cast<uint16_t>(Sign | 0x7C00u | (Man ? 0x200u : 0));
  if (Exp >= 31)
    return static_cast<uint16_t>(Sign | 0x7C00u);
  if (Exp <= 0) {
    if (Exp < -10)
      return static_cast<uint16_t>(Sign);
    Man |= 0x800000u;
    uint32_t Shift = static_cast<uint32_t>(14 - Exp);
    uint32_t Half = Man >> Shift;
    uint32_t Rem = Man & ((1u << Shift) - 1), Mid = 1u << (Shift - 1);
    if (Rem > Mid || (Rem == Mid && (Half & 1)))
      ++Half;
    return static_cast<uint16_t>(Sign | Half);
  }
  uint32_t Half = Sign | (static_cast<uint32_t>(Exp) << 10) | (Man >> 13);
  uint32_t Rem = Man & 0x1FFFu;
  if (Rem > 0x1000u || (Rem == 0x1000u && (Half & 1)))
    ++Half; // May carry into the exponent, which is the right rounding.
  return static_cast<uint16_t>(Half);
}

static float bf16ToFloat(uint16_t B) {
  uint32_t Bits = static_cast<uint32_t>(B) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

static uint16_t floatToBf16(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  if ((X & 0x7F800000u) == 0x7F800000u && (X & 0x7FFFFFu))
    return static_cast<uint16_t>((X >> 16) | 0x40);
  uint32_t Rounding = 0x7FFFu + ((X >> 16) & 1);
  return static_cast<uint16_t>((X + Rounding) >> 16);
}

double loadAsDouble(const void *Base, size_t I, DType T) {
  const char *P = static_cast<const char *>(Base) + I * dtypeSize(T);
  switch (T) {
  case DType::F32: { float V; std::memcpy(&V, P, 4); return V; }
  case DType::F64: { double V; std::memcpy(&V, P, 8); return V; }
  case DType::F16: { uint16_t V; std::memcpy(&V, P, 2); return halfToFloat(V); }
  case DType::BF16: { uint16_t V; std::memcpy(&V, P, 2); return bf16ToFloat(V); }
  case DType::I8: return *reinterpret_cast<const int8_t *>(P);
  case DType::U8: return *reinterpret_cast<const uint8_t *>(P);
  case DType::I32: { int32_t V; std::memcpy(&V, P, 4); return V; }
  case DType::U32: { uint32_t V; std::memcpy(&V, P, 4); return V; }
  case DType::I64: { int64_t V; std::memcpy(&V, P, 8); return static_cast<double>(V); }
  case DType::U64: { uint64_t V; std::memcpy(&V, P, 8); return static_cast<double>(V); }
  case DType::Invalid: break;
  }
  return 0;
}

void storeFromDouble(void *Base, size_t I, DType T, double V) {
  char *P = static_cast<char *>(Base) + I * dtypeSize(T);
  switch (T) {
  case DType::F32: { float F = static_cast<float>(V); std::memcpy(P, &F, 4); break; }
  case DType::F64: std::memcpy(P, &V, 8); break;
  case DType::F16: { uint16_t H = floatToHalf(static_cast<float>(V)); std::memcpy(P, &H, 2); break; }
  case DType::BF16: { uint16_t H = floatToBf16(static_cast<float>(V)); std::memcpy(P, &H, 2); break; }
  case DType::I8: *reinterpret_cast<int8_t *>(P) = static_cast<int8_t>(V); break;
  case DType::U8: *reinterpret_cast<uint8_t *>(P) = static_cast<uint8_t>(V); break;
  case DType::I32: { int32_t X = static_cast<int32_t>(V); std::memcpy(P, &X, 4); break; }
  case DType::U32: { uint32_t X = static_cast<uint32_t>(V); std::memcpy(P, &X, 4); break; }
  case DType::I64: { int64_t X = static_cast<int64_t>(V); std::memcpy(P, &X, 8); break; }
  case DType::U64: { uint64_t X = static_cast<uint64_t>(V); std::memcpy(P, &X, 8); break; }
  case DType::Invalid: break;
  }
}

} // namespace co_runtime
