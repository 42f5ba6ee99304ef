// `pipegemm fuzz`: random problems through auto and through every registered variant that takes
// them, every element compared; a one-line `pipegemm verify` reproducer for each mismatch.
//
// The generator (deterministic from the seed and the input type; generate.cpp):
//   plain    a fraction (plain_fraction, 0.4) of the problems are the plain TN GEMM (A, B
//            K-major, D row-major, alpha 1, beta 0, no epilogue, batch 1) over the sizes' full
//            range; the others draw the semantics below, on sizes the CPU reference takes;
//   M, N, K  log-uniform integers in [1, top] (floor(exp(u * ln(top + 1)))), top = max_dim for a
//            plain problem, else min(max_dim, 1024) (batch > 1: 512);
//   K        odd half the time, else rounded up to a whole 16-byte vector of the input type
//            (8 f16/bf16, 4 f32, 16 i8), so the vector rungs (k1..k5) get problems too;
//   lda, ldb, ldd  each packed half the time, else packed + an odd pad in [1, 31];
//   offset   half the time A, B, C, the bias and D start offset_for(type) elements past
//            256-byte-aligned allocations: one element, except i8, whose every kernel (k0
//            included) and cuBLAS need 4-byte pointers, so four (still misaligned for 16-byte vectors);
//   semantics (each independent): A and B layouts (TN NN NT TT alike), D row or column-major;
//            alpha 1 half the time, else one of 0.5 -1 2 1.5 -0.75 0.25 (an int32 D: 2 -1 3 -2);
//            beta = 0, beta != 0 with C apart (its own ldc, packed or padded; f32 half the time
//            under a 16-bit D), or C = D in place, a third each (beta 1 0.5 -1 2 -0.25; int32 D:
//            1 -1 2 3); bias none, per row, per column (D's type or f32); activation none, relu,
//            gelu_tanh, gelu_erf; batch 1 half the time, else 2-4 with A, B, C (when apart) or no
//            operand broadcast (stride 0). An int32 D takes no bias or activation.
// Inputs: one make_random_inputs stream per input type from the fuzz seed, long enough for the
// largest problem; each problem reads its first offset + span elements, which is exactly what
// `pipegemm verify ... --seed S --offset O` generates for it (C and the bias: verify's own
// streams for that problem, random_c / random_bias).
//
// The reference: the CPU's fp64 reference_gemm for every problem with semantics, and for a
// plain one where M*N*K <= cpu_ref_max_macs (2^27), (M+N)*K <= 2^20 (its K-major copies) and
// M*N <= 2^22 (its output): two plain problems in three.
// Else the cuBLAS peer of the same input type with fp32 (i8: int32) accumulation and fp32
// (i8: int32) output -- cublas_f16_f32out, cublas_bf16_f32out, cublas_i8, cublas_f32 -- run on
// copies of the same A and B, packed and zero-padded to multiples of 16 in M, N and K (cuBLAS's
// IMMA refuses odd K), its output compared in place (no fp64 copy).
// The tolerance is tolerance_for(the variant's problem) either way: cuBLAS's own error with
// fp32 accumulation and output (~sqrt(K) * 2^-24 * |partial|, ~1e-4 at K = 16384) is well inside
// every rule, and its int32 result is exact (|sum| <= K * 2^14 <= 2^28), so it stands in for
// the fp64 reference; fp16-accumulation variants keep their abs 1e-2 * max(1, K/32).
// Every run poisons D's whole allocation first (NaN / 0x80808080) -- with C = D in place, D's
// elements then hold C -- and compares every element of every product; the elements around D
// (the offset before it, the ldd padding of each row, the gaps between products) must stay poison.
// A variant without a capability refuses (counted); auto finding no variant is a mismatch for
// a plain problem, a refusal for one with semantics.
// Cost: the buffers are allocated once per input type for its largest problem; named k0 runs are
// skipped above k0_max_macs. On the H200, 10,000 problems (seed 7) took f16 115 s, bf16 77 s,
// i8 69 s, f32 65 s, about half of it the host comparison (all cores; D is copied back).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pipegemm/pipegemm.hpp"
#include "pipegemm_tools/report.hpp"

