// CPU reference GEMM, tolerances per data type, and the every-element comparison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

enum class RefAccum { f64, f32 };

// ref[i*N + j] = sum_k A(i,k) * B(j,k), with A, B host buffers laid out as `p` says.
// Multi-threaded (threads = 0: all hardware threads).
void reference_gemm(const Problem& p, const void* A, const void* B, std::vector<double>& ref,
                    RefAccum acc = RefAccum::f64, int threads = 0);

// An element passes when |got - ref| <= abs + rel * |ref|.
struct Tolerance {
  double abs = 0, rel = 0;
  std::string rule;  // how it was derived, printed with every verdict
};

// 004 step 5: HMMA fp16/bf16 abs 1e-2 rel 1e-2; IMMA abs 0.5 rel 0.1, exact while int32 cannot
// overflow; FFMA fp32 1e-3. fp16 accumulation: abs grows linearly with K beyond 32 (the error
// is ~ sqrt(#roundings ~ K) x ulp(partial sum ~ sqrt(K)), i.e. proportional to K).
Tolerance tolerance_for(const Problem& p);

struct CompareResult {
  bool pass = false;
  int64_t checked = 0;
  int64_t failures = 0;   // elements outside tolerance, NaN/Inf included
  int64_t non_finite = 0;
  double max_abs_err = 0, max_rel_err = 0;  // over the finite elements
  int64_t max_abs_row = -1, max_abs_col = -1;  // the (first) element of max_abs_err
  double max_abs_got = 0, max_abs_ref = 0;
  int64_t worst_row = -1, worst_col = -1;  // the (first) element with the largest error / allowed
  double worst_got = 0, worst_ref = 0, worst_ratio = 0;
  std::string summary() const;
};

// D_host holds p.d_type elements laid out with p.ldd / p.d_layout.
CompareResult compare_with_reference(const Problem& p, const void* D_host,
                                     const std::vector<double>& ref, const Tolerance& tol);

// Fresh random inputs: uniform in [-1, 1] for floating types (rounded to the type), uniform
// over [-128, 127] for int8. Never zeros: a zero-filled input would hide unwritten output.
void fill_random(DType t, void* host, int64_t count, uint64_t seed);

// Number of elements a matrix of `rows` x `cols` with leading dimension `ld` spans.
int64_t span_elements(int64_t rows, int64_t cols, int64_t ld, Layout l);

}  // namespace pipegemm
