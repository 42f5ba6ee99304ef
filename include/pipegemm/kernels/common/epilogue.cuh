// The epilogue every kernel that takes pipegemm's full semantics applies (pipegemm.hpp):
//
//   D[b](i,j) = act(alpha * acc + beta * C[b](i,j) + bias)       in fp32 (int32 for an int32 D)
//
// before the cast to D. The parameters travel by value in EpilogueArgs; every branch in here is
// on a kernel-uniform value, so a warp never diverges on it. C is row-major like the D the
// kernel sees (GemmCall turns a column-major D into D^T), read element by element (any ldc,
// any alignment of its type).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::kernels::common {

struct EpilogueArgs {
  float alpha = 1.f, beta = 0.f;
  const void* c = nullptr;  // null when beta = 0: nothing is read
  int64_t ldc = 0, stride_c = 0;
  DType c_type = DType::f16;  // D's or f32 (validate_problem)
  const void* bias = nullptr;  // null: no bias
  Bias bias_mode = Bias::none;
  DType bias_type = DType::f16;  // D's or f32
  Activation act = Activation::none;
};

// The whole problem as a kernel of the full semantics takes it (k0): any layout of A and B (a
// stride per dimension), a batch, the epilogue -- everything pipegemm's API can ask.
template <class TA, class TD>
struct FullArgs {
  TD* d;
  const TA* a;
  const TA* b;
  int m, n, k, batch;
  int64_t a_sm, a_sk, b_sn, b_sk;  // element strides of A (m,k) and B (n,k): K-major (ld, 1), M/N-major (1, ld)
  int64_t ldd;
  int64_t stride_a, stride_b, stride_d;  // between products (0: the same operand for each)
  EpilogueArgs epi;
};

// The full-semantics kernel of a config (value: its address), for the rungs that have one (k0).
template <class Cfg>
struct FullKernel;

// The arguments of a validated, normalized problem with a row-major D (GemmCall::make).
inline EpilogueArgs epilogue_args(const Problem& p, const Operands& x) {
  EpilogueArgs e;
  e.alpha = p.alpha;
  e.beta = p.beta;
  if (p.reads_c()) {
    e.c = x.c;
    e.ldc = p.ldc;
    e.stride_c = p.batch > 1 ? p.stride_c : 0;  // one product: the stride is never used (nor its parity)
    e.c_type = p.c_type.value_or(p.d_type);
  }
  if (p.bias != Bias::none) {
    e.bias = x.bias;
    e.bias_mode = p.bias;
    e.bias_type = p.bias_type.value_or(p.d_type);
  }
  e.act = p.activation;
  return e;
}

// The whole problem for a full-semantics kernel (k0, shortk), validated and normalized with a row-major
// D: each operand's element strides from its layout -- K-major (ld, 1), M/N-major (1, ld).
template <class TA, class TD>
FullArgs<TA, TD> full_args(const Problem& p, const Operands& x) {
  const bool a_k = p.a_layout == Layout::RowMajor, b_k = p.b_layout == Layout::RowMajor;
  return FullArgs<TA, TD>{static_cast<TD*>(x.d),
                          static_cast<const TA*>(x.a),
                          static_cast<const TA*>(x.b),
                          int(p.m), int(p.n), int(p.k), int(p.batch),
                          a_k ? p.lda : 1, a_k ? 1 : p.lda,
                          b_k ? p.ldb : 1, b_k ? 1 : p.ldb,
                          p.ldd, p.stride_a, p.stride_b, p.stride_d,
                          epilogue_args(p, x)};
}

__device__ __forceinline__ float load_as_float(const void* base, int64_t i, DType t) {
  switch (t) {
    case DType::f16: return __half2float(static_cast<const __half*>(base)[i]);
    case DType::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
    case DType::i32: return float(static_cast<const int32_t*>(base)[i]);
    default: return static_cast<const float*>(base)[i];
  }
}

// tanh.approx.f32 (one MUFU instruction, |error| < 2^-10.99): the GELU of a 16-bit output is
// rounded far coarser than that, and the epilogue runs while the tensor cores wait.
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// GELU (tanh form) of x = 2h, from h = x / 2: with u = sqrt(2/pi) (x + 0.044715 x^3) = h (2 c1 +
// 8 c3 h^2), gelu(x) = h + h tanh(u) -- four fp32 ops and one MUFU. Taking x / 2 lets a caller fold
// the halving into its last scale or bias FFMA (k5: fma(acc, alpha / 2, bias / 2)); the epilogue
// runs while the tensor cores wait, so its op count is the GEMM's time.
__device__ __forceinline__ float gelu_tanh_of_half(float h) {
  constexpr float c1 = 0.7978845608028654f, c3 = 0.7978845608028654f * 0.044715f;
  const float u = h * fmaf(8.f * c3, h * h, 2.f * c1);
  return fmaf(h, tanh_approx(u), h);
}

__device__ __forceinline__ float activate(float x, Activation a) {
  switch (a) {
    case Activation::relu: return fmaxf(x, 0.f);
    case Activation::gelu_tanh: return gelu_tanh_of_half(0.5f * x);
    case Activation::gelu_erf: return 0.5f * x * (1.f + erff(x * 0.7071067811865476f));
    default: return x;
  }
}

// Two fp32 values as one 4-byte word of a 16-bit D (round to nearest), the lower address first.
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pack_pair<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}
template <>
__device__ __forceinline__ uint32_t pack_pair<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

// The address of C's element (i, j) of product b under a D of type TD (C: TD or f32); null when no
// C is read (beta = 0).
template <class TD>
__device__ __forceinline__ const void* c_element(const EpilogueArgs& e, int64_t b, int64_t i, int64_t j) {
  if (!e.c) return nullptr;
  const int64_t off = b * e.stride_c + i * e.ldc + j;
  return e.c_type == DType::f32 ? static_cast<const void*>(static_cast<const float*>(e.c) + off)
                                : static_cast<const void*>(static_cast<const TD*>(e.c) + off);
}

// An element of C or of the bias: of D's type TD, or f32 -- a two-way choice, where
// load_as_float's four-way one made each of a k0 tile's unrolled elements carry all four.
template <class TD>
__device__ __forceinline__ float load_d_or_f32(const void* base, int64_t i, bool f32) {
  return f32 ? static_cast<const float*>(base)[i] : float(static_cast<const TD*>(base)[i]);
}

// One element of row i, column j of a D of type TD before the activation; c_elem: the address of
// its C element (null: no C is read).
template <class TD>
__device__ __forceinline__ float epilogue_linear(float acc, const EpilogueArgs& e, const void* c_elem, int64_t i, int64_t j) {
  float v = e.alpha * acc;
  if (c_elem) v = fmaf(e.beta, load_d_or_f32<TD>(c_elem, 0, e.c_type == DType::f32), v);
  if (e.bias) v += load_d_or_f32<TD>(e.bias, e.bias_mode == Bias::per_row ? i : j, e.bias_type == DType::f32);
  return v;
}

// The int32 D (i8 inputs, int32 accumulators): exact integer arithmetic, whole-number alpha and
// beta (validate_problem), no bias or activation.
__device__ __forceinline__ int32_t epilogue_value_i32(int32_t acc, const EpilogueArgs& e, const void* c_elem) {
  int32_t v = int32_t(e.alpha) * acc;
  if (c_elem) v += int32_t(e.beta) * *static_cast<const int32_t*>(c_elem);
  return v;
}

}  // namespace pipegemm::kernels::common
