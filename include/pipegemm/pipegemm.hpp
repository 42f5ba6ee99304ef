// pipegemm public API: describe a GEMM, pick a variant (by name or automatically), launch it.
//
//   D = act(alpha * A B^T + beta * C + bias)      for each of `batch` problems
//
// A is M x K, B is N x K, C and D are M x N (the seeds' "TN" GEMM when A and B are K-major).
// Layouts are named per operand: RowMajor means the last index is contiguous (A and B
// K-contiguous = K-major, D N-contiguous); ColMajor the first (A M-major, B N-major, D
// M-contiguous). In BLAS's column-major letters: A K-major = "T", M-major = "N"; B K-major =
// "N", N-major = "T" -- so TN, NN, NT and TT are the four (a_layout, b_layout) pairs (layout_name()).
// torch.matmul(x, y) of two row-major tensors is A RowMajor, B ColMajor; F.linear(x, w) is
// A RowMajor, B RowMajor. Leading dimensions and batch strides are in elements. The epilogue
// runs in fp32 (int32 for an int32 D) before the cast to D.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct CUstream_st;
using cudaStream_t_ = CUstream_st*;  // avoid pulling cuda_runtime.h into every user of the API

namespace pipegemm {

enum class DType { f16, bf16, f32, i8, i32 };
enum class Layout { RowMajor, ColMajor };
// The epilogue's activation, applied last (after alpha, beta * C and the bias).
//   gelu_tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (PyTorch approximate="tanh", cuBLASLt GELU)
//   gelu_erf:  0.5 x (1 + erf(x / sqrt(2)))                      (PyTorch's default GELU)
enum class Activation { none, relu, gelu_tanh, gelu_erf };
// The epilogue's bias vector: per_row adds bias[i] to row i of D (M values), per_col adds
// bias[j] to column j (N values; nn.Linear's bias). One vector for the whole batch.
enum class Bias { none, per_row, per_col };

const char* to_string(DType t);
const char* to_string(Layout l);
const char* to_string(Activation a);
const char* to_string(Bias b);
bool parse_dtype(std::string_view s, DType* out);
bool parse_activation(std::string_view s, Activation* out);  // none, relu, gelu_tanh (gelu), gelu_erf
bool parse_bias(std::string_view s, Bias* out);              // none, row, col
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

// A GEMM problem. Leading dimensions of 0 and batch strides of -1 mean "packed" (filled in by
// normalized()).
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

  // ---- scaling and C: D = alpha * A B^T + beta * C ----
  // beta = 0 reads nothing from C (C may then be null). C (M,N) has D's layout, its own leading
  // dimension and type (unset: D's); it may be D itself (in place: same pointer, ldc, type and
  // batch stride), but may not overlap D otherwise. An int32 D takes whole-number alpha, beta.
  float alpha = 1.f, beta = 0.f;
  int64_t ldc = 0;
  std::optional<DType> c_type;
  // ---- epilogue: + bias, then the activation ----
  Bias bias = Bias::none;
  std::optional<DType> bias_type;  // D's type (unset) or f32; not for an int32 D
  Activation activation = Activation::none;
  // ---- strided batch: `batch` products, the i-th at A + i*stride_a, ... (elements) ----
  // -1: packed (one whole matrix after another); 0: the same A, B or C for every product
  // (a broadcast, e.g. one weight for many inputs). D's products may not overlap.
  int64_t batch = 1;
  int64_t stride_a = -1, stride_b = -1, stride_c = -1, stride_d = -1;

  Problem normalized() const;  // fills packed leading dimensions, strides, c_type, bias_type
  std::string shape_string() const;  // "MxNxK" (the batch is not in it)
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  // Bytes of A + B + D (+ C when beta != 0) touched once (the GB/s the benchmark reports).
  double bytes() const;
  bool reads_c() const { return beta != 0.f; }
  bool has_epilogue() const { return bias != Bias::none || activation != Activation::none; }
  // alpha = 1, beta = 0, no bias or activation, batch 1: what every kernel computes.
  bool plain() const { return alpha == 1.f && !reads_c() && !has_epilogue() && batch == 1; }
  // plain() with A and B row-major (D is row-major once normalized): the ladder's own TN kernels.
  bool plain_tn() const { return plain() && a_layout == Layout::RowMajor && b_layout == Layout::RowMajor; }
};

// Elements from the first to one past the last of a rows x cols matrix (ld >= a row).
int64_t matrix_span(int64_t rows, int64_t cols, int64_t ld, Layout l);
// A, B, C, D of a normalized problem: rows, cols, leading dimension, batch stride, layout.
struct MatrixView {
  int64_t rows, cols, ld, stride;
  Layout layout;
  int64_t span() const { return matrix_span(rows, cols, ld, layout); }
  // Elements from the first of product 0 to one past the last of product batch-1.
  int64_t batch_span(int64_t batch) const { return (batch - 1) * stride + span(); }
  // batch_span() in bytes of type t.
  size_t batch_bytes(int64_t batch, DType t) const { return size_t(batch_span(batch)) * size_t(dtype_bytes(t)); }
};
MatrixView view_a(const Problem& p);
MatrixView view_b(const Problem& p);
MatrixView view_c(const Problem& p);
MatrixView view_d(const Problem& p);

