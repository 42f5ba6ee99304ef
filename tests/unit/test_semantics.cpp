// Issue 13's semantics on the CPU: D = act(alpha A B^T + beta C + bias) for each product of a
// batch. The reference on hand-computed cases, the comparison over batches and layouts, the
// tolerances, the refusals before any launch (check_variant, GemmCall::make's overlap rule) and
// the request flags (problem_for).
#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/fuzz/detail.hpp"
#include "pipegemm_tools/host_types.hpp"
#include "pipegemm_tools/reference.hpp"
#include "pipegemm_tools/reports.hpp"

using namespace pipegemm;

namespace {

bool contains(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

// An f32 problem M x N x K (f32 in, acc and out: the reference reads the floats exactly).
Problem f32_problem(int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.a_type = p.b_type = p.acc_type = p.d_type = DType::f32;
  return p;
}

// A = [[1, 2], [3, 4]] (2x2, K-major), B = [[5, 6], [7, 8]] (N x K, K-major): A B^T = [[17, 23], [39, 53]].
const std::vector<float> kA = {1, 2, 3, 4}, kB = {5, 6, 7, 8};

std::vector<double> ref_of(const Problem& p, const void* A, const void* B, const void* C = nullptr,
                           const void* bias = nullptr) {
  HostOperands x;
  x.a = A, x.b = B, x.c = C, x.bias = bias;
  std::vector<double> r;
  reference_gemm(p, x, r, RefAccum::f64, 2);
  return r;
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << what << " [" << i << "]";
}

}  // namespace

TEST(SemanticsReference, AlphaBetaAndCApart) {
  Problem p = f32_problem(2, 2, 2);
  expect_values(ref_of(p, kA.data(), kB.data()), {17, 23, 39, 53}, "plain");
  p.alpha = 2.f;
  p.beta = 0.5f;
  const std::vector<float> C = {1, 2, 3, 4};
  expect_values(ref_of(p, kA.data(), kB.data(), C.data()), {34.5, 47, 79.5, 108}, "2 AB^T + 0.5 C");
  // C with its own (padded) leading dimension.
  p.ldc = 3;
  const std::vector<float> Cp = {1, 2, -99, 3, 4};
  expect_values(ref_of(p, kA.data(), kB.data(), Cp.data()), {34.5, 47, 79.5, 108}, "ldc 3");
  // beta = 0 never reads C (null is fine).
  p.beta = 0.f;
  expect_values(ref_of(p, kA.data(), kB.data(), nullptr), {34, 46, 78, 106}, "beta 0");
  // The old signature: alpha * A B^T.
  std::vector<double> r;
  reference_gemm(p, kA.data(), kB.data(), r);
  expect_values(r, {34, 46, 78, 106}, "old signature");
}

TEST(SemanticsReference, ColumnMajorCAndD) {
  // C (like D) column-major: C(i, j) at j * ldc + i.
  Problem p = f32_problem(2, 2, 2);
  p.d_layout = Layout::ColMajor;
  p.beta = 1.f;
  const std::vector<float> C = {1, 3, 2, 4};  // [[1, 2], [3, 4]] column-major
  // ref is always (i, j) row-major, whatever D's layout.
  expect_values(ref_of(p, kA.data(), kB.data(), C.data()), {18, 25, 42, 57}, "col-major C");
}

TEST(SemanticsReference, BiasPerRowAndPerColumnInEitherType) {
  Problem p = f32_problem(2, 2, 2);
  const std::vector<float> row = {1, -1}, col = {10, 20};
  p.bias = Bias::per_row;
  expect_values(ref_of(p, kA.data(), kB.data(), nullptr, row.data()), {18, 24, 38, 52}, "per row");
  p.bias = Bias::per_col;
  expect_values(ref_of(p, kA.data(), kB.data(), nullptr, col.data()), {27, 43, 49, 73}, "per col");
  // An f16 D with an f32 bias, and with a bias in D's type (f16 bits).
  Problem h = p;
  h.a_type = h.b_type = h.d_type = DType::f16;
  h.acc_type = DType::f32;
  const std::vector<uint16_t> ha = {float_to_half_bits(1), float_to_half_bits(2), float_to_half_bits(3), float_to_half_bits(4)};
  const std::vector<uint16_t> hb = {float_to_half_bits(5), float_to_half_bits(6), float_to_half_bits(7), float_to_half_bits(8)};
  h.bias_type = DType::f32;
  expect_values(ref_of(h, ha.data(), hb.data(), nullptr, col.data()), {27, 43, 49, 73}, "f32 bias");
  h.bias_type.reset();
  const std::vector<uint16_t> hcol = {float_to_half_bits(10), float_to_half_bits(20)};
  expect_values(ref_of(h, ha.data(), hb.data(), nullptr, hcol.data()), {27, 43, 49, 73}, "f16 bias");
}

TEST(SemanticsReference, ActivationsAreAppliedLast) {
  EXPECT_DOUBLE_EQ(activate(Activation::none, -2.5), -2.5);
  EXPECT_DOUBLE_EQ(activate(Activation::relu, -2.5), 0.0);
  EXPECT_DOUBLE_EQ(activate(Activation::relu, 2.5), 2.5);
  // PyTorch's F.gelu(x) and F.gelu(x, approximate="tanh") at +-1 and 2.
  EXPECT_NEAR(activate(Activation::gelu_erf, 1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu_erf, -1.0), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu_erf, 2.0), 1.9544997361036416, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu_tanh, 1.0), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu_tanh, -1.0), -0.15880800939172324, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu_tanh, 2.0), 1.954597694087775, 1e-15);
  // relu(-1 * A B^T + bias): the activation sees alpha, C and the bias first.
  Problem p = f32_problem(2, 2, 2);
  p.alpha = -1.f;
  p.bias = Bias::per_col;
  p.activation = Activation::relu;
  const std::vector<float> col = {20, 60};
  expect_values(ref_of(p, kA.data(), kB.data(), nullptr, col.data()), {3, 37, 0, 7}, "relu");
  // GELU of the 1x1x1 product 1 * 1 + bias -2 = -1, and of 1 + 1 = 2.
  Problem q = f32_problem(1, 1, 1);
  q.bias = Bias::per_row;
  const float one = 1, minus2 = -2, plus1 = 1;
  for (Activation a : {Activation::gelu_tanh, Activation::gelu_erf}) {
    q.activation = a;
    expect_values(ref_of(q, &one, &one, nullptr, &minus2), {activate(a, -1.0)}, to_string(a));
    expect_values(ref_of(q, &one, &one, nullptr, &plus1), {activate(a, 2.0)}, to_string(a));
  }
}

