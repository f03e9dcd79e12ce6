//===- Json.cpp - The runtime's JSON reader/writer ------------------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace co_runtime {

const Json &Json::operator[](const std::string &Key) const {
  static const Json NullValue;
  const Json *V = find(Key);
  return V ? *V : NullValue;
}

const Json *Json::find(const std::string &Key) const {
  for (auto It = Members.rbegin(); It != Members.rend(); ++It)
    if (It->first == Key)
      return &It->second;
  return nullptr;
}

Json &Json::set(const std::string &Key, Json V) {
  K = Object;
  for (auto It = Members.rbegin(); It != Members.rend(); ++It)
    if (It->first == Key) {
      It->second = std::move(V);
      return *this;
    }
  Members.emplace_back(Key, std::move(V));
  return *this;
}

static void escapeTo(std::string &Out, const std::string &S) {
  Out += '"';
  for (char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\t': Out += "\\t"; break;
    case '\r': Out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(C) < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
        Out += Buf;
      } else {
        Out += C;
      }
    }
  }
  Out += '"';
}

void Json::dumpTo(std::string &Out, int Indent, int Depth) const {
  auto Newline = [&](int D) {
    if (!Indent)
      return;
    Out += '\n';
    Out.append(static_cast<size_t>(Indent * D), ' ');
  };
  switch (K) {
  case Null: Out += "null"; break;
  case Bool: Out += Flag ? "true" : "false"; break;
  case Number: {
    if (!std::isfinite(Num)) {
      Out += "null";
      break;
    }
    char Buf[40];
    if (Num == std::floor(Num) && std::fabs(Num) < 1e15)
      std::snprintf(Buf, sizeof(Buf), "%.0f", Num);
    else
      std::snprintf(Buf, sizeof(Buf), "%.9g", Num);
    Out += Buf;
    break;
  }
  case String: escapeTo(Out, Str); break;
  case Array: {
    Out += '[';
    for (size_t I = 0; I < Items.size(); ++I) {
      if (I)
        Out += ',';
      Newline(Depth + 1);
      Items[I].dumpTo(Out, Indent, Depth + 1);
    }
    if (!Items.empty())
      Newline(Depth);
    Out += ']';
    break;
  }
  case Object: {
    Out += '{';
    std::vector<const Member *> Sorted;
    for (const Member &M : Members)
      Sorted.push_back(&M);
    auto ByKey = [](const Member *A, const Member *B) {
      return A->first < B->first;
    };
    std::stable_sort(Sorted.begin(), Sorted.end(), ByKey);
    bool First = true;
    for (const Member *KV : Sorted) {
      if (!First)
        Out += ',';
      First = false;
      Newline(Depth + 1);
      escapeTo(Out, KV->first);
      Out += Indent ? ": " : ":";
      KV->second.dumpTo(Out, Indent, Depth + 1);
    }
    if (!Members.empty())
      Newline(Depth);
    Out += '}';
    break;
  }
  }
}

std::string Json::dump(int Indent) const {
  std::string Out;
  dumpTo(Out, Indent, 0);
  return Out;
}

struct Json::Parser {
  const std::string &T;
  size_t P = 0;
  std::string Err;

  void ws() {
    while (P < T.size() && (T[P] == ' ' || T[P] == '\n' || T[P] == '\t' ||
                            T[P] == '\r'))
      ++P;
  }
  bool fail(const char *Why) {
    if (Err.empty())
      Err = "offset " + std::to_string(P) + ": " + Why;
    return false;
  }
  bool literal(const char *L) {
    size_t N = std::char_traits<char>::length(L);
    if (T.compare(P, N, L) != 0)
      return fail("invalid literal");
    P += N;
    return true;
  }
  bool str(std::string &Out) {
    if (T[P] != '"')
      return fail("expected string");
    ++P;
    while (P < T.size() && T[P] != '"') {
      char C = T[P++];
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (P >= T.size())
        return fail("unterminated escape");
      char E = T[P++];
      switch (E) {
      case 'n': Out += '\n'; break;
      case 't': Out += '\t'; break;
      case 'r': Out += '\r'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'u': {
        if (P + 4 > T.size())
          return fail("bad \\u escape");
        unsigned Code = std::strtoul(T.substr(P, 4).c_str(), nullptr, 16);
        P += 4;
        // Only ASCII is ever written by cuda-opt; keep others as '?'.
        Out += Code < 0x80 ? static_cast<char>(Code) : '?';
        break;
      }
      default: Out += E;
      }
    }
    if (P >= T.size())
      return fail("unterminated string");
    ++P;
    return true;
  }
  bool value(Json &Out, int Depth) {
    if (Depth > Json::MaxDepth)
      return fail("nested too deeply");
    ws();
    if (P >= T.size())
      return fail("unexpected end");
    char C = T[P];
    if (C == '{') {
      ++P;
      Out = Json::object();
      ws();
      if (P < T.size() && T[P] == '}') {
        ++P;
        return true;
      }
      while (true) {
        ws();
        std::string Key;
        if (!str(Key))
          return false;
        ws();
        if (P >= T.size() || T[P] != ':')
          return fail("expected ':'");
        ++P;
        Json V;
        if (!value(V, Depth + 1))
          return false;
        Out.Members.emplace_back(std::move(Key), std::move(V));
        ws();
        if (P < T.size() && T[P] == ',') {
          ++P;
          continue;
        }
        if (P < T.size() && T[P] == '}') {
          ++P;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (C == '[') {
      ++P;
      Out = Json::array();
      ws();
      if (P < T.size() && T[P] == ']') {
        ++P;
        return true;
      }
      while (true) {
        Json V;
        if (!value(V, Depth + 1))
          return false;
        Out.push(std::move(V));
        ws();
        if (P < T.size() && T[P] == ',') {
          ++P;
          continue;
        }
        if (P < T.size() && T[P] == ']') {
          ++P;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (C == '"') {
      std::string S;
      if (!str(S))
        return false;
      Out = Json(std::move(S));
      return true;
    }
    if (C == 't') {
      Out = Json(true);
      return literal("true");
    }
    if (C == 'f') {
      Out = Json(false);
      return literal("false");
    }
    if (C == 'n') {
      Out = Json();
      return literal("null");
    }
    char *End = nullptr;
    double D = std::strtod(T.c_str() + P, &End);
    if (End == T.c_str() + P)
      return fail("expected a value");
    P = static_cast<size_t>(End - T.c_str());
    Out = Json(D);
    return true;
  }
};

Json Json::parse(const std::string &Text, std::string &Error) {
  Parser Ps{Text, 0, std::string()};
  Json Out;
  if (!Ps.value(Out, 0)) {
    Error = Ps.Err;
    return Json();
  }
  Ps.ws();
  if (Ps.P != Text.size()) {
    Error = "offset " + std::to_string(Ps.P) + ": trailing characters";
    return Json();
  }
  return Out;
}

} // namespace co_runtime
