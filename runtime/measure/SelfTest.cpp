//===- SelfTest.cpp - CPU checks of the measurement worker's host code ----===//
//
// Part of cuda-opt's runtime. The verdicts the worker gives depend on its
// host-side pieces: dtype conversions, the comparison rules, and the JSON it
// reads and writes. They need no GPU, so they are checked here on every CI
// run (test/Runtime/measure-selftest.test).
//
//===----------------------------------------------------------------------===//
#include "Compare.h"
#include "DType.h"
#include "Json.h"
#include "Stats.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

using namespace co_runtime;

static int Failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::printf("FAILED: %s (line %d)\n", #cond, __LINE__);                  \
      ++Failures;                                                              \
    }                                                                          \
  } while (0)

static void testHalfRoundTrip() {
  // Every finite fp16 value survives decode -> encode unchanged.
  for (unsigned Bits = 0; Bits < 0x10000; ++Bits) {
    uint16_t H = static_cast<uint16_t>(Bits);
    if ((H & 0x7C00) == 0x7C00)
      continue; // Inf/NaN
    double V = loadAsDouble(&H, 0, DType::F16);
    uint16_t Back = 0;
    storeFromDouble(&Back, 0, DType::F16, V);
    if (Back != H) {
      std::printf("FAILED: fp16 0x%04x -> %g -> 0x%04x\n", H, V, Back);
      ++Failures;
      return;
    }
  }
  uint16_t H;
  storeFromDouble(&H, 0, DType::F16, 1.0);
  EXPECT(H == 0x3C00);
  storeFromDouble(&H, 0, DType::F16, 65504.0);
  EXPECT(H == 0x7BFF);
  storeFromDouble(&H, 0, DType::F16, 1e6); // Overflow -> Inf.
  EXPECT(H == 0x7C00);
  // Round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  storeFromDouble(&H, 0, DType::F16, 1.0 + std::ldexp(1.0, -11));
  EXPECT(H == 0x3C00);
}

static void testBf16() {
  uint16_t B;
  storeFromDouble(&B, 0, DType::BF16, 1.0);
  EXPECT(B == 0x3F80);
  EXPECT(loadAsDouble(&B, 0, DType::BF16) == 1.0);
  storeFromDouble(&B, 0, DType::BF16, -2.5);
  EXPECT(loadAsDouble(&B, 0, DType::BF16) == -2.5);
}

static void testCompareRules() {
  const float NaN = std::numeric_limits<float>::quiet_NaN();
  const float Inf = std::numeric_limits<float>::infinity();
  std::vector<float> A = {1.0f, -2.0f, 1000.0f, NaN, 0.0f};
  std::vector<float> B = A;
  EXPECT(compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // Within fp32 tolerance.
  B[2] = 1000.0f * (1 + 5e-6f);
  EXPECT(compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // Beyond it.
  B[2] = 1000.0f * (1 + 1e-4f);
  CompareResult R = compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5);
  EXPECT(!R.Equal && R.Mismatches == 1 && R.FirstIndex == 2);
  // NaN where the baseline is finite fails (an unwritten, poisoned output).
  B = A;
  B[0] = NaN;
  EXPECT(!compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // Inf where the baseline is finite fails.
  B = A;
  B[1] = -Inf;
  EXPECT(!compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // A value where the baseline left the poison (NaN) fails too.
  B = A;
  B[3] = 0.0f;
  EXPECT(!compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // Near-zero values are compared against the output's scale.
  B = A;
  B[4] = 1e-4f; // 1e-4 <= 1e-5 * (1e-3 * 1000) is false -> mismatch.
  EXPECT(!compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  B[4] = 5e-6f; // Within 1e-5 * 1.0.
  EXPECT(compareBuffers(A.data(), B.data(), A.size(), DType::F32, 1e-5).Equal);
  // Integers are exact.
  std::vector<int> I = {1, 2, 3}, J = {1, 2, 4};
  EXPECT(!compareBuffers(I.data(), J.data(), 3, DType::I32, 0).Equal);
  // fp16 at 1e-2.
  std::vector<uint16_t> HA(2), HB(2);
  storeFromDouble(HA.data(), 0, DType::F16, 10.0);
  storeFromDouble(HA.data(), 1, DType::F16, -3.0);
  storeFromDouble(HB.data(), 0, DType::F16, 10.05);
  storeFromDouble(HB.data(), 1, DType::F16, -3.0);
  EXPECT(compareBuffers(HA.data(), HB.data(), 2, DType::F16, 1e-2).Equal);
  storeFromDouble(HB.data(), 0, DType::F16, 10.5);
  EXPECT(!compareBuffers(HA.data(), HB.data(), 2, DType::F16, 1e-2).Equal);
}

static void testJson() {
  std::string Err;
  Json J = Json::parse(
      R"({"variants": [{"id": "v1", "grid": [4, 1, 1]}], "rtol": 1e-3,
          "name": "a\"b\\n", "flag": true, "none": null})",
      Err);
  EXPECT(Err.empty());
  EXPECT(J["variants"].items().size() == 1);
  EXPECT(J["variants"].items()[0]["grid"].items()[0].integer() == 4);
  EXPECT(std::fabs(J["rtol"].number() - 1e-3) < 1e-12);
  EXPECT(J["name"].string() == "a\"b\\n");
  EXPECT(J["flag"].boolean());
  EXPECT(J["none"].isNull());
  EXPECT(J["missing"].isNull());
  // Round trip through dump.
  Json Again = Json::parse(J.dump(2), Err);
  EXPECT(Err.empty() && Again["name"].string() == J["name"].string());
  // Errors name the offset.
  Json Bad = Json::parse("{\"a\": [1, 2}", Err);
  EXPECT(Bad.isNull() && Err.find("offset") == 0);
}

// What the safetensors reader relies on (runtime/sparse/lib/WeightFile.cpp).
static void testJsonObjects() {
  std::string Err;
  // Members in file order; a repeated key kept twice, found last.
  Json J = Json::parse(R"({"b": 1, "a": 2, "b": 3})", Err);
  EXPECT(Err.empty() && J.members().size() == 3);
  EXPECT(J.members()[0].first == "b" && J.members()[1].first == "a");
  EXPECT(J["b"].integer() == 3 && J.find("a") && !J.find("c"));
  // set() replaces in place; dump() sorts by key.
  Json O = Json::object();
  O.set("z", 1).set("y", 2).set("z", 3);
  EXPECT(O.members().size() == 2 && O.members()[0].first == "z");
  EXPECT(O.dump() == R"({"y":2,"z":3})");
  // Nesting is bounded.
  std::string Deep(Json::MaxDepth + 1, '['), Deeper = Deep + "[";
  Deep += std::string(Json::MaxDepth + 1, ']');
  Deeper += std::string(Json::MaxDepth + 2, ']');
  EXPECT(!Json::parse(Deep, Err).isNull());
  Err.clear();
  EXPECT(Json::parse(Deeper, Err).isNull() && !Err.empty());
}

static void testStats() {
  TimingStats S = summarize({5, 1, 4, 2, 3});
  EXPECT(S.MedianMs == 3 && S.MinMs == 1 && S.MaxMs == 5 && S.Runs == 5);
}

int main() {
  testHalfRoundTrip();
  testBf16();
  testCompareRules();
  testJson();
  testJsonObjects();
  testStats();
  if (Failures) {
    std::printf("%d checks failed\n", Failures);
    return 1;
  }
  std::printf("measure self-test: all checks passed\n");
  return 0;
}
