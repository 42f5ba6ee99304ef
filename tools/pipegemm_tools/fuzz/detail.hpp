// Inside the fuzzer: the host-side checks shared by fuzz.cpp and its tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/fuzz.hpp"
#include "pipegemm_tools/reference.hpp"

namespace pipegemm::fuzz::detail {

// Runs fn(r0, r1) over contiguous blocks of [0, rows) on up to all hardware threads, one thread
// per ~2^18 elements of `work` (a thread costs more than comparing a small D).
void parallel_rows(int64_t rows, double work, const std::function<void(int64_t, int64_t)>& fn);

struct RunCheck {
  CompareResult cmp;      // every element of D against the reference, compare_with_reference's rule
  int64_t guard_bad = 0;  // elements around D (offset, ldd padding, gaps between products) no longer poison
  bool pass() const { return cmp.pass && guard_bad == 0; }
  std::string summary() const;
};

// The reference a run is compared with: the CPU's dense fp64 batch x M x N (ld = N), or the
// cuBLAS peer's output as copied back (f32 or i32, leading dimension ld; one product, D
// row-major), compared in place.
struct RefView {
  const void* data = nullptr;
  int64_t ld = 0;
  bool fp64 = true;            // data is double; else elements of `type`
  DType type = DType::f32;
};

// d_alloc: D's allocation as copied back, `offset` elements before D's first one; poison: the
// byte D was filled with (with C = D in place, D's own elements held C: only those around them
// are guarded). Every product, either layout of D. The guard covers the offset, each storage
// row's padding up to ldd (but the last product's last row) and the gaps between products
// whose stride leaves them apart (stride_d >= a product's span).
RunCheck check_run(const Problem& p, const uint8_t* d_alloc, int64_t offset, const RefView& ref,
                   const Tolerance& tol, uint8_t poison);
// The same against a dense fp64 reference.
RunCheck check_run(const Problem& p, const uint8_t* d_alloc, int64_t offset, const double* ref,
                   const Tolerance& tol, uint8_t poison);

// reference_gemm on host operands (as `p` lays them out); reference_gemm threads over products,
// row blocks and column blocks, so a short M (four problems in ten of a log-uniform draw) still
// takes every core.
void host_reference(const Problem& p, const uint8_t* A, const uint8_t* B, std::vector<double>& ref);
void host_reference(const Problem& p, const HostOperands& x, std::vector<double>& ref);

// The (accumulation, output) types of the registered variants with this input, registry order.
std::vector<std::pair<DType, DType>> type_combos(DType in);
// The large problems' reference: the cuBLAS peer with fp32 (i8: int32) accumulation and output.
const Variant* reference_peer(DType in);

// invalid_argument for options run_fuzz cannot take.
Status check_options(const FuzzOptions& o);

// The generator, reference, tolerance and skip rules in words, with the numbers of `o`.
std::vector<std::string> stated_rules(const FuzzOptions& o);

}  // namespace pipegemm::fuzz::detail
