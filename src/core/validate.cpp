// Every refusal happens here, before any launch, with a message that names the rule broken.
#include <algorithm>
#include <cmath>
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

Status invalid(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

// MatrixView::batch_span() in bytes, in checked arithmetic (that one trusts a validated problem):
// bytes from a matrix's first element to one past its last product's last, or -1 where that passes
// 2^62: no memory holds such a matrix, and a refusal here keeps every later offset (spans, product
// strides, the kernels' int64 indices) from wrapping.
constexpr int64_t kMaxExtentBytes = int64_t(1) << 62;
int64_t extent_bytes(const MatrixView& v, int64_t batch, int esize) {
  const bool row = v.layout == Layout::RowMajor;
  const int64_t outer = row ? v.rows : v.cols, inner = row ? v.cols : v.rows;
  int64_t span, last, total, bytes;
  if (__builtin_mul_overflow(outer - 1, v.ld, &span) || __builtin_add_overflow(span, inner, &span)) return -1;
  if (__builtin_mul_overflow(batch - 1, v.stride, &last) || __builtin_add_overflow(last, span, &total) ||
      __builtin_mul_overflow(total, int64_t(esize), &bytes) || bytes > kMaxExtentBytes)
    return -1;
  return bytes;
}

// alpha, beta and C; the epilogue; the batch's overlaps (of a normalized problem whose sizes,
// leading dimensions, strides and extents are already valid).
Status validate_semantics(const Problem& p) {
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta))
    return invalid("alpha and beta must be finite (got alpha=" + std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) + ")");
  const bool int_d = p.d_type == DType::i32;
  if (int_d) {
    // int32 D: the epilogue is integer arithmetic (cuBLAS's CUBLAS_COMPUTE_32I takes int alpha, beta).
    for (float v : {p.alpha, p.beta})
      if (v != std::nearbyint(v) || std::fabs(v) > 2147483647.f)
        return Status::error(StatusCode::not_supported, "an int32 D takes whole-number alpha and beta (got alpha=" +
                                                            std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) + ")");
    if (p.has_epilogue())
      return Status::error(StatusCode::not_supported,
                           "a bias or an activation needs a floating-point D (the int32 D is exact; use --out-dtype f32)");
  }
  if (p.reads_c()) {
    const DType c = *p.c_type;
    const bool ok = int_d ? c == DType::i32 : (c == p.d_type || c == DType::f32);
    if (!ok)
      return Status::error(StatusCode::not_supported, std::string("C of type ") + to_string(c) + " under a " +
                                                          to_string(p.d_type) + " D: C has D's type or f32");
    const int64_t min = p.d_layout == Layout::RowMajor ? p.n : p.m;
    if (p.ldc < min)
      return invalid("ldc=" + fmt_i(p.ldc) + " is smaller than a row (" + fmt_i(min) + " elements)");
  }
  if (p.bias != Bias::none) {
    const DType b = *p.bias_type;
    if (b != p.d_type && b != DType::f32)
      return Status::error(StatusCode::not_supported, std::string("a bias of type ") + to_string(b) + " under a " +
                                                          to_string(p.d_type) + " D: the bias has D's type or f32");
  }
  if (p.batch > 1) {
    // D's products must not share an element: one after another (stride >= a product's span),
    // or interleaved inside one leading dimension (stride >= a row, all rows within ldd).
    // (C and D have the same layout, so the same row length.)
    const MatrixView d = view_d(p);
    const int64_t row = d.layout == Layout::RowMajor ? d.cols : d.rows;
    auto apart = [&](const MatrixView& v) {
      return v.stride >= v.span() || (v.stride >= row && (p.batch - 1) * v.stride + row <= v.ld);
    };
    if (!apart(d))
      return invalid("stride_d=" + fmt_i(p.stride_d) + " makes D's " + fmt_i(p.batch) +
                     " products overlap (a product spans " + fmt_i(d.span()) + " elements, ldd " + fmt_i(d.ld) + ")");
    if (p.reads_c() && p.stride_c != 0) {
      if (!apart(view_c(p)))
        return invalid("stride_c=" + fmt_i(p.stride_c) + " makes C's products overlap");
    }
  }
  return Status::success();
}

}  // namespace

