// Device-side verification and timing, shared by the CLI, the GPU tests and the benchmarks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipegemm_tools/reference.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace pipegemm {

// Host inputs for one problem: fresh random (seeded) or A and B loaded from .npy by the caller.
// offset_elements > 0 puts A, B, C, the bias and D that many elements (of their own types) past
// their allocations, i.e. misaligned for any vector wider than an element; the host buffers then
// hold that many leading elements (random too, never read) before the matrix.
struct HostInputs {
  std::vector<uint8_t> A, B;  // laid out as the problem's lda/ldb/layouts/batch strides say
  std::vector<uint8_t> C;     // p.reads_c(): laid out with ldc, D's layout, stride_c, in p.c_type
  std::vector<uint8_t> bias;  // p.bias != none: M (per row) or N (per column) elements of p.bias_type
  uint64_t seed = 0;          // 0 when A and B came from files
  int64_t offset_elements = 0;
};
// A is the first offset + batch span(A) draws of one seeded stream, B those of a second, C of a
// third, the bias of a fourth: a longer buffer from the same seed starts with the same elements
// (the fuzzer relies on it). C and the bias only where the problem reads them.
HostInputs make_random_inputs(const Problem& p, uint64_t seed, int64_t offset_elements = 0);
// The streams of C and the bias alone (what make_random_inputs puts in HostInputs::C / bias).
std::vector<uint8_t> random_c(const Problem& p, uint64_t seed, int64_t offset_elements = 0);
std::vector<uint8_t> random_bias(const Problem& p, uint64_t seed, int64_t offset_elements = 0);

// Elements of the bias vector (0 without one).
int64_t bias_elements(const Problem& p);

// D's allocation before a run, from D's first element (offset elements before it are the
// caller's): the poison byte everywhere (NaN for floating outputs, 0x80808080 for int32), and,
// with C = D in place, C's values at D's elements (the padding between rows and products stays
// poison). C_host points at C's first element, laid out as D (ldc = ldd, stride_c = stride_d).
uint8_t poison_byte(DType d);
void initial_d(const Problem& p, const void* C_host, bool c_in_place, std::vector<uint8_t>* out);

struct VerifyOutcome {
  std::string variant;
  Status status;            // refusal / CUDA error; ok when the kernel ran
  CompareResult result;     // valid when status.ok()
};

// Owns the reference and one device copy of A, B, C, the bias and D. Each verify() poisons D
// (NaN for floating outputs, 0x80808080 for int32) -- or, with C = D in place, fills D with C's
// values (its padding poisoned) -- runs the variant, copies D back and compares every element of
// every product. The reference is computed once, on first use.
class VerifySession {
 public:
  // c_in_place: C is D itself (the problem's ldc, c_type and stride_c must be D's); else a C the
  // problem reads has its own buffer.
  static Status create(const Problem& p, HostInputs inputs, std::unique_ptr<VerifySession>* out,
                       bool c_in_place = false);
  ~VerifySession();
  VerifyOutcome verify(const Variant& v);
  // Through auto, as a user's call runs: GemmCall's choice and, where a cuBLAS peer finds no
  // algorithm at launch, its fallback to our kernels. variant: "auto -> " + the choice.
  VerifyOutcome verify_auto();
  // Runs `launch` on the session's operands (D poisoned first) in place of a variant -- a CUDA
  // graph captured around a call, its replay -- then checks D against the reference as verify() does.
  VerifyOutcome verify_launch(const std::string& label, const std::function<Status(const Operands& x)>& launch);
  // New inputs (of the first inputs' sizes) into the same device buffers: a graph captured on them
  // replays on the new values; the reference is recomputed.
  Status reload(HostInputs inputs);
  const Tolerance& tolerance() const { return tol_; }
  const Problem& problem() const { return p_; }
  bool c_in_place() const { return in_place_; }
  // D of the last verify(), from its first element (batch span of D, laid out as the problem says).
  const std::vector<uint8_t>& last_output() const { return d_host_; }

