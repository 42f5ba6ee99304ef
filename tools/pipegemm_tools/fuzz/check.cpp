// The fuzzer's comparison: every element of D, on all cores (D is up to 16384^2 elements and
// most runs compare one), plus the poison around D that no kernel may overwrite.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

#include "pipegemm_tools/fuzz/detail.hpp"
#include "pipegemm_tools/host_types.hpp"

namespace pipegemm::fuzz::detail {

void parallel_rows(int64_t rows, double work, const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads = std::clamp<int64_t>(int64_t(work / double(1 << 18)), 1, std::min(hw, rows));
  if (threads <= 1) return fn(0, rows);
  std::vector<std::thread> pool;
  const int64_t per = (rows + threads - 1) / threads;
  for (int64_t r0 = per; r0 < rows; r0 += per) pool.emplace_back(fn, r0, std::min(rows, r0 + per));
  fn(0, std::min(rows, per));
  for (auto& t : pool) t.join();
}

std::string RunCheck::summary() const {
  std::string s = cmp.summary();
  if (guard_bad) s += "; " + std::to_string(guard_bad) + " element(s) outside D overwritten";
  return s;
}

namespace {

// One row of D against the reference, compare_with_reference's rule: element j of row i of
// product b is got_row[j * step]. Divisions only where an element may be the new worst or the
// largest relative error (the loop runs 10^10 times).
template <class T, class R>
void compare_row(const T* got_row, int64_t step, const R* want_row, int64_t b, int64_t i, int64_t n,
                 const Tolerance& tol, CompareResult& out) {
  CompareResult c = out;  // a local copy: stores through `out` could alias want_row
  const double abs_tol = tol.abs, rel_tol = tol.rel;
  for (int64_t j = 0; j < n; ++j) {
    const double got = double(got_row[j * step]), want = double(want_row[j]), mag = std::fabs(want);
    const double allowed = abs_tol + rel_tol * mag;
    double err = INFINITY;
    if (!std::isfinite(got)) {
      ++c.non_finite;
    } else {
      err = std::fabs(got - want);
      if (c.max_abs_row < 0 || err > c.max_abs_err) {
        c.max_abs_err = err;
        c.max_abs_batch = b, c.max_abs_row = i, c.max_abs_col = j;
        c.max_abs_got = got, c.max_abs_ref = want;
      }
      if (want != 0 && err > c.max_rel_err * mag) c.max_rel_err = std::max(c.max_rel_err, err / mag);
    }
    c.failures += err > allowed;
    // ratio > worst_ratio needs err > worst_ratio * allowed (NaN for inf * 0: no update, as ratio <= inf).
    if (c.worst_row < 0 || !(err <= c.worst_ratio * allowed)) {
      const double ratio = !std::isfinite(err) ? INFINITY : allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
      if (c.worst_row < 0 || ratio > c.worst_ratio) {
        c.worst_ratio = ratio;
        c.worst_batch = b, c.worst_row = i, c.worst_col = j;
        c.worst_got = got, c.worst_ref = want;
      }
    }
  }
  c.checked += n;
  out = c;
}

// fp16 / bf16 bits as a number type compare_row can convert; fp16 through a 256 KB table
// (half_bits_to_float's branches cost more than the rest of the comparison).
float half_from_table(uint16_t h) {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t i = 0; i < 65536; ++i) t[i] = half_bits_to_float(uint16_t(i));
    return t;
  }();
  return table[h];
}
template <float (*F)(uint16_t)>
struct Bits16 {
  uint16_t b;
  explicit operator double() const { return double(F(b)); }
};

template <class Fn>
void with_element_type(DType t, const uint8_t* D, Fn&& fn) {
  switch (t) {
    case DType::f16: return fn(reinterpret_cast<const Bits16<half_from_table>*>(D));
    case DType::bf16: return fn(reinterpret_cast<const Bits16<bf16_bits_to_float>*>(D));
    case DType::f32: return fn(reinterpret_cast<const float*>(D));
    case DType::i8: return fn(reinterpret_cast<const int8_t*>(D));
    case DType::i32: return fn(reinterpret_cast<const int32_t*>(D));
  }
}

}  // namespace

RunCheck check_run(const Problem& in, const uint8_t* d_alloc, int64_t offset, const double* ref,
                   const Tolerance& tol, uint8_t poison) {
  return check_run(in, d_alloc, offset, RefView{ref, in.normalized().n}, tol, poison);
}