TEST(SemanticsReference, BatchWithEachOperandBroadcast) {
  // Two products; the second A is [[2, 0], [0, 2]] (2I), the second B is [[1, 0], [0, 1]] (I).
  Problem p = f32_problem(2, 2, 2);
  p.batch = 2;
  const std::vector<float> A2 = {1, 2, 3, 4, 2, 0, 0, 2}, B2 = {5, 6, 7, 8, 1, 0, 0, 1};
  // Packed: product 1 = 2I * I^T = 2I.
  expect_values(ref_of(p, A2.data(), B2.data()), {17, 23, 39, 53, 2, 0, 0, 2}, "packed");
  // A broadcast (stride 0): product 1 = A * I^T = A.
  Problem pa = p;
  pa.stride_a = 0;
  expect_values(ref_of(pa, kA.data(), B2.data()), {17, 23, 39, 53, 1, 2, 3, 4}, "A broadcast");
  // B broadcast: product 1 = 2I * B^T = 2 B^T.
  Problem pb = p;
  pb.stride_b = 0;
  expect_values(ref_of(pb, A2.data(), kB.data()), {17, 23, 39, 53, 10, 14, 12, 16}, "B broadcast");
  // C broadcast with beta 1: the same C added to both products; a C per product otherwise.
  Problem pc = p;
  pc.beta = 1.f;
  pc.stride_c = 0;
  const std::vector<float> C = {100, 200, 300, 400};
  expect_values(ref_of(pc, A2.data(), B2.data(), C.data()), {117, 223, 339, 453, 102, 200, 300, 402}, "C broadcast");
  pc.stride_c = -1;
  const std::vector<float> C2 = {100, 200, 300, 400, 1, 1, 1, 1};
  expect_values(ref_of(pc, A2.data(), B2.data(), C2.data()), {117, 223, 339, 453, 3, 1, 1, 3}, "C per product");
  // Strides larger than packed: products further apart.
  Problem ps = p;
  ps.stride_a = 6, ps.stride_b = 5;
  const std::vector<float> As = {1, 2, 3, 4, -9, -9, 2, 0, 0, 2}, Bs = {5, 6, 7, 8, -9, 1, 0, 0, 1};
  expect_values(ref_of(ps, As.data(), Bs.data()), {17, 23, 39, 53, 2, 0, 0, 2}, "strided");
}

// Every layout of A and B (with padded leading dimensions), D's layout (C read in it), alpha,
// beta, a bias and an activation, against a naive loop over the definition.
TEST(SemanticsReference, EveryLayoutAgainstTheDefinition) {
  for (Layout la : {Layout::RowMajor, Layout::ColMajor})
    for (Layout lb : {Layout::RowMajor, Layout::ColMajor})
      for (Layout ld : {Layout::RowMajor, Layout::ColMajor}) {
        Problem p;
        p.m = 11, p.n = 6, p.k = 9, p.batch = 3;
        p.a_type = p.b_type = p.d_type = DType::bf16;
        p.acc_type = DType::f32;
        p.a_layout = la, p.b_layout = lb, p.d_layout = ld;
        p.lda = (la == Layout::RowMajor ? p.k : p.m) + 3;
        p.ldb = (lb == Layout::RowMajor ? p.k : p.n) + 1;
        p.ldc = (ld == Layout::RowMajor ? p.n : p.m) + 2;
        p.alpha = -0.75f, p.beta = 1.5f;
        p.c_type = DType::f32;
        p.bias = Bias::per_row, p.bias_type = DType::f32;
        p.activation = Activation::gelu_erf;
        p.stride_b = 0;
        p = p.normalized();
        const HostInputs in = make_random_inputs(p, 77);
        ASSERT_FALSE(in.C.empty());
        ASSERT_EQ(in.bias.size(), size_t(p.m) * 4);
        HostOperands x;
        x.a = in.A.data(), x.b = in.B.data(), x.c = in.C.data(), x.bias = in.bias.data();
        std::vector<double> ref;
        reference_gemm(p, x, ref);
        ASSERT_EQ(ref.size(), size_t(p.batch * p.m * p.n));
        for (int64_t q = 0; q < p.batch; ++q)
          for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) {
              long double s = 0;
              for (int64_t k = 0; k < p.k; ++k) {
                const double a = load_as_double(p.a_type, x.a, q * p.stride_a + (la == Layout::RowMajor ? i * p.lda + k : k * p.lda + i));
                const double b = load_as_double(p.b_type, x.b, (lb == Layout::RowMajor ? j * p.ldb + k : k * p.ldb + j));
                s += (long double)a * b;
              }
              const double c = load_as_double(DType::f32, x.c, q * p.stride_c + (ld == Layout::RowMajor ? i * p.ldc + j : j * p.ldc + i));
              const double v = -0.75 * double(s) + 1.5 * c + load_as_double(DType::f32, x.bias, i);
              ASSERT_NEAR(ref[size_t((q * p.m + i) * p.n + j)], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-9)
                  << layout_name(la, lb) << " D " << to_string(ld) << " (" << q << "," << i << "," << j << ")";
            }
      }
}