// "TN", "NN", "NT", "TT": the BLAS letters of (a_layout, b_layout) (see the top of this file).
const char* layout_name(Layout a, Layout b);
bool parse_layout_name(std::string_view s, Layout* a, Layout* b);

// The device buffers of one call. c: read when beta != 0 (may equal d); bias: with Problem::bias.
// workspace: scratch the call may use (split-K partials, packed copies, cuBLASLt's workspace), at
// least workspace_bytes() long and 256-byte aligned; null: the library's own, one buffer per (device,
// stream) made on first use (capture-safe, never freed). gemm() takes it from Options.
struct Operands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
  const void* c = nullptr;
  const void* bias = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// Checks a problem on its own (no variant): positive sizes, strides >= a row, dtype combination,
// batch strides that keep D's products apart, an epilogue D's type can take. (gemm() also takes
// zero sizes, as torch does: M, N or batch = 0 computes nothing; K = 0 gives D = act(beta C + bias).)
Status validate_problem(const Problem& p);

struct Options {
  std::string variant = "auto";  // a registered name, or "auto"
  cudaStream_t_ stream = nullptr;
  // Caller-owned scratch (Operands::workspace): with one at least workspace_bytes() long, a call
  // allocates nothing. Null: the library's own buffer for the stream.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// Runs the problem on device pointers. Every check happens before any launch: on a non-ok
// status nothing has been written to D (or C). `chosen`, if given, receives the variant's name.
// Safe inside a CUDA graph capture of any mode on any stream: the call path never synchronizes,
// times or allocates stream-ordered memory (docs/deployment.md).
Status gemm(const Problem& p, const Operands& x, const Options& opt = {}, std::string* chosen = nullptr);
// The same with no C or bias: D = A * B^T (with p's alpha and batch).
Status gemm(const Problem& p, const void* A, const void* B, void* D, const Options& opt = {},
            std::string* chosen = nullptr);

// The scratch bytes gemm(p, x, opt) needs for the variant it will run (opt.variant, or auto's
// choice), for 256-byte-aligned operands (or x's pointers where given): give at least this much
// as Options::workspace and the call allocates nothing. 0: none needed, or a problem gemm() refuses.
size_t workspace_bytes(const Problem& p, const Options& opt = {}, const Operands* x = nullptr);

// ---- choices ahead of time (docs/deployment.md) ----------------------------------------------------
// prepare() times auto's candidates for each problem on this GPU -- our kernels, cublasGemmEx and
// each of cuBLASLt's heuristic candidates -- on scratch operands of its own (random values), and
// keeps the fastest as this process's choice for the problem's tune bucket (GPU, types, layouts,
// alignment, M/N/K in quarter octaves), so a batch size never seen reuses the choice of its
// bucket. A call never measures: what prepare() has not seen is chosen from the loaded and shipped
// tables, then the cost model and cuBLASLt's heuristic. Not inside a capture.
struct PrepareOptions {
  int reps = 20;          // back-to-back launches a round, between two events
  int rounds = 3;         // rounds; the median of the per-round means is kept
  double prune = 3.0;     // candidates the cost model puts above this many times its fastest: not timed (0: time all)
  bool force = false;     // re-time buckets that a loaded table already holds
  bool c_in_place = false;  // with beta != 0: C is D (in place), else C apart -- as the calls will pass it
  cudaStream_t_ stream = nullptr;
};
struct PrepareResult {
  std::string shape, bucket, best;  // best: the variant kept
  double best_us = 0;
  int timed = 0;                    // candidates timed
  bool cached = false;              // the bucket had a choice already (not forced)
  Status status;
};
Status prepare(const std::vector<Problem>& problems, const PrepareOptions& opt = {},
               std::vector<PrepareResult>* results = nullptr);
// The choices prepare() made in this process, as a tune table file (the format of `pipegemm tune`).
Status save_choices(const std::string& path);
// A tune table file (saved choices, or `pipegemm tune`'s output) that auto consults before the
// tables shipped with the library; loaded tables are searched in load order, prepare()'s first.
Status load_choices(const std::string& path);
// Forgets prepare()'s and load_choices()' tables (the shipped ones stay).
void clear_choices();

// The library's version ("0.1.0"): tune tables and reports record it.
const char* library_version();

// Parses "MxNxK" (also "M,N,K").
bool parse_shape(std::string_view s, int64_t* m, int64_t* n, int64_t* k);

}  // namespace pipegemm
