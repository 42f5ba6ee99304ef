// `pipegemm fuzz`: random problems through auto and through every registered variant that takes
// them, every element compared; a one-line `pipegemm verify` reproducer for each mismatch.
//
// The generator (deterministic from the seed and the input type; generate.cpp):
//   M, N, K  log-uniform integers in [1, max_dim] (floor(exp(u * ln(max_dim + 1))));
//   K        odd half the time, else rounded up to a whole 16-byte vector of the input type
//            (8 f16/bf16, 4 f32, 16 i8), so the vector rungs (k1..k5) get problems too;
//   lda, ldb, ldd  each packed half the time, else packed + an odd pad in [1, 31];
//   offset   half the time A, B and D start offset_for(type) elements past 256-byte-aligned
//            allocations: one element, except i8, whose every kernel (k0 included) and cuBLAS
//            need 4-byte pointers, so four (still misaligned for 16-byte vectors).
// Inputs: one make_random_inputs stream per input type from the fuzz seed, long enough for the
// largest problem; each problem reads its first offset + span elements, which is exactly what
// `pipegemm verify ... --seed S --offset O` generates for it.
//
// The reference: the CPU's fp64 reference_gemm where M*N*K <= cpu_ref_max_macs (2^27),
// (M+N)*K <= 2^20 (its K-major copies) and M*N <= 2^22 (its output): two problems in three.
// Else the cuBLAS peer of the same input type with fp32 (i8: int32) accumulation and fp32
// (i8: int32) output -- cublas_f16_f32out, cublas_bf16_f32out, cublas_i8, cublas_f32 -- run on
// copies of the same A and B, packed and zero-padded to multiples of 16 in M, N and K (cuBLAS's
// IMMA refuses odd K), its output compared in place (no fp64 copy).
// The tolerance is tolerance_for(the variant's problem) either way: cuBLAS's own error with
// fp32 accumulation and output (~sqrt(K) * 2^-24 * |partial|, ~1e-4 at K = 16384) is well inside
// every rule, and its int32 result is exact (|sum| <= K * 2^14 <= 2^28), so it stands in for
// the fp64 reference; fp16-accumulation variants keep their abs 1e-2 * max(1, K/32).
// Every run poisons D's whole allocation first (NaN / 0x80808080) and compares every element;
// the elements around D (the offset before it, the ldd padding of each row) must stay poison.
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
};

// One generated problem: sizes, leading dimensions, pointer offset; the types come per run.
struct FuzzCase {
  int index = 0;                // position in its input type's sequence
  DType in = DType::f16;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0;
  int64_t offset = 0;           // elements, of A/B's type for A and B and of D's type for D
  double macs() const { return double(m) * double(n) * double(k); }
  bool operator==(const FuzzCase& o) const;
};

// The elements a one-element misalignment takes for this input type (0: none allowed).
int64_t offset_for(DType in);
std::vector<FuzzCase> generate_cases(DType in, uint64_t seed, int count, int64_t max_dim = 16384);
Problem problem_of(const FuzzCase& c, DType acc, DType out);
// Whether the fp64 CPU reference is used (else the cuBLAS peer).
bool cpu_reference(const FuzzCase& c, const FuzzOptions& o);

// `pipegemm verify --shape MxNxK --lda .. --ldb .. --ldd .. --dtype .. --acc .. --out-dtype ..
//  --kernel NAME --seed S [--offset O]`, and back.
std::string reproducer(const Problem& p, int64_t offset, const std::string& kernel, uint64_t seed);
Status parse_reproducer(std::string_view line, Problem* p, int64_t* offset, std::string* kernel, uint64_t* seed);
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
