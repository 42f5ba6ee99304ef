// Every refusal happens here, before any launch, with a message that names the rule broken.
#include <cstdint>
#include <string>

#include "core/dispatch.hpp"

namespace pipegemm {
namespace {

std::string fmt_i(int64_t v) { return std::to_string(v); }

bool valid_combo(const Problem& p) {
  // (a, b, acc, d) combinations the library knows how to compute.
  auto is = [&](DType a, DType acc, DType d) {
    return p.a_type == a && p.b_type == a && p.acc_type == acc && p.d_type == d;
  };
  return is(DType::f16, DType::f16, DType::f16) || is(DType::f16, DType::f32, DType::f16) ||
         is(DType::f16, DType::f32, DType::f32) || is(DType::bf16, DType::f32, DType::bf16) ||
         is(DType::bf16, DType::f32, DType::f32) || is(DType::i8, DType::i32, DType::i32) ||
         is(DType::i8, DType::i32, DType::f32) || is(DType::f32, DType::f32, DType::f32);
}

}  // namespace

Status validate_problem(const Problem& in) {
  if (in.m <= 0 || in.n <= 0 || in.k <= 0)
    return Status::error(StatusCode::invalid_argument,
                         "sizes must be positive (got M=" + fmt_i(in.m) + " N=" + fmt_i(in.n) +
                             " K=" + fmt_i(in.k) + ")");
  if (in.m > INT32_MAX || in.n > INT32_MAX || in.k > INT32_MAX)
    return Status::error(StatusCode::invalid_argument, "each of M, N, K must be < 2^31");
  Problem p = in.normalized();
  struct { const char* name; int64_t ld, min; } lds[] = {
      {"lda", p.lda, p.a_layout == Layout::RowMajor ? p.k : p.m},
      {"ldb", p.ldb, p.b_layout == Layout::RowMajor ? p.k : p.n},
      {"ldd", p.ldd, p.d_layout == Layout::RowMajor ? p.n : p.m}};
  for (auto& l : lds)
    if (l.ld < l.min)
      return Status::error(StatusCode::invalid_argument,
                           std::string(l.name) + "=" + fmt_i(l.ld) +
                               " is smaller than a row (" + fmt_i(l.min) + " elements)");
  if (!valid_combo(p))
    return Status::error(StatusCode::not_supported,
                         std::string("unsupported type combination A=") + to_string(p.a_type) +
                             " B=" + to_string(p.b_type) + " acc=" + to_string(p.acc_type) +
                             " D=" + to_string(p.d_type));
  return Status::success();
}

namespace detail {
Status accepts(const Variant& v, const Problem& p, int sm, const void* A, const void* B, const void* D) {
  auto refuse = [&](std::string why) {
    return Status::error(StatusCode::not_supported, v.name + ": " + why);
  };
  if (sm != 0 && sm < v.min_sm)
    return refuse("needs sm_" + std::to_string(v.min_sm) + " or newer, the device is sm_" +
                  std::to_string(sm));
  if (sm != 0 && v.max_sm != 0 && sm > v.max_sm)
    return refuse("built for sm_" + std::to_string(v.max_sm) + "a only, the device is sm_" +
                  std::to_string(sm));
  if (p.a_type != v.a_type || p.b_type != v.b_type || p.d_type != v.d_type ||
      p.acc_type != v.acc_type)
    return refuse(std::string("computes A=") + to_string(v.a_type) + " acc=" +
                  to_string(v.acc_type) + " D=" + to_string(v.d_type) + ", the problem asks A=" +
                  to_string(p.a_type) + " acc=" + to_string(p.acc_type) + " D=" +
                  to_string(p.d_type));
  const Requirements& r = v.req;
  if (!r.any_layout && (p.a_layout != Layout::RowMajor || p.b_layout != Layout::RowMajor ||
                        p.d_layout != Layout::RowMajor))
    return refuse("takes only K-major A (M,K) and B (N,K) and row-major D (the TN GEMM)");
  if (p.m % r.m_multiple)
    return refuse("M=" + fmt_i(p.m) + " is not a multiple of " + fmt_i(r.m_multiple));
  if (p.n % r.n_multiple)
    return refuse("N=" + fmt_i(p.n) + " is not a multiple of " + fmt_i(r.n_multiple));
  if (p.k % r.k_multiple)
    return refuse("K=" + fmt_i(p.k) + " is not a multiple of " + fmt_i(r.k_multiple));
  {
    struct { const char* n; int64_t v; int mult; DType t; } lds[] = {{"lda", p.lda, r.ld_multiple, p.a_type},
                                                                     {"ldb", p.ldb, r.ld_multiple, p.b_type},
                                                                     {"ldd", p.ldd, r.ldd_mult(), p.d_type}};
    for (auto& l : lds)
      if (l.mult > 1 && l.v % l.mult)
        return refuse(std::string(l.n) + "=" + fmt_i(l.v) + " is not a multiple of " + fmt_i(l.mult) +
                      " elements (" + fmt_i(int64_t(l.mult) * dtype_bytes(l.t)) + "-byte vectors)");
    struct { const char* n; const void* ptr; int align; } ptrs[] = {
        {"A", A, r.ptr_align_bytes}, {"B", B, r.ptr_align_bytes}, {"D", D, r.d_align()}};
    for (auto& q : ptrs)
      if (q.align > 1 && q.ptr && reinterpret_cast<uintptr_t>(q.ptr) % uintptr_t(q.align))
        return refuse(std::string("pointer ") + q.n + " is not " + fmt_i(q.align) + "-byte aligned");
  }
  if (v.tile.bm > 0) {  // grid limits: x = N tiles (2^31-1), y = M tiles (65535)
    int64_t mt = (p.m + v.tile.bm - 1) / v.tile.bm;
    if (mt > 65535) return refuse("M=" + fmt_i(p.m) + " needs more than 65535 row tiles");
  }
  if (!v.launch) return refuse("has no launcher in this build");
  return Status::success();
}
}  // namespace detail

Status check_variant(const Variant& v, const Problem& in, int sm, const void* A, const void* B,
                     const void* D) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  return detail::accepts(v, in.normalized(), sm, A, B, D);
}

const Variant* choose_variant(const Problem& p, int sm, const void* A, const void* B,
                              const void* D, std::string* why_not) {
  if (Status s = validate_problem(p); !s.ok()) {
    if (why_not) *why_not = "  " + s.message + "\n";
    return nullptr;
  }
  return detail::choose(p.normalized(), sm, A, B, D, why_not);
}

}  // namespace pipegemm