Status validate_problem(const Problem& in) {
  if (in.m <= 0 || in.n <= 0 || in.k <= 0)
    return Status::error(StatusCode::invalid_argument,
                         "sizes must be positive (got M=" + fmt_i(in.m) + " N=" + fmt_i(in.n) +
                             " K=" + fmt_i(in.k) + ")");
  if (in.m > INT32_MAX || in.n > INT32_MAX || in.k > INT32_MAX)
    return Status::error(StatusCode::invalid_argument, "each of M, N, K must be < 2^31");
  if (in.batch < 1 || in.batch > INT32_MAX)
    return invalid("batch must be in [1, 2^31) (got " + fmt_i(in.batch) + ")");
  struct { const char* name; int64_t v; } strides[] = {
      {"stride_a", in.stride_a}, {"stride_b", in.stride_b}, {"stride_c", in.stride_c}, {"stride_d", in.stride_d}};
  for (auto& st : strides)
    if (st.v < -1) return invalid(std::string(st.name) + "=" + fmt_i(st.v) + ": -1 (packed), 0 (broadcast) or a stride");
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
  struct { const char* name; MatrixView v; DType t; bool used; } mats[] = {
      {"A", view_a(p), p.a_type, true}, {"B", view_b(p), p.b_type, true},
      {"C", view_c(p), p.c_type.value_or(p.d_type), p.reads_c() && p.ldc >= 1}, {"D", view_d(p), p.d_type, true}};
  for (auto& x : mats)
    if (x.used && extent_bytes(x.v, p.batch, dtype_bytes(x.t)) < 0)
      return invalid(std::string(x.name) + " spans 2^62 bytes or more (" + fmt_i(x.v.rows) + "x" + fmt_i(x.v.cols) +
                     ", ld " + fmt_i(x.v.ld) +
                     (p.batch > 1 ? ", product stride " + fmt_i(x.v.stride) + ", batch " + fmt_i(p.batch) : std::string()) +
                     "): no memory holds it");
  if (!valid_combo(p))
    return Status::error(StatusCode::not_supported,
                         std::string("unsupported type combination A=") + to_string(p.a_type) +
                             " B=" + to_string(p.b_type) + " acc=" + to_string(p.acc_type) +
                             " D=" + to_string(p.d_type));
  return validate_semantics(p);
}

Problem row_major_d(const Problem& in, bool* swapped) {
  if (swapped) *swapped = false;
  if (in.d_layout == Layout::RowMajor) return in;
  // D (M,N) column-major with ldd is D^T (N,M) row-major with ldd: D^T = B A^T, and C likewise.
  Problem p = in;
  std::swap(p.m, p.n);
  std::swap(p.lda, p.ldb);
  std::swap(p.a_type, p.b_type);
  std::swap(p.a_layout, p.b_layout);
  std::swap(p.stride_a, p.stride_b);
  p.d_layout = Layout::RowMajor;
  if (p.bias == Bias::per_row) p.bias = Bias::per_col;
  else if (p.bias == Bias::per_col) p.bias = Bias::per_row;
  if (swapped) *swapped = true;
  return p;
}

std::string describe_capabilities(const Variant& v) {
  const Requirements& r = v.req;
  std::string out = "layouts TN";
  if (r.b_mn_major) out += " TT";
  if (r.a_mn_major) out += " NN";
  if (r.a_mn_major && r.b_mn_major) out += " NT";
  if (r.scale) out += std::string("; alpha, beta") + (r.c_apart ? ", C apart" : ", C = D only") + (r.c_f32 ? ", f32 C" : "");
  if (r.batch) out += "; batch";
  if (r.bias_per_row || r.bias_per_col)
    out += std::string("; bias") + (r.bias_per_row ? " row" : "") + (r.bias_per_col ? " col" : "") + (r.bias_f32 ? ", f32 bias" : "");
  if (r.activations) {
    out += ";";
    for (Activation a : {Activation::relu, Activation::gelu_tanh, Activation::gelu_erf})
      if (r.activations & (1u << int(a))) out += std::string(" ") + to_string(a);
  }
  return out;
}

