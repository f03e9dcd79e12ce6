//===- KernelModelText.cpp - Human-readable kernel model -----------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelModelText.h"

using namespace llvm;

namespace cuda_opt {

static StringRef str(const json::Object &O, StringRef Key) {
  return O.getString(Key).value_or("");
}

void printKernelModelText(const json::Object &M, raw_ostream &OS) {
  OS << "kernel " << str(M, "name") << " at " << str(M, "location") << "\n";
  if (!str(M, "incomplete").empty())
    OS << "  incomplete: " << str(M, "incomplete") << "\n";
  if (const json::Object *I = M.getObject("idiom"))
    OS << "  idiom: " << str(*I, "kind") << " (" << str(*I, "evidence")
       << ")\n";
  if (const json::Array *Ps = M.getArray("parameters"))
    for (const json::Value &V : *Ps) {
      const json::Object &P = *V.getAsObject();
      OS << "  param " << str(P, "type") << " " << str(P, "name") << "\n";
    }
  if (const json::Array *Ts = M.getArray("thread_indices"))
    for (const json::Value &V : *Ts) {
      const json::Object &T = *V.getAsObject();
      OS << "  index " << str(T, "name") << " = " << str(T, "form") << " ("
         << str(T, "role") << ")\n";
    }
  if (const json::Array *Ls = M.getArray("loops"))
    for (const json::Value &V : *Ls) {
      const json::Object &L = *V.getAsObject();
      OS << "  loop " << str(L, "induction_var") << " from " << str(L, "init")
         << " while " << str(L, "compare") << " " << str(L, "bound") << " step "
         << str(L, "step") << ", trips ";
      if (std::optional<int64_t> N = L.getInteger("trip_count"))
        OS << *N;
      else
        OS << str(L, "trip_count_expr");
      if (L.getBoolean("grid_stride").value_or(false))
        OS << " [grid-stride]";
      OS << " at " << str(L, "location") << "\n";
    }
  if (const json::Array *As = M.getArray("accesses"))
    for (const json::Value &V : *As) {
      const json::Object &A = *V.getAsObject();
      OS << "  " << str(A, "space") << " " << str(A, "kind") << " "
         << str(A, "text") << ": " << str(A, "pattern");
      if (!str(A, "index_form").empty())
        OS << " (index " << str(A, "index_form") << ")";
      OS << "\n";
    }
  if (const json::Object *S = M.getObject("shared_memory"))
    if (std::optional<int64_t> B = S->getInteger("static_bytes"))
      if (*B > 0 || S->getBoolean("dynamic").value_or(false))
        OS << "  shared memory: " << *B << " bytes static"
           << (S->getBoolean("dynamic").value_or(false) ? " + dynamic" : "")
           << "\n";
  if (const json::Array *Bs = M.getArray("barriers"))
    if (!Bs->empty())
      OS << "  barriers: " << Bs->size() << "\n";
  if (const json::Array *As = M.getArray("atomics"))
    if (!As->empty())
      OS << "  atomics: " << As->size() << "\n";
  if (const json::Object *AI = M.getObject("arithmetic_intensity"))
    OS << "  flops per global byte: " << str(*AI, "flops_per_byte_text") << " ("
       << str(*AI, "status") << ")\n";
}

} // namespace cuda_opt