 private:
  VerifySession() = default;
  VerifyOutcome run(const Variant* v);  // null: auto
  Problem p_;
  HostInputs in_;
  bool in_place_ = false;
  std::vector<double> ref_;
  Tolerance tol_;
  std::vector<uint8_t> d_host_;
  std::vector<uint8_t> d_init_;  // C = D in place: D's allocation before each run (C's values, poison around)
  void *dA_ = nullptr, *dB_ = nullptr, *dD_ = nullptr;   // the allocations (offset: the matrices start later)
  void *dC_ = nullptr, *dBias_ = nullptr;                // C apart from D, the bias (null when unused)
  size_t a_bytes_ = 0, b_bytes_ = 0, d_bytes_ = 0;       // whole allocations
  size_t c_bytes_ = 0, bias_bytes_ = 0;
  size_t d_off_bytes_ = 0;                               // offset_elements of D, in bytes
};

struct BenchOptions {
  int warmup = 10;
  int reps = 100;          // timed launches per variant (median reported)
  int rounds = 4;          // variants interleaved round-robin to share clock drift
  // Device idle time before each variant's block of launches (every round): each variant then
  // starts from the same power state. The H200 holds 700 W with its SW power cap under
  // back-to-back 8192^3 GEMMs and lowers the SM clock (1980 -> ~1500-1650 MHz), so a variant
  // timed right after a heavy one pays for it; 0 = back to back (sustained), the default.
  int idle_ms = 0;
  double l2_factor = 2.0;  // rotate input/output sets over at least this many L2 sizes
  bool measure_copy = true;
  // Also time a device copy of the problem's bytes (BenchReport::same_bytes_copy_ms).
  bool same_bytes_copy = false;
  // > 0: fewer timed launches (never under 5 per round) for a variant whose warm-up says its
  // block would take longer than this -- a k0 on 16384^3 -- so a sweep over every candidate ends.
  double max_ms_per_variant = 0;
  // A launch shorter than this (measured in the first warm-up) is timed in groups of launches
  // that last about this long, each sample the group's mean: events resolve ~0.5 us.
  double sample_us = 50;
  // C = D in place (a problem that reads C): no C buffer, each launch reads what D holds. Else a
  // C the problem reads gets its own rotated buffers.
  bool c_in_place = false;
};

struct BenchResult {
  std::string variant;
  Status status;
  double ms_median = 0, ms_min = 0, ms_max = 0;
  double ms_stdev = 0;       // sample standard deviation (n - 1) of the samples
  double tflops = 0, gbps = 0;
  double pct_of_peer = 0;    // vs the best cuBLAS entry with the same types in the same run
  std::string peer;
  int samples = 0;
  int launches_per_sample = 1;  // > 1: each sample is the mean of a group of back-to-back launches
  std::string chose;         // bench --kernel auto: the variant auto resolved to (variant is "auto")
  std::string why;           // and how it chose (cache, model, fallback)
  bool held_out = false;     // a timed block outlasted the stream hold (timed with the host's gaps)
  std::string prepared;      // what the variant measured ahead of time (cuBLASLt: the algorithm it kept)
};

struct BenchReport {
  Problem problem;
  bool c_in_place = false;   // C = D (BenchOptions::c_in_place)
  int buffer_sets = 0;
  double set_bytes = 0;
  double copy_gbps = 0;      // device-to-device copy, bytes read + written
  double same_bytes_copy_ms = 0;  // a copy moving set_bytes (read + written), timed like a variant; 0: not run
  std::vector<BenchResult> results;
};
// The median of a sample (the middle value, or the mean of the middle two).
template <class T>
double median_of(std::vector<T> t) {
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  return n % 2 ? double(t[n / 2]) : 0.5 * (double(t[n / 2 - 1]) + double(t[n / 2]));
}
// A result's GB/s as % of the copy measured in its run; 0 where it failed or no copy was measured.
inline double pct_of_copy(const BenchReport& b, const BenchResult& x) {
  return x.status.ok() && b.copy_gbps > 0 ? 100.0 * x.gbps / b.copy_gbps : 0.0;
}

// Times every variant on the same rotated buffers in one run. All variants must share p's A, B
// and D types; each runs with its own accumulation type.
Status bench_variants(const Problem& p, const std::vector<const Variant*>& vs,
                      const BenchOptions& opt, BenchReport* out);

// The cuBLAS registry entries computing the same types as v (cublasGemmEx, cuBLASLt).
std::vector<const Variant*> peers_for(const Variant& v);

}  // namespace pipegemm
