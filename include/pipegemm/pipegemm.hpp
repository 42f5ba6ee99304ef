// pipegemm public API: describe a GEMM, pick a variant (by name or automatically), launch it.
//
//   D (M,N) = A (M,K) * B (N,K)^T          -- the "TN" GEMM of the seeds: both operands K-major.
//
// Layouts are named per operand: A is M x K, B is N x K, D is M x N. RowMajor means the last
// index is contiguous (A and B K-contiguous, D N-contiguous). Leading dimensions are in elements.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct CUstream_st;
using cudaStream_t_ = CUstream_st*;  // avoid pulling cuda_runtime.h into every user of the API

namespace pipegemm {

enum class DType { f16, bf16, f32, i8, i32 };
enum class Layout { RowMajor, ColMajor };

const char* to_string(DType t);
const char* to_string(Layout l);
bool parse_dtype(std::string_view s, DType* out);
int dtype_bytes(DType t);

enum class StatusCode {
  ok = 0,
  invalid_argument,   // bad sizes, strides, null pointers
  not_supported,      // the chosen variant cannot take this problem (shape, alignment, dtype, arch)
  no_device,          // no usable CUDA device
  cuda_error,         // a CUDA / cuBLAS call failed
  verification_failed,
  io_error,
};

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;
  bool ok() const { return code == StatusCode::ok; }
  static Status success() { return {}; }
  static Status error(StatusCode c, std::string m) { return {c, std::move(m)}; }
};

// A GEMM problem. Leading dimensions of 0 mean "packed" (filled in by normalized()).
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;
  DType a_type = DType::f16;
  DType b_type = DType::f16;
  DType d_type = DType::f16;
  DType acc_type = DType::f32;  // accumulation ("compute") type
  Layout a_layout = Layout::RowMajor;  // A (M,K): RowMajor = K contiguous
  Layout b_layout = Layout::RowMajor;  // B (N,K): RowMajor = K contiguous
  Layout d_layout = Layout::RowMajor;  // D (M,N): RowMajor = N contiguous

  Problem normalized() const;  // fills packed leading dimensions
  std::string shape_string() const;  // "MxNxK"
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Bytes of A + B + D touched once (the GB/s the benchmark reports).
  double bytes() const;
};

// Checks a problem on its own (no variant): positive sizes, strides >= a row, dtype combination.
Status validate_problem(const Problem& p);

struct Options {
  std::string variant = "auto";  // a registered name, or "auto"
  cudaStream_t_ stream = nullptr;
};

// Runs D = A * B^T on device pointers. Every check happens before any launch: on a non-ok
// status nothing has been written to D. `chosen`, if given, receives the variant's name.
Status gemm(const Problem& p, const void* A, const void* B, void* D, const Options& opt = {},
            std::string* chosen = nullptr);

// Parses "MxNxK" (also "M,N,K").
bool parse_shape(std::string_view s, int64_t* m, int64_t* n, int64_t* k);

}  // namespace pipegemm
