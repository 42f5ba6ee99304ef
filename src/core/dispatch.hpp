// Between validate.cpp and gemm.cpp: the checks on a problem that is already validated and
// normalized, so a problem is validated once however many variants look at it.
#pragma once

#include <cstdint>
#include <string>

#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::detail {
// The largest power of two (<= 256) dividing the address: what a kernel or cuBLASLt may assume.
inline uint32_t address_alignment(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint32_t al = 256;
  while (al > 1 && a % al) al /= 2;
  return al;
}

// beta != 0 reading C from D itself: the same pointer, ldc, type and batch stride. The one C that
// may share D's bytes (gemm.cpp), the one cublasGemmEx takes, what a variant without c_apart takes.
inline bool c_in_place(const Problem& p, const Operands& x) {
  return p.reads_c() && x.c == x.d && p.ldc == p.ldd && p.c_type == p.d_type && p.stride_c == p.stride_d;
}

// check_variant without re-validating the problem (normalized, D row-major: row_major_d).
Status accepts(const Variant& v, const Problem& p, int sm, const Operands& x);
// The cuBLASLt peer's choices that were not timed (a stored algorithm, the heuristic's first): made
// again at their next call, after the tables changed (cublaslt_peer.cpp; prepare()'s stay).
void forget_untimed_peer_choices();
// All of them, prepare()'s timed ones too (clear_choices).
void forget_peer_choices();
// choose_variant without re-validating the problem (auto: pipegemm/introspect/dispatch.hpp, dispatch.cpp).
const Variant* choose(const Problem& p, int sm, const Operands& x, std::string* why);
}  // namespace pipegemm::detail
