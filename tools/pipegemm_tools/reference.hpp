// CPU reference GEMM, tolerances per data type, and the every-element comparison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

enum class RefAccum { f64, f32 };

// Host matrices of one problem, laid out as the problem says (leading dimensions, layouts,
// batch strides; each from its first element): A and B always, C where p.reads_c(), the bias
// (M or N elements of p.bias_type) where p.bias != none.
struct HostOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  const void* bias = nullptr;
};

// The full semantics, for every product of the batch:
//   ref[(b*M + i)*N + j] = act(alpha * sum_k A_b(i,k) B_b(j,k) + beta * C_b(i,j) + bias)
// in double (sum: fp64, or fp32 with RefAccum::f32; the epilogue always in double). An int32
// D is integer arithmetic, exactly (alpha, beta whole numbers: int64 products). A stride of 0
// reads the same matrix for every product. Multi-threaded over products, row and column
// blocks (threads = 0: all hardware threads). ref gets batch * M * N values.
void reference_gemm(const Problem& p, const HostOperands& x, std::vector<double>& ref,
                    RefAccum acc = RefAccum::f64, int threads = 0);
// The same with no C and no bias (p must not read C or add a bias): alpha * A B^T, activated.
void reference_gemm(const Problem& p, const void* A, const void* B, std::vector<double>& ref,
                    RefAccum acc = RefAccum::f64, int threads = 0);

// The activation as the header defines it (pipegemm.hpp), in double.
double activate(Activation a, double x);

// An element passes when |got - ref| <= abs + rel * |ref|.
struct Tolerance {
  double abs = 0, rel = 0;
  std::string rule;  // how it was derived, printed with every verdict
};

// 004 step 5: HMMA fp16/bf16 abs 1e-2 rel 1e-2; IMMA abs 0.5 rel 0.1, exact while int32 cannot
// overflow; FFMA fp32 1e-3. fp16 accumulation: abs grows linearly with K beyond 32 (the error
// is ~ sqrt(#roundings ~ K) x ulp(partial sum ~ sqrt(K)), i.e. proportional to K).
// Beyond alpha = 1, beta = 0 (the rule says each term it adds):
//   alpha   scales the product and its error: abs x |alpha| (a relative rule is unchanged);
//   beta C  and the bias are added in fp32 from their exact stored values: + 2^-22 x (|beta| +
//           1) x 1 in abs, the 1 being the harness's bound on |C| and |bias| (uniform [-1, 1]);
//   D       a 16-bit D rounds the result relative to |ref| (2^-11 fp16, 2^-8 bf16): rel covers it;
//   act     ReLU and GELU do not amplify an error (slope <= 1.13, and ~1 where the value is
//           large); a GELU adds 1e-3 abs for an fp32 tanh/erf approximation (~2^-11 relative
//           times 0.5|x| before it saturates);
//   int32   an int32 D stays exact while |alpha| K 2^14 + |beta| 2^7 < 2^31 (the int32 epilogue
//           cannot overflow); an int8 product with a floating D and any epilogue: abs 1e-4 rel 1e-5
//           (fp32 rounding of alpha*sum, beta*C, bias).
Tolerance tolerance_for(const Problem& p);

struct CompareResult {
  bool pass = false;
  int64_t checked = 0;
  int64_t failures = 0;   // elements outside tolerance, NaN/Inf included
  int64_t non_finite = 0;
  int64_t products = 1;   // the batch compared (positions below name their product when > 1)
  double max_abs_err = 0, max_rel_err = 0;  // over the finite elements
  int64_t max_abs_batch = -1, max_abs_row = -1, max_abs_col = -1;  // the (first) element of max_abs_err
  double max_abs_got = 0, max_abs_ref = 0;
  int64_t worst_batch = -1, worst_row = -1, worst_col = -1;  // the (first) element with the largest error / allowed
  double worst_got = 0, worst_ref = 0, worst_ratio = 0;
  std::string summary() const;
};

// D_host holds p.d_type elements from D's first one: every product (p.stride_d apart) laid out
// with p.ldd / p.d_layout; ref as reference_gemm makes it (batch * M * N). Every element of every
// product is compared, in the order product, row, column.
CompareResult compare_with_reference(const Problem& p, const void* D_host,
                                     const std::vector<double>& ref, const Tolerance& tol);

// Fresh random inputs: uniform in [-1, 1] for floating types (rounded to the type), uniform
// over [-128, 127] for int8 (and int32: a C of an int32 D). Never zeros: a zero-filled input
// would hide unwritten output.
void fill_random(DType t, void* host, int64_t count, uint64_t seed);

}  // namespace pipegemm