RunCheck check_run(const Problem& in, const uint8_t* d_alloc, int64_t offset, const RefView& ref,
                   const Tolerance& tol, uint8_t poison) {
  const Problem p = in.normalized();
  const int e = dtype_bytes(p.d_type);
  const uint8_t* D = d_alloc + offset * e;
  const int64_t batch = std::max<int64_t>(1, p.batch);
  auto poisoned = [&](const uint8_t* x) {
    for (int b = 0; b < e; ++b)
      if (x[b] != poison) return false;
    return true;
  };
  // Rows g = b*M + i of every product. One partial result per block of rows, merged in row order
  // (the first worst element wins ties, as in compare_with_reference).
  const int64_t rows = batch * p.m;
  const bool row_major = p.d_layout == Layout::RowMajor;
  const int64_t step = row_major ? 1 : p.ldd;  // from one column of D to the next
  const int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const int64_t blocks = std::min<int64_t>(rows, hw);
  std::vector<CompareResult> part(static_cast<size_t>(blocks));
  const int64_t per = (rows + blocks - 1) / blocks;
  parallel_rows(blocks, double(rows) * double(p.n), [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      CompareResult r;  // local: counters in `part` would share cache lines between threads
      const int64_t n = p.n;
      for (int64_t g = blk * per; g < std::min(rows, (blk + 1) * per); ++g) {
        const int64_t q = g / p.m, i = g % p.m;
        const int64_t first = q * p.stride_d + (row_major ? i * p.ldd : i);  // element (i, 0) of product q
        with_element_type(p.d_type, D, [&](auto* d) {
          const auto* want = static_cast<const uint8_t*>(ref.data);
          if (ref.fp64) return compare_row(d + first, step, reinterpret_cast<const double*>(want) + g * ref.ld, q, i, n, tol, r);
          with_element_type(ref.type, want, [&](auto* w) { compare_row(d + first, step, w + g * ref.ld, q, i, n, tol, r); });
        });
      }
      part[size_t(blk)] = r;
    }
  });
  RunCheck out;
  CompareResult& c = out.cmp;
  c.products = batch;
  for (const CompareResult& q : part) {
    c.checked += q.checked;
    c.failures += q.failures;
    c.non_finite += q.non_finite;
    if (q.max_abs_row >= 0 && (c.max_abs_row < 0 || q.max_abs_err > c.max_abs_err)) {
      c.max_abs_err = q.max_abs_err;
      c.max_abs_batch = q.max_abs_batch, c.max_abs_row = q.max_abs_row, c.max_abs_col = q.max_abs_col;
      c.max_abs_got = q.max_abs_got, c.max_abs_ref = q.max_abs_ref;
    }
    c.max_rel_err = std::max(c.max_rel_err, q.max_rel_err);
    if (q.worst_row >= 0 && (c.worst_row < 0 || q.worst_ratio > c.worst_ratio)) {
      c.worst_ratio = q.worst_ratio;
      c.worst_batch = q.worst_batch, c.worst_row = q.worst_row, c.worst_col = q.worst_col;
      c.worst_got = q.worst_got, c.worst_ref = q.worst_ref;
    }
  }
  c.pass = c.failures == 0 && c.checked == batch * p.m * p.n;

  // The guard: the offset before D, then each product's storage rows (rows of a row-major D,
  // columns of a column-major one) past their last element, up to the next row or product.
  for (int64_t x = 0; x < offset; ++x) out.guard_bad += !poisoned(d_alloc + x * e);
  const MatrixView v = view_d(p);
  const int64_t R = row_major ? p.m : p.n, L = row_major ? p.n : p.m, span = v.span();
  if (batch > 1 && v.stride < span) return out;  // products interleaved within ldd: no gaps to guard
  std::atomic<int64_t> bad{0};
  const int64_t storage_rows = batch * R;
  parallel_rows(storage_rows, double(storage_rows) * double(p.ldd - L + 1), [&](int64_t r0, int64_t r1) {
    int64_t local = 0;
    for (int64_t sr = r0; sr < r1; ++sr) {
      const int64_t q = sr / R, r = sr % R, base = q * v.stride;
      int64_t from = base + r * p.ldd + L, to = base + (r + 1) * p.ldd;
      if (r == R - 1) {
        if (q == batch - 1) continue;  // the last row's padding lies past the allocation's span
        from = base + span, to = (q + 1) * v.stride;  // up to the next product
      }
      for (int64_t x = from; x < to; ++x) local += !poisoned(D + x * e);
    }
    bad += local;
  });
  out.guard_bad += bad.load();
  return out;
}

