//===- Json.h - The runtime's JSON reader/writer ----------------*- C++ -*-===//
//
// Part of cuda-opt's runtime. The runtime builds without LLVM (the GPU
// machine has none), so it carries one small JSON value type: the
// measurement worker reads its job and writes its result with it, and the
// sparse format library reads safetensors headers with it.
//
// Objects keep their members in the order they were read or first set
// (safetensors lists its tensors in file order). A parsed object keeps a key
// that occurs twice twice; lookups, and set(), find its last occurrence.
// dump() writes members sorted by key, as llvm::json does, so a file does not
// depend on the order its fields were set.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_COMMON_JSON_H
#define CUDA_OPT_RUNTIME_COMMON_JSON_H

#include <string>
#include <utility>
#include <vector>

namespace co_runtime {

class Json {
public:
  enum Kind { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  Json(bool B) : K(Bool), Flag(B) {}
  Json(double D) : K(Number), Num(D) {}
  Json(int I) : K(Number), Num(I) {}
  Json(long long I) : K(Number), Num(static_cast<double>(I)) {}
  Json(const char *S) : K(String), Str(S) {}
  Json(std::string S) : K(String), Str(std::move(S)) {}
  static Json array() {
    Json J;
    J.K = Array;
    return J;
  }
  static Json object() {
    Json J;
    J.K = Object;
    return J;
  }

  Kind kind() const { return K; }
  bool isNull() const { return K == Null; }
  double number(double Default = 0) const { return K == Number ? Num : Default; }
  long long integer(long long Default = 0) const {
    return K == Number ? static_cast<long long>(Num) : Default;
  }
  bool boolean(bool Default = false) const { return K == Bool ? Flag : Default; }
  /// The string of a String value; empty for every other kind.
  const std::string &string() const { return Str; }
  const std::vector<Json> &items() const { return Items; }
  /// An object's members in the order they were read or first set.
  const std::vector<Member> &members() const { return Members; }

  /// Member lookup; a missing member is a Null value.
  const Json &operator[](const std::string &Key) const;
  /// Member lookup that tells a missing member from a null one.
  const Json *find(const std::string &Key) const;
  /// Makes this an object and sets Key (in place when it exists).
  Json &set(const std::string &Key, Json V);
  Json &push(Json V) {
    K = Array;
    Items.push_back(std::move(V));
    return *this;
  }

  /// Indent 0: one line; otherwise that many spaces per level.
  std::string dump(int Indent = 0) const;
  /// Parses Text; on error returns Null and sets Error to "offset N: reason".
  /// Values nest at most MaxDepth levels below the top one.
  static Json parse(const std::string &Text, std::string &Error);
  static constexpr int MaxDepth = 32;

private:
  struct Parser;
  void dumpTo(std::string &Out, int Indent, int Depth) const;
  Kind K = Null;
  bool Flag = false;
  double Num = 0;
  std::string Str;
  std::vector<Json> Items;
  std::vector<Member> Members;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_COMMON_JSON_H