TEST(SemanticsReference, Int32DIsExactIntegerArithmetic) {
  Problem p;
  p.m = 2, p.n = 2, p.k = 2;
  p.a_type = p.b_type = DType::i8;
  p.acc_type = p.d_type = DType::i32;
  p.alpha = 3.f, p.beta = -2.f;
  const std::vector<int8_t> A = {127, -128, 100, 1}, B = {127, 127, -128, -128};
  const std::vector<int32_t> C = {2147483, -7, 0, 5};
  // sums: 127*127 - 128*127 = -127; 127*-128 + -128*-128 = 128; 100*127 + 127 = 12827; -12800 - 128 = -12928
  expect_values(ref_of(p, A.data(), B.data(), C.data()), {3 * -127 - 2 * 2147483, 3 * 128 + 14, 3 * 12827, 3 * -12928 - 10},
                "int32");
  EXPECT_EQ(tolerance_for(p).abs, 0.0) << tolerance_for(p).rule;
  EXPECT_TRUE(contains(tolerance_for(p).rule, "exact")) << tolerance_for(p).rule;
}

// ---- the comparison: every element of every product, either layout of D --------------------

TEST(SemanticsCompare, BatchAndColumnMajorDCompareEveryElement) {
  Problem p = f32_problem(3, 4, 8);
  p.batch = 2;
  p.d_layout = Layout::ColMajor;
  p.ldd = 5;  // padded columns
  p = p.normalized();
  ASSERT_EQ(p.stride_d, 4 * 5);
  std::vector<double> ref(size_t(2 * 3 * 4));
  for (size_t x = 0; x < ref.size(); ++x) ref[x] = 0.5 * double(x);
  const int64_t elems = view_d(p).batch_span(2);
  std::vector<float> d(static_cast<size_t>(elems));
  std::memset(d.data(), 0xFF, d.size() * sizeof(float));  // the poison (a NaN): the padding keeps it
  for (int64_t q = 0; q < 2; ++q)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) d[size_t(q * p.stride_d + j * p.ldd + i)] = float(ref[size_t((q * 3 + i) * 4 + j)]);
  const Tolerance tol = tolerance_for(p);
  CompareResult c = compare_with_reference(p, d.data(), ref, tol);
  EXPECT_TRUE(c.pass) << c.summary();
  EXPECT_EQ(c.checked, 24);
  EXPECT_EQ(c.products, 2);
  d[size_t(1 * p.stride_d + 2 * p.ldd + 1)] += 1.f;  // product 1, (1, 2)
  c = compare_with_reference(p, d.data(), ref, tol);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.failures, 1);
  EXPECT_EQ(c.worst_batch, 1);
  EXPECT_EQ(c.worst_row, 1);
  EXPECT_EQ(c.worst_col, 2);
  EXPECT_TRUE(contains(c.summary(), "at (1,1,2)")) << c.summary();
  // The fuzzer's threaded check: the same verdict, and its guard sees writes into the padding.
  const auto* bytes = reinterpret_cast<const uint8_t*>(d.data());
  fuzz::detail::RunCheck r = fuzz::detail::check_run(p, bytes, 0, ref.data(), tol, 0xFF);
  EXPECT_EQ(r.cmp.failures, 1);
  EXPECT_EQ(r.cmp.worst_batch, 1);
  EXPECT_EQ(r.cmp.worst_row, 1);
  EXPECT_EQ(r.cmp.worst_col, 2);
  EXPECT_EQ(r.cmp.checked, 24);
  EXPECT_EQ(r.guard_bad, 0);
  d[size_t(1 * p.stride_d + 2 * p.ldd + 1)] -= 1.f;
  d[size_t(0 * p.stride_d + 1 * p.ldd + 3)] = 0.f;  // product 0, column 1's padding
  d[size_t(0 * p.stride_d + 3 * p.ldd + 4)] = 0.f;  // product 0's last column's padding: the gap to product 1
  r = fuzz::detail::check_run(p, bytes, 0, ref.data(), tol, 0xFF);
  EXPECT_TRUE(r.cmp.pass) << r.summary();
  EXPECT_EQ(r.guard_bad, 2) << r.summary();
}

TEST(SemanticsCompare, InPlaceInitialDHoldsCAndPoisonAround) {
  Problem p;
  p.m = 2, p.n = 3, p.k = 4, p.ldd = 4, p.batch = 2, p.beta = 1.f;
  p.a_type = p.b_type = p.d_type = DType::f16;
  p.ldc = 4;
  p = p.normalized();
  const std::vector<uint8_t> C = random_c(p, 5);
  ASSERT_EQ(C.size(), size_t(view_c(p).batch_span(2)) * 2);
  std::vector<uint8_t> img;
  initial_d(p, C.data(), true, &img);
  ASSERT_EQ(img.size(), C.size());
  const auto* c16 = reinterpret_cast<const uint16_t*>(C.data());
  const auto* d16 = reinterpret_cast<const uint16_t*>(img.data());
  for (int64_t x = 0; x < int64_t(img.size() / 2); ++x) {
    const int64_t in_product = x % p.stride_d;
    const bool element = in_product % p.ldd < p.n;
    EXPECT_EQ(d16[x], element ? c16[x] : uint16_t(0xFFFF)) << x;
  }
  initial_d(p, C.data(), false, &img);  // C apart: D is all poison
  for (uint8_t b : img) ASSERT_EQ(b, 0xFF);
}