void host_reference(const Problem& p, const uint8_t* A, const uint8_t* B, std::vector<double>& ref) {
  HostOperands x;
  x.a = A;
  x.b = B;
  host_reference(p, x, ref);
}

void host_reference(const Problem& p, const HostOperands& x, std::vector<double>& ref) { reference_gemm(p, x, ref); }

std::vector<std::string> stated_rules(const FuzzOptions& o) {
  const std::string max = std::to_string(o.max_dim);
  auto pow2 = [](double v) { return "2^" + std::to_string(int(std::lround(std::log2(std::max(v, 1.0))))); };
  char plain[32];
  std::snprintf(plain, sizeof plain, "%.0f%%", 100.0 * o.plain_fraction);
  std::vector<std::string> r = {
      std::string("problems: ") + plain + " the plain TN GEMM with M, N, K log-uniform in [1, " + max + "], the rest with "
      "semantics on M, N, K in [1, min(" + max + ", 1024)] (batch > 1: 512); K odd half the time, else a whole "
      "16-byte vector (8 f16/bf16, 4 f32, 16 i8); lda, ldb, ldd (and a C apart's ldc) each packed or packed + an "
      "odd pad in [1, 31], half the time each; A, B, C, the bias and D offset by one element (i8: four, the "
      "4-byte alignment its kernels need) half the time; a quarter of the problems instead vector-aligned "
      "throughout (M, N, K in whole 16-byte vectors, pads of 1-4 vectors, no offset: the tensor-core kernels' ground)",
      "semantics: layouts TN NN NT TT and D row or column-major alike; alpha 1 half the time, else 0.5 -1 2 1.5 "
      "-0.75 0.25 (int32 D: 2 -1 3 -2); beta = 0, C apart (f32 half the time under a 16-bit D) or C = D in place, "
      "a third each (beta 1 0.5 -1 2 -0.25; int32 D: 1 -1 2 3); bias none, row, col (D's type or f32); "
      "activation none relu gelu_tanh gelu_erf; batch 1 half the time, else 2-4 with A, B, C (apart) or nothing "
      "broadcast; an int32 D takes no bias or activation",
      "inputs: make_random_inputs(seed) streams (uniform [-1, 1], int8 full range); each problem reads their "
      "first offset + span elements, as `pipegemm verify --seed S --offset O` does (C and the bias: its streams)",
      "reference: the CPU (fp64) for every problem with semantics, and for a plain one where M*N*K <= " +
          pow2(o.cpu_ref_max_macs) + " and (M+N)*K <= 2^20 and M*N <= 2^22, else "
      "the cuBLAS peer with fp32 (i8: int32) accumulation and fp32 (i8: int32) output on copies of A and B "
      "packed and zero-padded to multiples of 16 (cublas_f16_f32out, cublas_bf16_f32out, cublas_i8, cublas_f32)",
      "tolerance: tolerance_for(the variant's problem) against either reference: HMMA abs 1e-2 rel 1e-2, fp16 "
      "accumulation abs 1e-2*max(1, K/32); IMMA exact (K*2^14 < 2^31); FFMA 1e-3/1e-3; abs x |alpha|, + the "
      "epilogue's and GELU's terms (tolerance_for says each). cuBLAS with fp32 "
      "accumulation and output errs ~sqrt(K)*2^-24*|partial| (~1e-4 at K=16384) and int32 is exact, so it "
      "stands in for fp64",
      "runs: auto, then every registered variant of the types that accepts the problem (auto's choice once)" +
          std::string(o.peers ? ", cuBLAS peers included" : ", cuBLAS peers left out (--peers adds them)") +
          "; a variant without a capability refuses (counted); auto refusing a plain problem is a mismatch, one "
          "with semantics a refusal; D poisoned (NaN / 0x80808080; C = D in place: C's values) before each, every "
          "element of every product compared" +
          std::string(o.guard ? ", the offset, ldd padding and gaps between products around D must stay poison"
                              : "; writes around D not checked (--no-guard)"),
  };
  if (o.k0_max_macs > 0)
    r.push_back("skipped: named k0 runs above " + pow2(o.k0_max_macs) +
                " MACs (the slowest rung); auto still runs k0 wherever it is auto's choice");
  return r;
}

}  // namespace pipegemm::fuzz::detail
