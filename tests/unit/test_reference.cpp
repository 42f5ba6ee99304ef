#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "pipegemm_tools/host_types.hpp"
#include "pipegemm_tools/reference.hpp"
#include "pipegemm_tools/reports.hpp"

using namespace pipegemm;

TEST(HostTypes, HalfRoundTripsEveryFiniteValue) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if (((h >> 10) & 0x1f) == 0x1f) continue;  // inf / nan
    EXPECT_EQ(float_to_half_bits(half_bits_to_float(uint16_t(h))), h) << std::hex << h;
  }
}

TEST(HostTypes, HalfRoundsToNearestEven) {
  EXPECT_EQ(float_to_half_bits(1.0f + 1.0f / 2048), 0x3c00u);          // tie -> even (down)
  EXPECT_EQ(float_to_half_bits(1.0f + 3.0f / 2048), 0x3c02u);          // tie -> even (up)
  EXPECT_EQ(float_to_half_bits(65520.f), 0x7c00u);                     // overflow -> inf
  EXPECT_EQ(float_to_half_bits(5.96046448e-8f), 0x0001u);              // smallest subnormal
  EXPECT_EQ(float_to_bf16_bits(1.0f + 1.0f / 256), 0x3f80u);           // tie -> even
  EXPECT_FLOAT_EQ(bf16_bits_to_float(float_to_bf16_bits(-2.5f)), -2.5f);
}

// Naive triple loop in long double: the reference must agree with it on every layout.
static void check_against_naive(Layout la, Layout lb, Layout ld, DType t) {
  Problem p;
  p.m = 13; p.n = 7; p.k = 29;
  p.a_type = p.b_type = t;
  p.acc_type = t == DType::i8 ? DType::i32 : DType::f32;
  p.d_type = t == DType::i8 ? DType::i32 : DType::f32;
  p.a_layout = la; p.b_layout = lb; p.d_layout = ld;
  p.lda = (la == Layout::RowMajor ? p.k : p.m) + 3;  // padded leading dimensions
  p.ldb = (lb == Layout::RowMajor ? p.k : p.n) + 5;
  p = p.normalized();
  const int64_t na = la == Layout::RowMajor ? (p.m - 1) * p.lda + p.k : (p.k - 1) * p.lda + p.m;
  const int64_t nb = lb == Layout::RowMajor ? (p.n - 1) * p.ldb + p.k : (p.k - 1) * p.ldb + p.n;
  std::vector<uint8_t> A(size_t(na * dtype_bytes(t))), B(size_t(nb * dtype_bytes(t)));
  fill_random(t, A.data(), na, 1);
  fill_random(t, B.data(), nb, 2);
  std::vector<double> ref;
  reference_gemm(p, A.data(), B.data(), ref, RefAccum::f64, 3);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      long double s = 0;
      for (int64_t k = 0; k < p.k; ++k) {
        double a = load_as_double(t, A.data(), la == Layout::RowMajor ? i * p.lda + k : k * p.lda + i);
        double b = load_as_double(t, B.data(), lb == Layout::RowMajor ? j * p.ldb + k : k * p.ldb + j);
        s += (long double)a * b;
      }
      ASSERT_NEAR(ref[size_t(i * p.n + j)], double(s), 1e-9) << i << "," << j;
    }
}

TEST(Reference, MatchesNaiveLoopOnEveryLayoutWithPaddedStrides) {
  for (Layout la : {Layout::RowMajor, Layout::ColMajor})
    for (Layout lb : {Layout::RowMajor, Layout::ColMajor})
      for (DType t : {DType::f16, DType::bf16, DType::f32, DType::i8}) check_against_naive(la, lb, Layout::RowMajor, t);
}

TEST(Reference, Fp32AccumulationCloseToFp64) {
  Problem p;
  p.m = 33; p.n = 17; p.k = 1000;
  std::vector<uint16_t> A(size_t(p.m * p.k)), B(size_t(p.n * p.k));
  fill_random(DType::f16, A.data(), p.m * p.k, 3);
  fill_random(DType::f16, B.data(), p.n * p.k, 4);
  std::vector<double> r64, r32;
  reference_gemm(p, A.data(), B.data(), r64, RefAccum::f64);
  reference_gemm(p, A.data(), B.data(), r32, RefAccum::f32);
  for (size_t i = 0; i < r64.size(); ++i) EXPECT_NEAR(r32[i], r64[i], 1e-3);
}

TEST(Reference, RandomInputsAreNeverAllZeroAndDifferBySeed) {
  std::vector<uint16_t> a(4096), b(4096);
  fill_random(DType::f16, a.data(), 4096, 11);
  fill_random(DType::f16, b.data(), 4096, 12);
  int nonzero = 0;
  for (auto x : a) nonzero += (x & 0x7fff) != 0;
  EXPECT_GT(nonzero, 4000);
  EXPECT_NE(a, b);
}

TEST(Tolerance, FollowsSeed004PerDataType) {
  Problem p;
  p.m = p.n = p.k = 512;
  p.a_type = p.b_type = DType::f16; p.acc_type = DType::f32; p.d_type = DType::f16;
  auto t = tolerance_for(p);
  EXPECT_DOUBLE_EQ(t.abs, 1e-2); EXPECT_DOUBLE_EQ(t.rel, 1e-2);
  p.a_type = p.b_type = DType::f32; p.d_type = DType::f32;
  t = tolerance_for(p);
  EXPECT_DOUBLE_EQ(t.abs, 1e-3); EXPECT_DOUBLE_EQ(t.rel, 1e-3);
  p.a_type = p.b_type = DType::i8; p.acc_type = p.d_type = DType::i32;
  t = tolerance_for(p);
  EXPECT_EQ(t.abs, 0.0) << "int32 accumulation of K=512 int8 products is exact";
  p.k = 1 << 18;  // K * 2^14 >= 2^31: int32 may overflow, fall back to 004's IMMA tolerance
  t = tolerance_for(p);
  EXPECT_DOUBLE_EQ(t.abs, 0.5); EXPECT_DOUBLE_EQ(t.rel, 0.1);
}