// ---- tolerances: |alpha|, beta |C|, the activation -------------------------------------------

TEST(SemanticsTolerance, AlphaScalesTheProductsErrorAndTheRuleSaysEachTerm) {
  Problem p;
  p.m = p.n = p.k = 256;
  const Tolerance plain = tolerance_for(p);
  EXPECT_DOUBLE_EQ(plain.abs, 1e-2);
  p.alpha = -2.f;
  Tolerance t = tolerance_for(p);
  EXPECT_DOUBLE_EQ(t.abs, 2e-2);
  EXPECT_DOUBLE_EQ(t.rel, 1e-2);
  EXPECT_TRUE(contains(t.rule, "|alpha|")) << t.rule;
  p.beta = 0.5f;
  p.bias = Bias::per_col;
  t = tolerance_for(p);
  // f16 D: the fp32 epilogue's rounding, and one rounding of an intermediate at f16's precision.
  EXPECT_NEAR(t.abs, 2e-2 + std::ldexp(1.5, -22) + std::ldexp(1.5, -11), 1e-15);
  EXPECT_TRUE(contains(t.rule, "|beta| |C|")) << t.rule;
  EXPECT_TRUE(contains(t.rule, "intermediate rounded to f16")) << t.rule;
  p.activation = Activation::relu;
  EXPECT_DOUBLE_EQ(tolerance_for(p).abs, t.abs) << "relu does not amplify";
  p.activation = Activation::gelu_tanh;
  EXPECT_NEAR(tolerance_for(p).abs, t.abs + 1e-3, 1e-15);
  EXPECT_TRUE(contains(tolerance_for(p).rule, "gelu_tanh")) << tolerance_for(p).rule;
  // fp16 accumulation: K's growth times |alpha|.
  Problem h;
  h.m = h.n = 64, h.k = 256, h.acc_type = DType::f16, h.alpha = 0.5f;
  EXPECT_DOUBLE_EQ(tolerance_for(h).abs, 4e-2);
  // An int8 product into an f32 D with an epilogue is no longer exact; into int32 it stays exact
  // until |alpha| K 2^14 reaches 2^31.
  Problem i;
  i.m = i.n = 64, i.k = 512;
  i.a_type = i.b_type = DType::i8, i.acc_type = DType::i32, i.d_type = DType::f32;
  EXPECT_EQ(tolerance_for(i).abs, 0.0);
  i.bias = Bias::per_row;
  EXPECT_GT(tolerance_for(i).abs, 0.0) << tolerance_for(i).rule;
  i.bias = Bias::none;
  i.d_type = DType::i32;
  i.alpha = 3.f;
  EXPECT_EQ(tolerance_for(i).abs, 0.0);
  i.alpha = 1000.f;  // 1000 * 512 * 2^14 > 2^31
  EXPECT_GT(tolerance_for(i).abs, 0.0);
}

// ---- refusals before any launch ---------------------------------------------------------------

namespace {
// The first registered ladder variant of f16 in / f16 out without capability `has`, preferring k4.
const Variant* lacking(bool (*has)(const Requirements&)) {
  const Variant* any = nullptr;
  for (const Variant& v : variants()) {
    if (v.is_peer() || v.a_type != DType::f16 || v.d_type != DType::f16 || v.acc_type != DType::f32 || has(v.req)) continue;
    if (v.family == "k4_multistage") return &v;
    if (!any) any = &v;
  }
  return any;
}
Problem f16_problem(int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  return p;
}
}  // namespace

TEST(SemanticsRefusal, CheckVariantNamesTheMissingCapability) {
  const Problem base = f16_problem(256, 256, 256);
  const Variant* v = lacking([](const Requirements& r) { return r.scale; });
  ASSERT_NE(v, nullptr) << "every f16 ladder variant scales: nothing left to refuse";
  ASSERT_TRUE(check_variant(*v, base, 90).ok()) << check_variant(*v, base, 90).message;
  Problem p = base;
  p.beta = 1.f;
  Status s = check_variant(*v, p, 90);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_TRUE(contains(s.message, "alpha = 1, beta = 0 only")) << s.message;
  EXPECT_TRUE(contains(s.message, v->name)) << s.message;
  p = base;
  p.alpha = 2.f;
  EXPECT_TRUE(contains(check_variant(*v, p, 90).message, "alpha = 1, beta = 0 only"));

  const Variant* tn = lacking([](const Requirements& r) { return r.a_mn_major; });
  ASSERT_NE(tn, nullptr);
  p = base;
  p.a_layout = Layout::ColMajor;  // NN
  s = check_variant(*tn, p, 90);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_TRUE(contains(s.message, "takes only a K-major A")) << s.message;
  EXPECT_TRUE(contains(describe_capabilities(*tn), "TN")) << describe_capabilities(*tn);
  EXPECT_FALSE(contains(describe_capabilities(*tn), "NN")) << describe_capabilities(*tn);
  const Variant* tnb = lacking([](const Requirements& r) { return r.b_mn_major; });
  ASSERT_NE(tnb, nullptr);
  p = base;
  p.b_layout = Layout::ColMajor;  // TT
  EXPECT_TRUE(contains(check_variant(*tnb, p, 90).message, "takes only a K-major B")) << check_variant(*tnb, p, 90).message;

  const Variant* nb = lacking([](const Requirements& r) { return r.batch; });
  ASSERT_NE(nb, nullptr);
  p = base;
  p.batch = 3;
  EXPECT_TRUE(contains(check_variant(*nb, p, 90).message, "one product per call")) << check_variant(*nb, p, 90).message;
  const Variant* nbias = lacking([](const Requirements& r) { return r.bias_per_col; });
  ASSERT_NE(nbias, nullptr);
  p = base;
  p.bias = Bias::per_col;
  EXPECT_EQ(check_variant(*nbias, p, 90).code, StatusCode::not_supported);
  const Variant* nact = lacking([](const Requirements& r) { return (r.activations & (1u << int(Activation::gelu_erf))) != 0; });
  ASSERT_NE(nact, nullptr);
  p = base;
  p.activation = Activation::gelu_erf;
  EXPECT_TRUE(contains(check_variant(*nact, p, 90).message, "gelu_erf")) << check_variant(*nact, p, 90).message;
}