namespace pipegemm::fuzz {

struct FuzzOptions {
  int count = 1000;  // problems per input type
  std::vector<DType> dtypes{DType::f16, DType::bf16, DType::i8, DType::f32};
  uint64_t seed = 0;            // 0 = fresh (the report says which)
  int64_t max_dim = 16384;      // M, N, K in [1, max_dim]; 16 <= max_dim <= 16384
  double cpu_ref_max_macs = double(1 << 27);
  // Named runs of k0 (the slowest rung, ~10x below k4) are skipped above this many MACs; auto
  // still runs k0 wherever it is auto's choice. 0 = never skip.
  double k0_max_macs = 8589934592.0;  // 2^33
  bool peers = false;  // also fuzz the cuBLAS entries (they are the large problems' reference)
  bool guard = true;   // a write into the poison around D (offset, ldd padding) is a mismatch
  double plain_fraction = 0.4;  // problems that are the plain TN GEMM (the rest draw the semantics)
};

// How a problem that reads C binds it.
enum class CBinding { none, apart, in_place };

// One generated problem: sizes, leading dimensions, pointer offset, semantics; the types come per run.
struct FuzzCase {
  int index = 0;                // position in its input type's sequence
  DType in = DType::f16;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0;
  int64_t offset = 0;           // elements, each operand's own type (A, B, C, the bias, D)
  // The semantics (their plain values in a plain problem).
  Layout a_layout = Layout::RowMajor, b_layout = Layout::RowMajor, d_layout = Layout::RowMajor;
  float alpha = 1.f, beta = 0.f;  // a floating D's (beta: with C)
  int ialpha = 1, ibeta = 0;      // an int32 D's, whole numbers
  CBinding c = CBinding::none;
  bool c_f32 = false;             // C apart in f32 (under a 16-bit D)
  int64_t ldc = 0;                // C apart's leading dimension
  Bias bias = Bias::none;         // a floating D's
  bool bias_f32 = false;
  Activation act = Activation::none;  // a floating D's
  int64_t batch = 1;
  char broadcast = 0;             // 'a', 'b' or 'c' (C apart): that operand's batch stride is 0
  bool plain() const;             // the plain TN GEMM
  double macs() const { return double(m) * double(n) * double(k) * double(batch); }
  bool operator==(const FuzzCase& o) const;
};

// The elements a one-element misalignment takes for this input type (0: none allowed).
int64_t offset_for(DType in);
std::vector<FuzzCase> generate_cases(DType in, uint64_t seed, int count, int64_t max_dim = 16384,
                                     double plain_fraction = 0.4);
// The case's problem for these types (an int32 D: ialpha, ibeta; no bias or activation).
Problem problem_of(const FuzzCase& c, DType acc, DType out);
// Whether the fp64 CPU reference is used (else the cuBLAS peer): always with semantics.
bool cpu_reference(const FuzzCase& c, const FuzzOptions& o);

// `pipegemm verify --shape MxNxK --lda .. --ldb .. --ldd .. --dtype .. --acc .. --out-dtype ..
//  [--layout .. --d-layout col --alpha .. --beta .. --c d --c-dtype .. --ldc .. --batch ..
//  --broadcast .. --bias .. --bias-dtype .. --act ..] --kernel NAME --seed S [--offset O]`
// (the semantics' flags where they differ from the plain GEMM), and back.
std::string reproducer(const Problem& p, int64_t offset, const std::string& kernel, uint64_t seed,
                       bool c_in_place = false);
Status parse_reproducer(std::string_view line, Problem* p, int64_t* offset, std::string* kernel, uint64_t* seed,
                        bool* c_in_place = nullptr);
// "--dtype" values (each may be a comma list) -> input types; i32 is refused (an output type).
Status parse_dtypes(const std::vector<std::string>& names, std::vector<DType>* out);

struct FuzzMismatch {
  std::string variant;     // the kernel that ran (auto's choice when via_auto)
  bool via_auto = false;
  std::string what;        // the comparison's summary, a CUDA error, or auto's refusal
  std::string reproducer;
};

struct VariantCount {
  std::string name;        // "auto" first, then registry order
  int64_t runs = 0;        // launched and compared (a variant's count includes its auto runs)
  int64_t via_auto = 0;
  int64_t refused = 0;     // make() refused the problem (the variant does not take it)
  int64_t skipped = 0;     // k0 above k0_max_macs
  int64_t mismatches = 0;
};

struct TypeSummary {
  DType in = DType::f16;
  int problems = 0, cpu_refs = 0, cublas_refs = 0;
  int with_semantics = 0;  // problems beyond the plain TN GEMM
  int64_t runs = 0, mismatches = 0;
  int64_t largest_a = 0;   // elements of the shared input stream (the largest problem's need)
  double seconds = 0;
  // Where the time went: inputs and buffers; references (CPU or cuBLAS); poison + launch + copy
  // back; the host comparison.
  double setup_s = 0, reference_s = 0, run_s = 0, check_s = 0;
};

struct FuzzReport {
  std::string device;
  FuzzOptions options;     // seed filled in
  std::vector<TypeSummary> types;
  std::vector<VariantCount> variants;  // only those that saw a problem
  int64_t problems = 0, runs = 0, refusals = 0, skipped = 0, mismatch_count = 0;
  std::vector<FuzzMismatch> mismatches;  // the first kMaxListed
  static constexpr int kMaxListed = 50;
  std::vector<std::string> rules;  // generator, reference, tolerance and skip rules, stated
  Status error;                    // a CUDA error that stopped the run (the counts so far are kept)
  double seconds = 0;
};

struct FuzzProgress {
  DType in = DType::f16;
  int done = 0, total = 0;
  int64_t runs = 0, mismatches = 0;
  double seconds = 0;     // since run_fuzz started
};
using ProgressFn = std::function<void(const FuzzProgress&)>;

// invalid_argument for bad options (before any GPU check), no_device without a GPU; a mismatch
// is part of the report, not an error.
Status run_fuzz(const FuzzOptions& opt, FuzzReport* out, const ProgressFn& progress = {});
report::Document document(const FuzzReport& r);

}  // namespace pipegemm::fuzz