TEST(Tolerance, Fp16AccumulationGrowsLinearlyWithK) {
  Problem p;
  p.m = p.n = 64;
  p.acc_type = DType::f16;
  p.k = 16;
  EXPECT_DOUBLE_EQ(tolerance_for(p).abs, 1e-2);
  p.k = 32;
  EXPECT_DOUBLE_EQ(tolerance_for(p).abs, 1e-2);
  p.k = 256;
  EXPECT_DOUBLE_EQ(tolerance_for(p).abs, 8e-2);
  p.k = 4096;
  EXPECT_DOUBLE_EQ(tolerance_for(p).abs, 1.28);
  EXPECT_DOUBLE_EQ(tolerance_for(p).rel, 1e-2);
}

TEST(Compare, ReportsWorstElementAndNaN) {
  Problem p;
  p.m = 3; p.n = 4; p.k = 8;
  p.d_type = DType::f32;
  std::vector<double> ref(12, 1.0);
  std::vector<float> d(12, 1.0f);
  Tolerance tol{1e-2, 1e-2, "test"};
  auto r = compare_with_reference(p, d.data(), ref, tol);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.checked, 12);
  d[6] = 1.5f;                 // (1,2) out of tolerance
  d[11] = std::nanf("");       // (2,3) poison never overwritten
  r = compare_with_reference(p, d.data(), ref, tol);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.failures, 2);
  EXPECT_EQ(r.non_finite, 1);
  EXPECT_EQ(r.worst_row, 2);
  EXPECT_EQ(r.worst_col, 3);
  EXPECT_NEAR(r.max_abs_err, 0.5, 1e-12);
}

TEST(Compare, OneUlpWrongIntegerFailsExactTolerance) {
  Problem p;
  p.m = 2; p.n = 2; p.k = 4;
  p.a_type = p.b_type = DType::i8; p.acc_type = p.d_type = DType::i32;
  std::vector<double> ref = {5, -7, 0, 100};
  std::vector<int32_t> d = {5, -7, 0, 101};
  auto r = compare_with_reference(p, d.data(), ref, tolerance_for(p));
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.worst_row, 1);
  EXPECT_EQ(r.worst_col, 1);
}

// The largest |got - ref| and the largest error / allowed are different elements here: each is
// reported with its own position and values, in the result and in verify's report.
TEST(Compare, MaxAbsErrorAndWorstRatioEachNameTheirOwnElement) {
  Problem p;
  p.m = 2; p.n = 2; p.k = 8;
  p.d_type = DType::f32;
  std::vector<double> ref = {100, 1, 1, 1};
  std::vector<float> d = {100.5f, 1.1f, 1, 1};  // (0,0): err 0.5, 0.5/1.01 allowed; (0,1): err 0.1, 0.1/0.02
  const Tolerance tol{1e-2, 1e-2, "test"};
  const CompareResult c = compare_with_reference(p, d.data(), ref, tol);
  EXPECT_FALSE(c.pass);
  EXPECT_NEAR(c.max_abs_err, 0.5, 1e-12);
  EXPECT_EQ(c.max_abs_row, 0);
  EXPECT_EQ(c.max_abs_col, 0);
  EXPECT_DOUBLE_EQ(c.max_abs_got, 100.5);
  EXPECT_DOUBLE_EQ(c.max_abs_ref, 100);
  EXPECT_EQ(c.worst_row, 0);
  EXPECT_EQ(c.worst_col, 1);
  EXPECT_NEAR(c.worst_got, 1.1, 1e-6);
  EXPECT_NEAR(c.worst_ratio, 0.1 / 0.02, 1e-4);
  EXPECT_NE(c.summary().find("max abs err 0.5 at (0,0): got 100.5, ref 100"), std::string::npos) << c.summary();
  EXPECT_NE(c.summary().find("worst error/allowed 5.00x at (0,1): got 1.1"), std::string::npos) << c.summary();

  VerifyReport rep;
  VerifyRow row;
  row.variant = "v";
  row.ran = true;
  row.outcome.status = Status::error(StatusCode::verification_failed, c.summary());
  row.outcome.result = c;
  row.tolerance = tol;
  rep.rows.push_back(row);
  const report::Document doc = document(rep);
  const std::string text = report::render_text(doc);
  EXPECT_NE(text.find("max abs 0.50000 at (0,0) got 100.5000 ref 100.0000"), std::string::npos) << text;
  EXPECT_NE(text.find("worst 5.00x allowed at (0,1) got 1.1000 ref 1.0000"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(report::render_json(doc))["results"][0];
  EXPECT_EQ(j["max_abs"]["row"], 0);
  EXPECT_EQ(j["max_abs"]["col"], 0);
  EXPECT_DOUBLE_EQ(j["max_abs"]["got"].get<double>(), 100.5);
  EXPECT_EQ(j["worst"]["row"], 0);
  EXPECT_EQ(j["worst"]["col"], 1);
  EXPECT_NEAR(j["worst"]["ratio"].get<double>(), 5.0, 1e-4);
}