// cuBLASLt computes an integer GEMM's C only in place (its candidates returned wrong int32 sums for
// a C apart on the H200, found by `pipegemm fuzz`): cublaslt_i8 refuses a C apart before any launch, naming the
// capability, so auto never picks it there; its 16-bit entries keep their C descriptor.
TEST(SemanticsRefusal, CublasLtReadsAnInt8GemmsCOnlyInPlace) {
  Problem p = f16_problem(400, 80, 192);
  p.a_type = p.b_type = DType::i8, p.acc_type = DType::i32, p.d_type = DType::i32;
  p.alpha = 3.f, p.beta = 2.f;
  p.c_type = DType::i32;
  const Variant* lt = find_variant("cublaslt_i8");
  ASSERT_NE(lt, nullptr);
  const Operands apart = probe_operands(p.normalized(), 0, false), in_place = probe_operands(p.normalized(), 0, true);
  const Status s = check_variant(*lt, p, 90, apart);
  EXPECT_EQ(s.code, StatusCode::not_supported) << s.message;
  EXPECT_TRUE(contains(s.message, "reads C only in place")) << s.message;
  EXPECT_TRUE(check_variant(*lt, p, 90, in_place).ok()) << check_variant(*lt, p, 90, in_place).message;
  Problem h = f16_problem(400, 80, 192);
  h.alpha = 3.f, h.beta = 2.f;
  const Variant* lt16 = find_variant("cublaslt_f16");
  ASSERT_NE(lt16, nullptr);
  EXPECT_TRUE(check_variant(*lt16, h, 90, probe_operands(h.normalized(), 0, false)).ok());
}

