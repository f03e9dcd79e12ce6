//===- Json.h - Minimal JSON reader/writer for the measurement worker -----===//
//
// Part of cuda-opt's runtime. The worker is built with nvcc alone on the GPU
// machine (no LLVM there), so it carries its own small JSON value type: enough
// for job files written by cuda-opt and result files read back by it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_JSON_H
#define CUDA_OPT_RUNTIME_MEASURE_JSON_H

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace co_runtime {

class Json {
public:
  enum Kind { Null, Bool, Number, String, Array, Object };

  Json() = default;
  Json(bool B) : K(Bool), Flag(B) {}
  Json(double D) : K(Number), Num(D) {}
  Json(int I) : K(Number), Num(I) {}
  Json(long long I) : K(Number), Num(static_cast<double>(I)) {}
  Json(const char *S) : K(String), Str(S) {}
  Json(std::string S) : K(String), Str(std::move(S)) {}
  static Json array() { Json J; J.K = Array; return J; }
  static Json object() { Json J; J.K = Object; return J; }

  Kind kind() const { return K; }
  bool isNull() const { return K == Null; }
  double number(double Default = 0) const { return K == Number ? Num : Default; }
  long long integer(long long Default = 0) const {
    return K == Number ? static_cast<long long>(Num) : Default;
  }
  bool boolean(bool Default = false) const { return K == Bool ? Flag : Default; }
  const std::string &string() const { return Str; }
  const std::vector<Json> &items() const { return Items; }
  const std::map<std::string, Json> &members() const { return Members; }

  /// Member lookup; a missing member is a Null value.
  const Json &operator[](const std::string &Key) const;
  Json &set(const std::string &Key, Json V) {
    K = Object;
    Members[Key] = std::move(V);
    return *this;
  }
  Json &push(Json V) {
    K = Array;
    Items.push_back(std::move(V));
    return *this;
  }

  std::string dump(int Indent = 0) const;
  /// Parse text; on error returns Null and sets Error to "offset N: reason".
  static Json parse(const std::string &Text, std::string &Error);

private:
  void dumpTo(std::string &Out, int Indent, int Depth) const;
  Kind K = Null;
  bool Flag = false;
  double Num = 0;
  std::string Str;
  std::vector<Json> Items;
  std::map<std::string, Json> Members;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_JSON_H
