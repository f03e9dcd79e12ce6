//===- Compare.cpp - Compare a variant's outputs with the baseline's -----===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace co_runtime {

std::string CompareResult::describe(const std::string &Buffer) const {
  if (Equal)
    return Buffer + ": equal (max rel error " + std::to_string(MaxRelError) +
           ")";
  char Buf[256];
  std::snprintf(Buf, sizeof(Buf),
                "%s: %zu elements differ; first at [%zu]: expected %.9g, got "
                "%.9g",
                Buffer.c_str(), Mismatches, FirstIndex, FirstExpected,
                FirstActual);
  return Buf;
}

/// fp32 outputs dominate tuning; compare them without per-element decoding.
static CompareResult compareF32(const float *A, const float *B, size_t Count,
                                double RelTol) {
  CompareResult R;
  float Scale = 0;
  for (size_t I = 0; I < Count; ++I)
    if (std::isfinite(A[I]))
      Scale = std::max(Scale, std::fabs(A[I]));
  const float Floor = 1e-3f * (Scale > 0 ? Scale : 1.0f);
  const float Tol = static_cast<float>(RelTol);
  float MaxRel = 0;
  for (size_t I = 0; I < Count; ++I) {
    float X = A[I], Y = B[I];
    bool Ok;
    if (std::isnan(X))
      Ok = std::isnan(Y);
    else if (!std::isfinite(X) || !std::isfinite(Y))
      Ok = X == Y;
    else {
      float Ref = std::max(std::fabs(X), Floor);
      float Err = std::fabs(X - Y);
      Ok = Err <= Tol * Ref;
      MaxRel = std::max(MaxRel, Err / Ref);
    }
    if (Ok)
      continue;
    if (R.Mismatches == 0) {
      R.FirstIndex = I;
      R.FirstExpected = X;
      R.FirstActual = Y;
    }
    ++R.Mismatches;
    R.Equal = false;
  }
  R.MaxRelError = MaxRel;
  return R;
}

double ulpF32(double X) {
  X = std::fabs(X);
  if (!(X > 0) || !std::isfinite(X))
    return std::ldexp(1.0, -149);
  int E = 0;
  std::frexp(X, &E); // X = m * 2^E, 0.5 <= m < 1.
  return std::ldexp(1.0, std::max(E - 24, -149));
}

CompareResult compareBuffers(const void *Expected, const void *Actual,
                             size_t Count, DType T, double RelTol) {
  if (T == DType::F32)
    return compareF32(static_cast<const float *>(Expected),
                      static_cast<const float *>(Actual), Count, RelTol);
  CompareResult R;
  double Scale = 0;
  for (size_t I = 0; I < Count; ++I) {
    double A = loadAsDouble(Expected, I, T);
    if (std::isfinite(A))
      Scale = std::max(Scale, std::fabs(A));
  }
  // Values far below the output's magnitude are compared absolutely: a
  // reordered sum that lands near zero has a large relative but tiny absolute
  // error.
  const double Floor = isFloating(T) ? 1e-3 * (Scale > 0 ? Scale : 1.0) : 0.0;
  for (size_t I = 0; I < Count; ++I) {
    double A = loadAsDouble(Expected, I, T);
    double B = loadAsDouble(Actual, I, T);
    bool Ok;
    if (!isFloating(T)) {
      Ok = A == B;
    } else if (std::isnan(A)) {
      Ok = std::isnan(B); // Both unwritten (poison) or both NaN.
    } else if (!std::isfinite(A) || !std::isfinite(B)) {
      Ok = A == B;
    } else {
      double Err = std::fabs(A - B);
      double Ref = std::max(std::fabs(A), Floor);
      Ok = Err <= RelTol * Ref;
      if (Ref > 0)
        R.MaxRelError = std::max(R.MaxRelError, Err / Ref);
    }
    if (Ok)
      continue;
    if (R.Mismatches == 0) {
      R.FirstIndex = I;
      R.FirstExpected = A;
      R.FirstActual = B;
    }
    ++R.Mismatches;
    R.Equal = false;
  }
  return R;
}

} // namespace co_runtime