// cuBLAS 13.1 returned wrong 16-bit GEMM sums on the H200 for some K = 8 mod 16 past 13,000 with
// small outputs (found by `pipegemm fuzz`: 8x32x16136, 24x40x13448): both peers refuse that
// envelope (K = 8 mod 16 from 8192, M N <= 512 x 512) before a launch, by name and as auto's
// candidates; its neighbours, shorter K and large outputs still reach them.
TEST(SemanticsRefusal, CublasRefusesTheKWhereItsSumsWereWrong) {
  for (const char* name : {"cublas_f16", "cublaslt_f16", "cublas_bf16_f32out", "cublaslt_bf16"}) {
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (auto bad : {std::array<int64_t, 3>{8, 32, 16136}, {24, 40, 13448}, {512, 512, 8200}}) {
      Problem p = f16_problem(bad[0], bad[1], bad[2]);
      p.a_type = p.b_type = v->a_type, p.d_type = v->d_type;
      const Status s = check_variant(*v, p, 90);
      EXPECT_EQ(s.code, StatusCode::not_supported) << name << " " << p.shape_string();
      EXPECT_TRUE(contains(s.message, "K = 8 mod 16")) << s.message;
    }
    for (auto ok : {std::array<int64_t, 3>{8, 32, 16128}, {8, 32, 8184}, {8, 32, 8200 - 16 * 512}, {513, 512, 13448},
                    {1024, 1024, 16136}}) {
      Problem q = f16_problem(ok[0], ok[1], ok[2]);
      q.a_type = q.b_type = v->a_type, q.d_type = v->d_type;
      EXPECT_TRUE(check_variant(*v, q, 90).ok()) << name << " " << q.shape_string() << ": " << check_variant(*v, q, 90).message;
    }
  }
  const Problem p = f16_problem(8, 32, 16136);
  std::string why;
  const Variant* chosen = choose_variant(p.normalized(), 90, nullptr, nullptr, nullptr, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_FALSE(chosen->is_peer()) << chosen->name << ": " << why;
}

// k5's general form reads MN-major 16-bit operands (wgmma transposed), so it takes all four
// layouts; so does its packed form (it copies each operand's stored rows, whichever layout). The int8 rungs read K-major operands: k0 takes the others through a transposed copy
// (launch_k_major), k4 and k5's s8 (packed or not) refuse them.
TEST(SemanticsRefusal, EveryLayoutReachesK5AndK0Int8) {
  const Layout kLayouts[][2] = {{Layout::ColMajor, Layout::RowMajor},
                                {Layout::RowMajor, Layout::ColMajor},
                                {Layout::ColMajor, Layout::ColMajor}};
  struct Named { const char* name; DType in, acc, out; bool takes; };
  const Named cases[] = {{"k5_f16_128x256x64_s4", DType::f16, DType::f32, DType::f16, true},
                         {"k5_bf16_128x256x64_s4", DType::bf16, DType::f32, DType::bf16, true},
                         {"k5_f16_f32out_128x256x64_s4", DType::f16, DType::f32, DType::f32, true},
                         {"k5_f16_128x256x64_s4_packed", DType::f16, DType::f32, DType::f16, true},
                         {"k5_i8_128x256x128_s4_packed", DType::i8, DType::i32, DType::i32, false},
                         {"k0_i8_128x128x32", DType::i8, DType::i32, DType::i32, true},
                         {"k0_i8_f32out_128x128x32", DType::i8, DType::i32, DType::f32, true},
                         {"k4_i8_128x256x64_s4", DType::i8, DType::i32, DType::i32, false}};
  for (const Named& c : cases) {
    const Variant* v = find_variant(c.name);
    ASSERT_NE(v, nullptr) << c.name << " is not registered";
    for (const auto& l : kLayouts) {
      Problem p = f16_problem(1024, 768, 512);
      p.a_type = p.b_type = c.in, p.acc_type = c.acc, p.d_type = c.out;
      p.a_layout = l[0], p.b_layout = l[1];
      const Status s = check_variant(*v, p, 90);
      if (c.takes) {
        EXPECT_TRUE(s.ok()) << c.name << " " << layout_name(l[0], l[1]) << ": " << s.message;
      } else {
        EXPECT_EQ(s.code, StatusCode::not_supported) << c.name << " " << layout_name(l[0], l[1]);
        EXPECT_TRUE(contains(s.message, "takes only a K-major")) << s.message;
      }
    }
    const std::string caps = describe_capabilities(*v);
    EXPECT_EQ(contains(caps, "NN") && contains(caps, "NT") && contains(caps, "TT"), c.takes) << c.name << ": " << caps;
  }
}

TEST(SemanticsRefusal, InvalidSemanticsAreRefusedByValidation) {
  Problem p = f16_problem(64, 64, 64);
  p.beta = 1.f;
  p.c_type = DType::bf16;  // C has D's type or f32
  EXPECT_EQ(validate_problem(p).code, StatusCode::not_supported);
  p.c_type.reset();
  p.ldc = 10;  // smaller than a row
  EXPECT_TRUE(contains(validate_problem(p).message, "ldc=10")) << validate_problem(p).message;
  Problem i = f16_problem(64, 64, 64);
  i.a_type = i.b_type = DType::i8, i.acc_type = i.d_type = DType::i32;
  i.alpha = 0.5f;
  EXPECT_TRUE(contains(validate_problem(i).message, "whole-number")) << validate_problem(i).message;
  i.alpha = 1.f;
  i.activation = Activation::relu;
  EXPECT_EQ(validate_problem(i).code, StatusCode::not_supported);
  Problem b = f16_problem(64, 64, 64);
  b.batch = 2;
  b.stride_d = 0;  // D's products on top of each other
  EXPECT_TRUE(contains(validate_problem(b).message, "overlap")) << validate_problem(b).message;
}

// GemmCall::make checks the problem and the pointers before it looks for a GPU: a D that overlaps
// C, the bias or an input is refused here with or without one, and nothing is written.
TEST(SemanticsRefusal, OverlappingDIsRefusedBeforeAnyLaunch) {
  Problem p = f16_problem(16, 16, 16);
  p.beta = 1.f;
  std::vector<uint16_t> host(4096, 0x1234);  // never dereferenced by make(); must stay as it is
  uint16_t* buf = host.data();
  Operands x;
  x.a = buf;
  x.b = buf + 256;
  x.d = buf + 1024;
  x.c = buf + 1024 + 100;  // C apart, inside D
  GemmCall call;
  Status s = GemmCall::make(p, "auto", x, &call);
  EXPECT_EQ(s.code, StatusCode::invalid_argument) << s.message;
  EXPECT_TRUE(contains(s.message, "D overlaps C")) << s.message;
  // C = D itself (same pointer, ldc, type, stride) is in place, not an overlap.
  x.c = x.d;
  s = GemmCall::make(p, "auto", x, &call);
  EXPECT_FALSE(contains(s.message, "overlaps")) << s.message;
  // The same pointer with another ldc is a C apart that overlaps D.
  Problem q = p;
  q.ldc = 20;
  s = GemmCall::make(q, "auto", x, &call);
  EXPECT_TRUE(contains(s.message, "D overlaps C")) << s.message;
  // The bias inside D, and D inside A.
  x.c = buf + 2048;
  Problem r = p;
  r.bias = Bias::per_col;
  x.bias = buf + 1024 + 255;  // the last element of D
  s = GemmCall::make(r, "auto", x, &call);
  EXPECT_TRUE(contains(s.message, "D overlaps the bias")) << s.message;
  x.bias = buf + 3000;
  x.d = buf + 128;  // D (256 elements) starting inside A
  s = GemmCall::make(r, *find_variant("cublas_f16"), x, &call);
  EXPECT_TRUE(contains(s.message, "D overlaps A")) << s.message;
  // A batch: D's whole extent counts (the second product reaches C).
  Problem bt = f16_problem(16, 16, 16);
  bt.batch = 2;
  bt.beta = 1.f;
  x.d = buf + 1024;
  x.c = buf + 1024 + 300;  // past product 0, inside product 1
  s = GemmCall::make(bt, "auto", x, &call);
  EXPECT_TRUE(contains(s.message, "D overlaps C")) << s.message;
  for (uint16_t v : host) ASSERT_EQ(v, 0x1234);
}

// A descriptor no memory can hold is refused by validation, before any offset computed from it can
// wrap: the extent of each operand over the batch must stay under 2^62 bytes. A stride below -1 is
// an error, not "packed".
TEST(SemanticsRefusal, ExtentsPast2To62BytesAndStridesBelowMinusOneAreRefused) {
  Problem p = f16_problem(1024, 1024, 1024);
  p.lda = int64_t(1) << 52;  // 1023 rows of 2^52 elements: past 2^62 bytes
  Status s = validate_problem(p);
  EXPECT_EQ(s.code, StatusCode::invalid_argument);
  EXPECT_TRUE(contains(s.message, "A spans 2^62 bytes")) << s.message;
  p.lda = int64_t(1) << 50;  // 2^60 bytes: addressable in principle, accepted by validation
  EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message;
  p.lda = 0;
  p.batch = 1 << 20;
  p.stride_b = int64_t(1) << 45;  // the last product 2^65 elements on
  s = validate_problem(p);
  EXPECT_TRUE(contains(s.message, "B spans 2^62 bytes")) << s.message;
  p.stride_b = INT64_MAX;  // (batch - 1) * stride itself overflows
  EXPECT_TRUE(contains(validate_problem(p).message, "B spans")) << validate_problem(p).message;
  p.stride_b = -1;
  p.ldd = int64_t(1) << 40;  // packed D products of 1024 rows of 2^40: 2^70 elements over the batch
  EXPECT_TRUE(contains(validate_problem(p).message, "D spans")) << validate_problem(p).message;
  p.ldd = 0;
  p.ldd = INT64_MAX;  // the packed stride itself does not fit (normalized() saturates it)
  EXPECT_TRUE(contains(validate_problem(p).message, "D spans")) << validate_problem(p).message;
  p.ldd = 0;
  p.beta = 1.f;
  p.ldc = int64_t(1) << 61;
  p.batch = 1;
  EXPECT_TRUE(contains(validate_problem(p).message, "C spans")) << validate_problem(p).message;
  p.ldc = 0;
  p.stride_c = -2;
  EXPECT_TRUE(contains(validate_problem(p).message, "stride_c=-2")) << validate_problem(p).message;
  p.stride_c = -1;
  EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message;
}

// Random hostile descriptors (sizes, leading dimensions, strides and batches from 0 and negatives
// up to INT64_MAX): validation either refuses with a message or accepts a problem whose every
// operand's extent over the batch, recomputed here in 128-bit arithmetic, is under 2^62 bytes; and
// check_variant answers for every registered variant without a launch.
TEST(SemanticsRefusal, RandomHostileDescriptorsAreRefusedOrFitIn2To62Bytes) {
  std::mt19937_64 rng(20261205);
  const int64_t edge[] = {-2, -1, 0, 1, 2, 7, 8, 255, 1 << 16, INT32_MAX, int64_t(INT32_MAX) + 1, int64_t(1) << 40,
                          int64_t(1) << 61, INT64_MAX - 1, INT64_MAX};
  auto pick = [&](bool small) -> int64_t {
    const uint64_t r = rng() % 4;
    if (r == 0) return edge[rng() % (sizeof edge / sizeof edge[0])];
    if (r == 1 || small) return int64_t(rng() % 300);
    return int64_t(rng() >> (rng() % 64));
  };
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    Problem p = f16_problem(pick(true), pick(true), pick(true));
    if (rng() % 4 == 0) p.m = pick(false);
    p.a_layout = rng() % 2 ? Layout::RowMajor : Layout::ColMajor;
    p.b_layout = rng() % 2 ? Layout::RowMajor : Layout::ColMajor;
    p.d_layout = rng() % 2 ? Layout::RowMajor : Layout::ColMajor;
    p.lda = rng() % 2 ? 0 : pick(false), p.ldb = rng() % 2 ? 0 : pick(false);
    p.ldc = rng() % 2 ? 0 : pick(false), p.ldd = rng() % 2 ? 0 : pick(false);
    p.beta = rng() % 2 ? 0.f : 1.f;
    p.batch = rng() % 2 ? 1 : pick(false);
    p.stride_a = rng() % 2 ? -1 : pick(false), p.stride_b = rng() % 2 ? -1 : pick(false);
    p.stride_c = rng() % 2 ? -1 : pick(false), p.stride_d = rng() % 2 ? -1 : pick(false);
    const Status s = validate_problem(p);
    if (!s.ok()) {
      EXPECT_FALSE(s.message.empty());
      continue;
    }
    ++accepted;
    const Problem n = p.normalized();
    for (const MatrixView& v : {view_a(n), view_b(n), view_d(n)}) {
      const bool row = v.layout == Layout::RowMajor;
      const __int128 outer = row ? v.rows : v.cols, inner = row ? v.cols : v.rows;
      const __int128 bytes = ((n.batch - 1) * __int128(v.stride) + (outer - 1) * v.ld + inner) * 2;
      ASSERT_LT(bytes, __int128(1) << 62) << n.shape_string() << " ld " << v.ld << " stride " << v.stride;
      ASSERT_GE(v.stride, 0);
    }
    for (const Variant& v : variants())
      (void)check_variant(v, p, 90, reinterpret_cast<const void*>(uintptr_t(256)), reinterpret_cast<const void*>(uintptr_t(512)),
                          reinterpret_cast<void*>(uintptr_t(1024)));
  }
  EXPECT_GT(accepted, 100);  // the generator reaches valid problems too
}

