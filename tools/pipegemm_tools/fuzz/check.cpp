// The fuzzer's comparison: every element of D, on all cores (D is up to 16384^2 elements and
// most runs compare one), plus the poison around D that no kernel may overwrite.
#include <algorithm>
#include <cmath>
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

// One row of D against the reference, compare_with_reference's rule. Divisions only where an
// element may be the new worst or the largest relative error (the loop runs 10^10 times).
template <class T, class R>
void compare_row(const T* got_row, const R* want_row, int64_t i, int64_t n, const Tolerance& tol,
                 CompareResult& out) {
  CompareResult c = out;  // a local copy: stores through `out` could alias want_row
  const double abs_tol = tol.abs, rel_tol = tol.rel;
  for (int64_t j = 0; j < n; ++j) {
    const double got = double(got_row[j]), want = double(want_row[j]), mag = std::fabs(want);
    const double allowed = abs_tol + rel_tol * mag;
    double err = INFINITY;
    if (!std::isfinite(got)) {
      ++c.non_finite;
    } else {
      err = std::fabs(got - want);
      if (c.max_abs_row < 0 || err > c.max_abs_err) {
        c.max_abs_err = err;
        c.max_abs_row = i, c.max_abs_col = j;
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
        c.worst_row = i, c.worst_col = j;
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
  auto poisoned = [&](const uint8_t* x) {
    for (int b = 0; b < e; ++b)
      if (x[b] != poison) return false;
    return true;
  };
  // One partial result per block of rows, merged in row order (the first worst element wins ties,
  // as in compare_with_reference).
  const int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const int64_t blocks = std::min<int64_t>(p.m, hw);
  std::vector<RunCheck> part(static_cast<size_t>(blocks));
  const int64_t per = (p.m + blocks - 1) / blocks;
  parallel_rows(blocks, double(p.m) * double(p.n), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      RunCheck r;  // local: counters in `part` would share cache lines between threads
      const int64_t n = p.n, ldd = p.ldd;
      for (int64_t i = b * per; i < std::min(p.m, (b + 1) * per); ++i) {
        with_element_type(p.d_type, D, [&](auto* d) {
          const auto* want = static_cast<const uint8_t*>(ref.data);
          if (ref.fp64) return compare_row(d + i * ldd, reinterpret_cast<const double*>(want) + i * ref.ld, i, n, tol, r.cmp);
          with_element_type(ref.type, want, [&](auto* w) { compare_row(d + i * ldd, w + i * ref.ld, i, n, tol, r.cmp); });
        });
        if (i + 1 < p.m)  // the last row's padding lies past the allocation's span
          for (int64_t j = n; j < ldd; ++j) r.guard_bad += !poisoned(D + (i * ldd + j) * e);
      }
      part[size_t(b)] = r;
    }
  });
  RunCheck out;
  CompareResult& c = out.cmp;
  for (int64_t x = 0; x < offset; ++x) out.guard_bad += !poisoned(d_alloc + x * e);
  for (const RunCheck& r : part) {
    const CompareResult& q = r.cmp;
    out.guard_bad += r.guard_bad;
    c.checked += q.checked;
    c.failures += q.failures;
    c.non_finite += q.non_finite;
    if (q.max_abs_row >= 0 && (c.max_abs_row < 0 || q.max_abs_err > c.max_abs_err)) {
      c.max_abs_err = q.max_abs_err;
      c.max_abs_row = q.max_abs_row, c.max_abs_col = q.max_abs_col;
      c.max_abs_got = q.max_abs_got, c.max_abs_ref = q.max_abs_ref;
    }
    c.max_rel_err = std::max(c.max_rel_err, q.max_rel_err);
    if (q.worst_row >= 0 && (c.worst_row < 0 || q.worst_ratio > c.worst_ratio)) {
      c.worst_ratio = q.worst_ratio;
      c.worst_row = q.worst_row, c.worst_col = q.worst_col;
      c.worst_got = q.worst_got, c.worst_ref = q.worst_ref;
    }
  }
  c.pass = c.failures == 0 && c.checked == p.m * p.n;
  return out;
}

void host_reference(const Problem& in, const uint8_t* A, const uint8_t* B, std::vector<double>& ref) {
  const Problem p = in.normalized();
  if (p.m >= p.n || p.m >= 64) return reference_gemm(p, A, B, ref);  // >= 16 blocks of 4 rows already
  Problem t = p;  // D^T (N,M) = B (N,K) * A (M,K)^T
  std::swap(t.m, t.n);
  std::swap(t.lda, t.ldb);
  std::vector<double> dt;
  reference_gemm(t, B, A, dt);
  ref.resize(size_t(p.m * p.n));
  parallel_rows(p.m, double(p.m) * double(p.n), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < p.n; ++j) ref[size_t(i * p.n + j)] = dt[size_t(j * p.m + i)];
  });
}

std::vector<std::string> stated_rules(const FuzzOptions& o) {
  const std::string max = std::to_string(o.max_dim);
  auto pow2 = [](double v) { return "2^" + std::to_string(int(std::lround(std::log2(std::max(v, 1.0))))); };
  std::vector<std::string> r = {
      "problems: M, N, K log-uniform in [1, " + max + "]; K odd half the time, else a whole 16-byte vector "
      "(8 f16/bf16, 4 f32, 16 i8); lda, ldb, ldd each packed or packed + an odd pad in [1, 31], half the time "
      "each; A, B and D offset by one element (i8: four, the 4-byte alignment its kernels need) half the time",
      "inputs: make_random_inputs(seed) streams (uniform [-1, 1], int8 full range); each problem reads their "
      "first offset + span elements, as `pipegemm verify --seed S --offset O` does",
      "reference: the CPU (fp64) where M*N*K <= " + pow2(o.cpu_ref_max_macs) + " and (M+N)*K <= 2^20 and M*N <= 2^22, else "
      "the cuBLAS peer with fp32 (i8: int32) accumulation and fp32 (i8: int32) output on copies of A and B "
      "packed and zero-padded to multiples of 16 (cublas_f16_f32out, cublas_bf16_f32out, cublas_i8, cublas_f32)",
      "tolerance: tolerance_for(the variant's problem) against either reference: HMMA abs 1e-2 rel 1e-2, fp16 "
      "accumulation abs 1e-2*max(1, K/32); IMMA exact (K*2^14 < 2^31); FFMA 1e-3/1e-3. cuBLAS with fp32 "
      "accumulation and output errs ~sqrt(K)*2^-24*|partial| (~1e-4 at K=16384) and int32 is exact, so it "
      "stands in for fp64",
      "runs: auto, then every registered variant of the types that accepts the problem (auto's choice once)" +
          std::string(o.peers ? ", cuBLAS peers included" : ", cuBLAS peers left out (--peers adds them)") +
          "; D poisoned (NaN / 0x80808080) before each, every element compared" +
          std::string(o.guard ? ", the offset and ldd padding around D must stay poison"
                              : "; writes around D not checked (--no-guard)"),
  };
  if (o.k0_max_macs > 0)
    r.push_back("skipped: named k0 runs above " + pow2(o.k0_max_macs) +
                " MACs (the slowest rung); auto still runs k0 wherever it is auto's choice");
  return r;
}

}  // namespace pipegemm::fuzz::detail