namespace detail {
Status accepts(const Variant& v, const Problem& p, int sm, const Operands& x) {
  const void *A = x.a, *B = x.b, *D = x.d;
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
  if (v.known_wrong)
    if (const char* why = v.known_wrong(p)) return refuse(why);
  const Requirements& r = v.req;
  // The capabilities (the problem's D is row-major here: row_major_d).
  if (p.a_layout == Layout::ColMajor && !r.a_mn_major)
    return refuse(std::string("takes only a K-major A; this A is M-major (layout ") + layout_name(p.a_layout, p.b_layout) +
                  " as it runs, D row-major)");
  if (p.b_layout == Layout::ColMajor && !r.b_mn_major)
    return refuse(std::string("takes only a K-major B; this B is N-major (layout ") + layout_name(p.a_layout, p.b_layout) +
                  " as it runs, D row-major)");
  if ((p.alpha != 1.f || p.reads_c()) && !r.scale)
    return refuse("computes alpha = 1, beta = 0 only (this problem: alpha=" + std::to_string(p.alpha) +
                  " beta=" + std::to_string(p.beta) + ")");
  if (p.reads_c()) {
    if (!r.c_apart && !c_in_place(p, x)) return refuse("reads C only in place (C = D: the same pointer, ldc, type and stride)");
    if (*p.c_type != p.d_type && !r.c_f32) return refuse("reads C only in D's type");
  }
  if (p.batch > 1 && !r.batch) return refuse("runs one product per call (batch=" + fmt_i(p.batch) + ")");
  if (p.bias == Bias::per_row && !r.bias_per_row)
    return refuse(r.bias_per_col ? "adds a bias per column of the row-major D only (this one is per row)" : "adds no bias");
  if (p.bias == Bias::per_col && !r.bias_per_col)
    return refuse(r.bias_per_row ? "adds a bias per row of the row-major D only (this one is per column)" : "adds no bias");
  if (p.bias != Bias::none && *p.bias_type != p.d_type && !r.bias_f32)
    return refuse(std::string("adds a bias in D's type only (this one is ") + to_string(*p.bias_type) + ")");
  if (p.activation != Activation::none && !(r.activations & (1u << int(p.activation))))
    return refuse(std::string("has no ") + to_string(p.activation) + " epilogue");
  if (p.m % r.m_multiple)
    return refuse("M=" + fmt_i(p.m) + " is not a multiple of " + fmt_i(r.m_multiple));
  if (p.n % r.n_multiple)
    return refuse("N=" + fmt_i(p.n) + " is not a multiple of " + fmt_i(r.n_multiple));
  if (p.k % r.k_multiple)
    return refuse("K=" + fmt_i(p.k) + " is not a multiple of " + fmt_i(r.k_multiple));
  if (r.max_n && (p.n > r.max_n || (r.max_k && p.k > r.max_k)))
    return refuse("holds its tiles' B in shared memory: N <= " + fmt_i(r.max_n) + " and K <= " + fmt_i(r.max_k) +
                  " (this problem: N=" + fmt_i(p.n) + " K=" + fmt_i(p.k) + ")");
  if (!r.max_n && r.max_k && p.k > r.max_k)
    return refuse("is for short K: K at most " + fmt_i(r.max_k) + " (this problem: K=" + fmt_i(p.k) + ")");
  if (r.max_thin && std::min(p.m, p.n) > r.max_thin)
    return refuse("is for thin problems: M or N at most " + fmt_i(r.max_thin) + " (this problem: M=" + fmt_i(p.m) +
                  " N=" + fmt_i(p.n) + ")");
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
    // C and the bias: read element by element, naturally aligned.
    if (p.reads_c() && x.c && reinterpret_cast<uintptr_t>(x.c) % uintptr_t(dtype_bytes(*p.c_type)))
      return refuse(std::string("pointer C is not aligned to its ") + to_string(*p.c_type) + " elements");
    if (p.bias != Bias::none && x.bias && reinterpret_cast<uintptr_t>(x.bias) % uintptr_t(dtype_bytes(*p.bias_type)))
      return refuse(std::string("the bias pointer is not aligned to its ") + to_string(*p.bias_type) + " elements");
    // Batch strides move every product's pointer: they keep the operand's alignment.
    if (p.batch > 1) {
      struct { const char* n; int64_t stride; int align; DType t; } bs[] = {
          {"stride_a", p.stride_a, r.ptr_align_bytes, p.a_type}, {"stride_b", p.stride_b, r.ptr_align_bytes, p.b_type},
          {"stride_d", p.stride_d, r.d_align(), p.d_type}};
      for (auto& b : bs)
        if (b.align > 1 && (b.stride * dtype_bytes(b.t)) % b.align)
          return refuse(std::string(b.n) + "=" + fmt_i(b.stride) + " moves each product off the " + fmt_i(b.align) +
                        "-byte alignment its loads need");
    }
  }
  if (v.tile.bm > 0) {  // grid limits: x = N tiles (2^31-1), y = M tiles (65535)
    int64_t mt = (p.m + v.tile.bm - 1) / v.tile.bm;
    if (mt > 65535) return refuse("M=" + fmt_i(p.m) + " needs more than 65535 row tiles");
  }
  if (!v.launch) return refuse("has no launcher in this build");
  return Status::success();
}
}  // namespace detail

Status check_variant(const Variant& v, const Problem& in, int sm, const Operands& x) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  bool swapped = false;
  const Problem p = row_major_d(in.normalized(), &swapped);
  Operands y = x;
  if (swapped) std::swap(y.a, y.b);
  return detail::accepts(v, p, sm, y);
}

Status check_variant(const Variant& v, const Problem& in, int sm, const void* A, const void* B,
                     const void* D) {
  Operands x;
  x.a = A;
  x.b = B;
  x.d = const_cast<void*>(D);
  return check_variant(v, in, sm, x);
}

const Variant* choose_variant(const Problem& p, int sm, const void* A, const void* B,
                              const void* D, std::string* why_not) {
  if (Status s = validate_problem(p); !s.ok()) {
    if (why_not) *why_not = "  " + s.message + "\n";
    return nullptr;
  }
  bool swapped = false;
  const Problem q = row_major_d(p.normalized(), &swapped);
  Operands x{swapped ? B : A, swapped ? A : B, const_cast<void*>(D)};
  return detail::choose(q, sm, x, why_not);
}

}  // namespace pipegemm