// ---- the request flags (the CLI's --layout ... --act) -----------------------------------------

TEST(SemanticsRequest, ProblemForAppliesEveryFlag) {
  ProblemRequest r;
  r.shape = "37x53x71";
  r.layout = "NT";
  r.d_layout = "col";
  r.alpha = 2.f, r.beta = -0.5f;
  r.c_dtype = "f32";
  r.ldc = 40;
  r.batch = 3;
  r.broadcast = "b";
  r.bias = "row";
  r.bias_dtype = "f32";
  r.act = "gelu_erf";
  Variant v;  // f16 in, f32 acc, f16 out
  Problem p;
  Status s = problem_for(r, v, &p);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(p.a_layout, Layout::ColMajor);
  EXPECT_EQ(p.b_layout, Layout::ColMajor);
  EXPECT_STREQ(layout_name(p.a_layout, p.b_layout), "NT");
  EXPECT_EQ(p.d_layout, Layout::ColMajor);
  EXPECT_EQ(p.alpha, 2.f);
  EXPECT_EQ(p.beta, -0.5f);
  EXPECT_EQ(*p.c_type, DType::f32);
  EXPECT_EQ(p.ldc, 40);
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.stride_b, 0);
  EXPECT_EQ(p.stride_a, p.k * p.lda);
  EXPECT_EQ(p.bias, Bias::per_row);
  EXPECT_EQ(*p.bias_type, DType::f32);
  EXPECT_EQ(p.activation, Activation::gelu_erf);
  EXPECT_EQ(p.ldd, 37);  // a column-major D's packed ldd is M
  EXPECT_EQ(semantics_text(p, false), "NT, D col, alpha 2, beta -0.5 (C apart, f32), batch 3 (B broadcast), bias row f32, gelu_erf");
  EXPECT_EQ(broadcast_of(p), "b");
  EXPECT_EQ(c_binding(p, false), "apart");
  EXPECT_EQ(semantic_cells(p, false).size(), semantic_columns().size());

  // C = D in place: D's leading dimension, type and stride.
  ProblemRequest d;
  d.shape = "64x32x16";
  d.beta = 1.f;
  d.c = "d";
  d.ldd = 40;
  ASSERT_TRUE((s = problem_for(d, v, &p)).ok()) << s.message;
  EXPECT_EQ(p.ldc, 40);
  EXPECT_EQ(*p.c_type, p.d_type);
  EXPECT_EQ(p.stride_c, p.stride_d);
  EXPECT_TRUE(d.c_in_place());
  EXPECT_EQ(c_binding(p, true), "d");
  EXPECT_EQ(semantics_text(p, true), "beta 1 (C = D)");
  EXPECT_EQ(semantics_text(Problem{}, false), "");  // the plain TN GEMM
  // Probe pointers: C is D in place, apart otherwise; 256-byte aligned plus the offset.
  const Operands in_place = probe_operands(p, 1, true), apart = probe_operands(p, 1, false);
  EXPECT_EQ(in_place.c, in_place.d);
  EXPECT_NE(apart.c, apart.d);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(apart.a) % 256, 2u);
  EXPECT_EQ(in_place.bias, nullptr);
}

