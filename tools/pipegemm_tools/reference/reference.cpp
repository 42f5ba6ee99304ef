#include "pipegemm_tools/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

#include "pipegemm_tools/host_types.hpp"

namespace pipegemm {
namespace {

// Converts an operand to a dense K-contiguous double matrix (rows x K), whatever its layout.
void to_kmajor(DType t, const void* src, int64_t rows, int64_t K, int64_t ld, Layout l, double* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < K; ++k)
      out[r * K + k] = load_as_double(t, src, l == Layout::RowMajor ? r * ld + k : k * ld + r);
}

// 4x4 register block, accumulators in Acc; the k loop is what the compiler vectorizes.
template <class Acc>
void block_4x4(const double* a, const double* b, int64_t K, int64_t ra, int64_t rb, Acc acc[4][4]) {
  for (int64_t k = 0; k < K; ++k) {
    Acc av[4], bv[4];
    for (int r = 0; r < 4; ++r) av[r] = r < ra ? Acc(a[r * K + k]) : Acc(0);
    for (int c = 0; c < 4; ++c) bv[c] = c < rb ? Acc(b[c * K + k]) : Acc(0);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) acc[r][c] += av[r] * bv[c];
  }
}

const void* at(const void* base, int64_t elements, DType t) {
  return static_cast<const uint8_t*>(base) + elements * dtype_bytes(t);
}

// Runs fn(t) on `threads` threads (t = 0 on the caller's).
template <class Fn>
void on_threads(int threads, Fn&& fn) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(fn, t);
  fn(0);
  for (auto& th : pool) th.join();
}

}  // namespace

double activate(Activation a, double x) {
  switch (a) {
    case Activation::none: return x;
    case Activation::relu: return x > 0 ? x : 0.0;
    case Activation::gelu_tanh: {
      const double c = std::sqrt(2.0 / 3.14159265358979323846);
      return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
    }
    case Activation::gelu_erf: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

void reference_gemm(const Problem& in, const HostOperands& x, std::vector<double>& ref, RefAccum acc,
                    int threads) {
  const Problem p = in.normalized();
  const int64_t M = p.m, N = p.n, K = p.k, batch = std::max<int64_t>(1, p.batch);
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  // Dense K-major copies of every distinct A and B (a broadcast one: once).
  const int64_t na = p.stride_a == 0 ? 1 : batch, nb = p.stride_b == 0 ? 1 : batch;
  std::vector<double> a(size_t(na * M * K)), b(size_t(nb * N * K));
  on_threads(int(std::min<int64_t>(threads, na + nb)), [&](int t) {
    for (int64_t q = t; q < na + nb; q += threads) {
      if (q < na)
        to_kmajor(p.a_type, at(x.a, q * p.stride_a, p.a_type), M, K, p.lda, p.a_layout, &a[size_t(q * M * K)]);
      else
        to_kmajor(p.b_type, at(x.b, (q - na) * p.stride_b, p.b_type), N, K, p.ldb, p.b_layout,
                  &b[size_t((q - na) * N * K)]);
    }
  });
  ref.assign(size_t(batch * M * N), 0.0);
  const bool int_d = p.d_type == DType::i32;
  const bool reads_c = p.reads_c() && x.c;
  const bool bias = p.bias != Bias::none && x.bias;
  const DType ct = *p.c_type, bt = *p.bias_type;
  // The epilogue of element (i, j) of product q, on its sum s.
  auto epilogue = [&](int64_t q, int64_t i, int64_t j, double s) {
    const int64_t ci = p.d_layout == Layout::RowMajor ? i * p.ldc + j : j * p.ldc + i;
    const double c = reads_c ? load_as_double(ct, x.c, q * p.stride_c + ci) : 0.0;
    if (int_d) {  // integer arithmetic: whole alpha, beta; no bias or activation for an int32 D
      const int64_t v = int64_t(p.alpha) * int64_t(s) + (reads_c ? int64_t(p.beta) * int64_t(c) : 0);
      return double(v);
    }
    double v = double(p.alpha) * s + (reads_c ? double(p.beta) * c : 0.0);
    if (bias) v += load_as_double(bt, x.bias, p.bias == Bias::per_row ? i : j);
    return activate(p.activation, v);
  };
  // Work items: (product, block of 4 rows, block of kCols columns), dealt round-robin.
  constexpr int64_t kCols = 256;
  const int64_t row_blocks = (M + 3) / 4, col_blocks = (N + kCols - 1) / kCols;
  const int64_t items = batch * row_blocks * col_blocks;
  threads = int(std::min<int64_t>(threads, items));
  on_threads(threads, [&](int t) {
    for (int64_t it = t; it < items; it += threads) {
      const int64_t q = it / (row_blocks * col_blocks), rest = it % (row_blocks * col_blocks);
      const int64_t i0 = (rest / col_blocks) * 4, ra = std::min<int64_t>(4, M - i0);
      const int64_t c0 = (rest % col_blocks) * kCols, c1 = std::min(N, c0 + kCols);
      const double* aq = &a[size_t((p.stride_a == 0 ? 0 : q) * M * K)];
      const double* bq = &b[size_t((p.stride_b == 0 ? 0 : q) * N * K)];
      for (int64_t j0 = c0; j0 < c1; j0 += 4) {
        const int64_t rb = std::min<int64_t>(4, c1 - j0);
        double out[4][4];
        if (acc == RefAccum::f64) {
          double s[4][4] = {};
          block_4x4<double>(aq + i0 * K, bq + j0 * K, K, ra, rb, s);
          for (int r = 0; r < 4; ++r) for (int c = 0; c < 4; ++c) out[r][c] = s[r][c];
        } else {
          float s[4][4] = {};
          block_4x4<float>(aq + i0 * K, bq + j0 * K, K, ra, rb, s);
          for (int r = 0; r < 4; ++r) for (int c = 0; c < 4; ++c) out[r][c] = s[r][c];
        }
        for (int64_t r = 0; r < ra; ++r)
          for (int64_t c = 0; c < rb; ++c)
            ref[size_t((q * M + i0 + r) * N + j0 + c)] = epilogue(q, i0 + r, j0 + c, out[r][c]);
      }
    }
  });
}

void reference_gemm(const Problem& p, const void* A, const void* B, std::vector<double>& ref, RefAccum acc,
                    int threads) {
  HostOperands x;
  x.a = A;
  x.b = B;
  reference_gemm(p, x, ref, acc, threads);
}

Tolerance tolerance_for(const Problem& in) {
  const Problem p = in.normalized();
  Tolerance t;
  char buf[200];
  const double alpha = std::fabs(double(p.alpha));
  const bool scaled = p.alpha != 1.f;
  // The base rule (alpha = 1, beta = 0, no epilogue), then what the semantics add.
  if (p.a_type == DType::i8) {
    if (p.d_type == DType::i32) {
      // |alpha sum| <= |alpha| K 128^2 and |beta C| <= |beta| 2^7 must stay below 2^31 for the int32
      // accumulation and epilogue to be exact.
      const double bound = std::max(1.0, alpha) * double(p.k) * 16384.0 + (p.reads_c() ? std::fabs(double(p.beta)) * 128.0 : 0.0);
      if (bound < 2147483648.0) {
        t.abs = 0; t.rel = 0;
        t.rule = !scaled && !p.reads_c() ? "int8 IMMA, int32 accumulation cannot overflow (K*2^14 < 2^31): exact"
                                         : "int8 IMMA, int32 accumulation and epilogue cannot overflow "
                                           "(|alpha| K 2^14 + |beta| 2^7 < 2^31): exact";
      } else {
        t.abs = 0.5 * std::max(1.0, alpha); t.rel = 0.1;
        t.rule = "int8 IMMA: abs 0.5 rel 0.1";
        if (scaled) t.rule += ", abs x |alpha|";
      }
      return t;
    }
    if (double(p.k) * 16384.0 < 2147483648.0) {
      if (!scaled && !p.reads_c() && !p.has_epilogue()) {
        t.abs = 0; t.rel = 0;
        t.rule = "int8 IMMA, int32 accumulation cannot overflow (K*2^14 < 2^31): exact";
        return t;
      }
      // The sum is exact; the fp32 epilogue rounds alpha*sum, beta*C, the bias and the activation.
      t.abs = 1e-4; t.rel = 1e-5;
      t.rule = "int8 IMMA, exact int32 sum, fp32 epilogue: abs 1e-4 rel 1e-5";
    } else {
      t.abs = 0.5 * std::max(1.0, alpha); t.rel = 0.1;
      t.rule = std::string("int8 IMMA: abs 0.5 rel 0.1") + (scaled ? ", abs x |alpha|" : "");
    }
  } else if (p.a_type == DType::f32) {
    t.abs = 1e-3 * alpha; t.rel = 1e-3;
    t.rule = std::string("fp32 FFMA: abs 1e-3") + (scaled ? " x |alpha|" : "") + " rel 1e-3";
  } else if (p.acc_type == DType::f16) {
    // Error model: fp16 rounding of the running sum, ~sqrt(#roundings) x ulp(|partial| ~ sqrt(K)),
    // so proportional to K. Constant calibrated on cuBLAS's own CUBLAS_COMPUTE_16F GEMM, which
    // shows max |err| 0.78-0.86 over 16.7M elements at K=4096 on the H200: K/32 x 1e-2 = 1.28 at
    // K=4096 leaves ~1.5x.
    const double grow = std::max(1.0, double(p.k) / 32.0);
    t.abs = 1e-2 * grow * alpha; t.rel = 1e-2;
    std::snprintf(buf, sizeof buf, "fp16 HMMA, fp16 accumulation: abs 1e-2 x max(1, K/32)%s = %.3g, rel 1e-2",
                  scaled ? " x |alpha|" : "", t.abs);
    t.rule = buf;
  } else {
    t.abs = 1e-2 * alpha; t.rel = 1e-2;
    t.rule = std::string(to_string(p.a_type)) + " HMMA, fp32 accumulation: abs 1e-2" +
             (scaled ? " x |alpha|" : "") + " rel 1e-2";
  }
  if (scaled) {
    std::snprintf(buf, sizeof buf, " (|alpha| = %g)", alpha);
    t.rule += buf;
  }
  // beta * C and the bias: added in fp32 from their stored values (|C|, |bias| <= 1 in the harness).
  const double added = (p.reads_c() ? std::fabs(double(p.beta)) : 0.0) + (p.bias != Bias::none ? 1.0 : 0.0);
  if (added > 0) {
    t.abs += std::ldexp(added, -22);
    std::snprintf(buf, sizeof buf, "; + 2^-22 x (|beta| |C| + |bias|) = %.3g for the fp32 epilogue (|C|, |bias| <= 1)",
                  std::ldexp(added, -22));
    t.rule += buf;
  }
  if (p.activation == Activation::gelu_tanh || p.activation == Activation::gelu_erf) {
    t.abs += 1e-3;
    t.rule += std::string("; + 1e-3 for ") + to_string(p.activation) + " (an fp32 tanh/erf approximation; GELU does not amplify)";
  } else if (p.activation == Activation::relu) {
    t.rule += "; relu does not amplify";
  }
  if ((p.d_type == DType::f16 || p.d_type == DType::bf16) && added > 0) {
    // An epilogue may round an intermediate -- alpha A B^T + beta C, before the bias -- to D's type
    // (cuBLASLt's bf16 does: 7 bf16 ulps off a 0.086 result after a bias of ~2 cancelled, found by
    // `pipegemm fuzz` on the H200): one rounding at D's precision of terms as large as |beta| + |bias|.
    const double eps = std::ldexp(1.0, p.d_type == DType::bf16 ? -8 : -11);
    t.abs += eps * added;
    std::snprintf(buf, sizeof buf, "; + 2^%d x (|beta| + |bias|) = %.3g for an intermediate rounded to %s",
                  p.d_type == DType::bf16 ? -8 : -11, eps * added, to_string(p.d_type));
    t.rule += buf;
  }
  if (p.d_type == DType::f16 || p.d_type == DType::bf16)
    if (!p.plain()) t.rule += std::string("; the ") + to_string(p.d_type) + " D's rounding is relative to |ref| (rel)";
  return t;
}

CompareResult compare_with_reference(const Problem& in, const void* D_host,
                                     const std::vector<double>& ref, const Tolerance& tol) {
  const Problem p = in.normalized();
  CompareResult r;
  const int64_t batch = std::max<int64_t>(1, p.batch);
  r.products = batch;
  for (int64_t q = 0; q < batch; ++q) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        const int64_t idx = q * p.stride_d + (p.d_layout == Layout::RowMajor ? i * p.ldd + j : j * p.ldd + i);
        const double got = load_as_double(p.d_type, D_host, idx);
        const double want = ref[size_t((q * p.m + i) * p.n + j)];
        ++r.checked;
        const double allowed = tol.abs + tol.rel * std::fabs(want);
        double err, ratio;
        if (!std::isfinite(got)) {
          ++r.non_finite;
          err = INFINITY;
          ratio = INFINITY;
        } else {
          err = std::fabs(got - want);
          ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
          if (r.max_abs_row < 0 || err > r.max_abs_err) {
            r.max_abs_err = err;
            r.max_abs_batch = q; r.max_abs_row = i; r.max_abs_col = j;
            r.max_abs_got = got; r.max_abs_ref = want;
          }
          if (want != 0) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(want));
        }
        if (err > allowed) ++r.failures;
        if (r.worst_row < 0 || ratio > r.worst_ratio) {
          r.worst_ratio = ratio;
          r.worst_batch = q; r.worst_row = i; r.worst_col = j;
          r.worst_got = got; r.worst_ref = want;
        }
      }
    }
  }
  r.pass = r.failures == 0 && r.checked == batch * p.m * p.n;
  return r;
}