TEST(SemanticsRequest, BadFlagsAreRefusedWithTheirName) {
  Variant v;
  Problem p;
  auto refusal = [&](ProblemRequest r) {
    if (r.shape.empty()) r.shape = "64x64x64";
    Status s = problem_for(r, v, &p);
    EXPECT_EQ(s.code, StatusCode::invalid_argument) << s.message;
    return s.message;
  };
  ProblemRequest r;
  r.layout = "XN";
  EXPECT_TRUE(contains(refusal(r), "unknown --layout 'XN'"));
  r = {}, r.d_layout = "diag";
  EXPECT_TRUE(contains(refusal(r), "--d-layout"));
  r = {}, r.c = "b";
  EXPECT_TRUE(contains(refusal(r), "--c"));
  r = {}, r.bias = "diag";
  EXPECT_TRUE(contains(refusal(r), "--bias"));
  r = {}, r.act = "swish";
  EXPECT_TRUE(contains(refusal(r), "--act"));
  r = {}, r.broadcast = "d";
  EXPECT_TRUE(contains(refusal(r), "--broadcast"));
  r = {}, r.beta = 1.f, r.c = "d", r.c_dtype = "f32";
  EXPECT_TRUE(contains(refusal(r), "in D's type"));
  r = {}, r.beta = 1.f, r.c = "d", r.ldc = 100;
  EXPECT_TRUE(contains(refusal(r), "--ldc"));
  r = {}, r.beta = 1.f, r.c = "d", r.batch = 2, r.broadcast = "c";
  EXPECT_TRUE(contains(refusal(r), "cannot broadcast C"));
  r = {}, r.batch = 0;
  EXPECT_TRUE(contains(refusal(r), "batch"));
  r = {}, r.bias = "col", r.bias_dtype = "bf16";  // under an f16 D
  EXPECT_TRUE(contains(refusal(r), "bias"));
  // Layout names in either case.
  r = {};
  r.shape = "8x8x8";
  r.layout = "tt";
  EXPECT_TRUE(problem_for(r, v, &p).ok());
  EXPECT_EQ(p.a_layout, Layout::RowMajor);
  EXPECT_EQ(p.b_layout, Layout::ColMajor);
}