std::string CompareResult::summary() const {
  // Positions as (row,col), with their product first when there are several: (product,row,col).
  auto pos = [&](int64_t b, int64_t i, int64_t j) {
    char p[80];
    if (products > 1) std::snprintf(p, sizeof p, "(%lld,%lld,%lld)", (long long)b, (long long)i, (long long)j);
    else std::snprintf(p, sizeof p, "(%lld,%lld)", (long long)i, (long long)j);
    return std::string(p);
  };
  char buf[560];
  std::snprintf(buf, sizeof buf,
                "%s: %lld/%lld elements outside tolerance (%lld non-finite); max abs err %.3g at "
                "%s: got %.6g, ref %.6g; max rel err %.3g; worst error/allowed %.2fx at "
                "%s: got %.6g, ref %.6g",
                pass ? "PASS" : "FAIL", (long long)failures, (long long)checked,
                (long long)non_finite, max_abs_err, pos(max_abs_batch, max_abs_row, max_abs_col).c_str(),
                max_abs_got, max_abs_ref, max_rel_err, worst_ratio, pos(worst_batch, worst_row, worst_col).c_str(),
                worst_got, worst_ref);
  std::string s = buf;
  if (products > 1) s += " (positions: product,row,col)";
  return s;
}

void fill_random(DType t, void* host, int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uf(-1.f, 1.f);
  std::uniform_int_distribution<int> ui(-128, 127);
  for (int64_t i = 0; i < count; ++i) {
    switch (t) {
      case DType::f16: static_cast<uint16_t*>(host)[i] = float_to_half_bits(uf(rng)); break;
      case DType::bf16: static_cast<uint16_t*>(host)[i] = float_to_bf16_bits(uf(rng)); break;
      case DType::f32: static_cast<float*>(host)[i] = uf(rng); break;
      case DType::i8: static_cast<int8_t*>(host)[i] = int8_t(ui(rng)); break;
      case DType::i32: static_cast<int32_t*>(host)[i] = ui(rng); break;
    }
  }
}

}  // namespace pipegemm
