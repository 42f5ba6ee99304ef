// The fuzzer's CPU side: the generator (deterministic, the stated distribution), the reproducer
// line (parses back to the same problem), the element check, the CLI's exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cli_runner.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm_tools/fuzz.hpp"
#include "pipegemm_tools/fuzz/detail.hpp"
#include "pipegemm_tools/host_types.hpp"
#include "pipegemm_tools/reference.hpp"

using namespace pipegemm;
using namespace pipegemm::fuzz;

namespace {
const DType kInputs[] = {DType::f16, DType::bf16, DType::i8, DType::f32};
}

TEST(Fuzz, GeneratorIsDeterministicForASeed) {
  for (DType t : kInputs) {
    const auto a = generate_cases(t, 42, 300), b = generate_cases(t, 42, 300);
    EXPECT_EQ(a, b) << to_string(t);
    EXPECT_NE(a, generate_cases(t, 43, 300)) << to_string(t);
    // A longer run starts with the same problems.
    const auto c = generate_cases(t, 42, 600);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), c.begin()));
  }
  // Each input type has its own sequence.
  auto sizes = [](DType t) {
    std::vector<int64_t> v;
    for (const FuzzCase& c : generate_cases(t, 42, 50)) v.insert(v.end(), {c.m, c.n, c.k});
    return v;
  };
  EXPECT_NE(sizes(DType::f16), sizes(DType::bf16));
}

TEST(Fuzz, GeneratorDistribution) {
  const int n = 4000;
  for (DType t : kInputs) {
    const int64_t vec = 16 / dtype_bytes(t);
    int odd_k = 0, small_m = 0, padded_a = 0, padded_d = 0, shifted = 0;
    int64_t max_m = 0, min_k = 1 << 30;
    for (const FuzzCase& c : generate_cases(t, 7, n)) {
      ASSERT_GE(c.m, 1); ASSERT_LE(c.m, 16384);
      ASSERT_GE(c.n, 1); ASSERT_LE(c.n, 16384);
      ASSERT_GE(c.k, 1); ASSERT_LE(c.k, 16384);
      if (c.k % 2) ++odd_k;
      else EXPECT_EQ(c.k % vec, 0) << "an even K is a whole 16-byte vector";
      small_m += c.m <= 128;  // log-uniform: half of [1, 16385) lies below sqrt(16385) = 128
      max_m = std::max(max_m, c.m);
      min_k = std::min(min_k, c.k);
      for (auto [ld, packed] : {std::pair{c.lda, c.k}, {c.ldb, c.k}, {c.ldd, c.n}}) {
        const int64_t pad = ld - packed;
        EXPECT_TRUE(pad == 0 || (pad % 2 == 1 && pad >= 1 && pad <= 31)) << pad;
      }
      padded_a += c.lda != c.k;
      padded_d += c.ldd != c.n;
      EXPECT_TRUE(c.offset == 0 || c.offset == offset_for(t));
      shifted += c.offset != 0;
    }
    EXPECT_NEAR(odd_k, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(small_m, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(padded_a, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(padded_d, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(shifted, n / 2, n / 20) << to_string(t);
    EXPECT_GT(max_m, 8192) << "the top of the range is reached";
    EXPECT_EQ(min_k, 1) << "and the bottom";
  }
  for (const FuzzCase& c : generate_cases(DType::f16, 3, 500, 100)) EXPECT_LE(std::max({c.m, c.n, c.k}), 100);
}

TEST(Fuzz, OffsetsOnlyWhereTheTypeAllowsThem) {
  EXPECT_EQ(offset_for(DType::f16), 1);
  EXPECT_EQ(offset_for(DType::bf16), 1);
  EXPECT_EQ(offset_for(DType::f32), 1);
  EXPECT_EQ(offset_for(DType::i8), 4);  // k0 and cuBLAS IMMA need 4-byte pointers
  EXPECT_EQ(offset_for(DType::i32), 0);
  for (const FuzzCase& c : generate_cases(DType::i8, 11, 1000)) EXPECT_NE(c.offset % 4, 1);
}

TEST(Fuzz, ReproducerParsesBackToTheSameProblem) {
  const std::pair<DType, DType> combos[] = {{DType::f32, DType::f16}, {DType::f16, DType::f16}, {DType::i32, DType::f32}};
  for (DType t : kInputs)
    for (const FuzzCase& c : generate_cases(t, 99, 200))
      for (auto [acc, out] : combos) {
        const Problem p = problem_of(c, acc, out).normalized();
        const uint64_t seed = 0xfedcba9876543210ull;
        const std::string line = reproducer(p, c.offset, "k0_f16_128x128x16", seed);
        EXPECT_EQ(line.find('\n'), std::string::npos);
        EXPECT_EQ(line.rfind("pipegemm verify ", 0), 0u);
        Problem q;
        int64_t off = -1;
        std::string kernel;
        uint64_t s = 0;
        ASSERT_TRUE(parse_reproducer(line, &q, &off, &kernel, &s).ok()) << line;
        EXPECT_TRUE(q.m == p.m && q.n == p.n && q.k == p.k && q.lda == p.lda && q.ldb == p.ldb && q.ldd == p.ldd) << line;
        EXPECT_TRUE(q.a_type == t && q.b_type == t && q.acc_type == acc && q.d_type == out) << line;
        EXPECT_EQ(off, c.offset);
        EXPECT_EQ(kernel, "k0_f16_128x128x16");
        EXPECT_EQ(s, seed);
        EXPECT_EQ(line.find("--offset") != std::string::npos, c.offset != 0);
      }
  Problem q;
  int64_t off;
  std::string k;
  uint64_t s;
  EXPECT_FALSE(parse_reproducer("pipegemm bench --shape 1x1x1", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --shape 1x1", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --lda", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --frob 1", &q, &off, &k, &s).ok());
}

TEST(Fuzz, DtypeListsAndReferenceChoice) {
  std::vector<DType> ts;
  ASSERT_TRUE(parse_dtypes({"f16,bf16", "i8", "f16"}, &ts).ok());
  EXPECT_EQ(ts, (std::vector<DType>{DType::f16, DType::bf16, DType::i8}));
  ASSERT_TRUE(parse_dtypes({}, &ts).ok());
  EXPECT_EQ(ts.size(), 4u);
  EXPECT_EQ(parse_dtypes({"i32"}, &ts).code, StatusCode::invalid_argument);
  EXPECT_EQ(parse_dtypes({"f64"}, &ts).code, StatusCode::invalid_argument);
  FuzzOptions o;
  FuzzCase c;
  c.m = 512, c.n = 512, c.k = 512;  // 2^27 MACs: the last CPU size
  EXPECT_TRUE(cpu_reference(c, o));
  c.k = 513;
  EXPECT_FALSE(cpu_reference(c, o));
  c.m = 1, c.n = 1, c.k = 16384;
  EXPECT_TRUE(cpu_reference(c, o));
  c.m = 16384, c.n = 1, c.k = 8192;  // 2^27 MACs, but 1 GB of K-major copies
  EXPECT_FALSE(cpu_reference(c, o));
  const auto rules = detail::stated_rules(o);
  std::string all;
  for (auto& r : rules) all += r + "\n";
  EXPECT_NE(all.find("2^27"), std::string::npos);
  EXPECT_NE(all.find("2^33"), std::string::npos);
  EXPECT_NE(all.find("tolerance"), std::string::npos);
}

TEST(Fuzz, CheckComparesEveryElementAndTheGuard) {
  Problem p;
  p.m = 5, p.n = 7, p.k = 64, p.lda = p.ldb = 64, p.ldd = 10;
  p.a_type = p.b_type = p.d_type = DType::f16;
  const int64_t off = 1, elems = off + (p.m - 1) * p.ldd + p.n;
  std::vector<uint16_t> d(size_t(elems), 0xFFFF);  // the poison
  std::vector<double> ref(size_t(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      ref[size_t(i * p.n + j)] = 0.25 * double(i - j);
      d[size_t(off + i * p.ldd + j)] = float_to_half_bits(float(0.25 * double(i - j)));
    }
  const Tolerance tol = tolerance_for(p);
  auto check = [&] { return detail::check_run(p, reinterpret_cast<const uint8_t*>(d.data()), off, ref.data(), tol, 0xFF); };
  EXPECT_TRUE(check().pass()) << check().summary();
  EXPECT_EQ(check().cmp.checked, p.m * p.n);
  d[size_t(off + 2 * p.ldd + p.n + 1)] = 0;  // row 2's padding written
  EXPECT_EQ(check().guard_bad, 1);
  EXPECT_FALSE(check().pass());
  d[size_t(off + 2 * p.ldd + p.n + 1)] = 0xFFFF;
  d[0] = 0;  // the element before D
  EXPECT_EQ(check().guard_bad, 1);
  d[0] = 0xFFFF;
  d[size_t(off + 4 * p.ldd + 6)] = float_to_half_bits(3.f);  // a wrong value, the last element
  const detail::RunCheck r = check();
  EXPECT_EQ(r.cmp.failures, 1);
  EXPECT_EQ(r.cmp.worst_row, 4);
  EXPECT_EQ(r.cmp.worst_col, 6);
  // The same verdict as the one-threaded comparison.
  const CompareResult c = compare_with_reference(p, d.data() + off, ref, tol);
  EXPECT_EQ(c.failures, r.cmp.failures);
  EXPECT_DOUBLE_EQ(c.max_abs_err, r.cmp.max_abs_err);
  d[size_t(off + 4 * p.ldd + 6)] = 0xFFFF;  // left unwritten: NaN
  EXPECT_EQ(check().cmp.non_finite, 1);
}

// The threaded, division-sparing comparison gives compare_with_reference's verdict, element for element.
TEST(Fuzz, CheckAgreesWithCompareWithReference) {
  for (DType out : {DType::f16, DType::bf16, DType::f32, DType::i32}) {
    Problem p;
    p.m = 97, p.n = 61, p.k = 4096, p.ldd = 64;
    p.a_type = p.b_type = out == DType::i32 ? DType::i8 : out == DType::f32 ? DType::f32 : out;
    p.d_type = out;
    p.acc_type = out == DType::i32 ? DType::i32 : DType::f32;
    const int e = dtype_bytes(out);
    std::vector<uint8_t> d(size_t(p.m * p.ldd * e), 0xFF);
    std::vector<double> ref(size_t(p.m * p.n));
    std::vector<float> r(size_t(p.m * p.n) * 2);
    fill_random(DType::f32, r.data(), int64_t(r.size()), 5);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const size_t x = size_t(i * p.n + j);
        const double want = out == DType::i32 ? std::round(1000 * r[x]) : 40 * r[x];
        double got = want + (x % 7 == 0 ? 0.05 * r[x + ref.size()] : 0.0);  // some off, some exact
        if (x % 53 == 0) got = want + 5;                                     // clearly wrong
        ref[x] = want;
        uint8_t* at = d.data() + (i * p.ldd + j) * e;
        const uint16_t h = out == DType::f16 ? float_to_half_bits(float(got)) : float_to_bf16_bits(float(got));
        const float f = float(got);
        const int32_t v = int32_t(std::lround(got));
        if (x % 101 == 3) continue;  // left poisoned: NaN (or 0x80808080 below)
        std::memcpy(at, out == DType::f32 ? (const void*)&f : out == DType::i32 ? (const void*)&v : (const void*)&h, size_t(e));
      }
    if (out == DType::i32)
      for (int64_t x = 0; x < p.m * p.ldd; ++x) {
        int32_t v;
        std::memcpy(&v, d.data() + x * 4, 4);
        if (v == -1) std::memset(d.data() + x * 4, 0x80, 4);
      }
    const Tolerance tol = tolerance_for(p);
    const CompareResult want = compare_with_reference(p, d.data(), ref, tol);
    const CompareResult got = detail::check_run(p, d.data(), 0, ref.data(), tol, out == DType::i32 ? 0x80 : 0xFF).cmp;
    EXPECT_GT(want.failures, 0) << to_string(out);
    EXPECT_EQ(got.failures, want.failures) << to_string(out);
    EXPECT_EQ(got.non_finite, want.non_finite) << to_string(out);
    EXPECT_EQ(got.checked, want.checked);
    EXPECT_EQ(got.worst_row, want.worst_row) << to_string(out);
    EXPECT_EQ(got.worst_col, want.worst_col) << to_string(out);
    EXPECT_EQ(got.max_abs_row, want.max_abs_row) << to_string(out);  // the max-abs element's own position
    EXPECT_EQ(got.max_abs_col, want.max_abs_col) << to_string(out);
    EXPECT_DOUBLE_EQ(got.max_abs_got, want.max_abs_got) << to_string(out);
    EXPECT_DOUBLE_EQ(got.max_abs_err, want.max_abs_err) << to_string(out);
    EXPECT_DOUBLE_EQ(got.max_rel_err, want.max_rel_err) << to_string(out);
    EXPECT_EQ(got.pass, want.pass);
  }
}

TEST(Fuzz, CliExitCodes) {
  using test::run_cli;
  EXPECT_EQ(run_cli("fuzz --count 0").code, 2);
  EXPECT_EQ(run_cli("fuzz --dtype i32").code, 2);
  EXPECT_EQ(run_cli("fuzz --max-dim 8").code, 2);
  EXPECT_EQ(run_cli("fuzz --bogus").code, 2);
  if (device_info().present) GTEST_SKIP() << "a GPU is present: the no-GPU exit is not testable here";
  const auto r = run_cli("fuzz --count 10");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(test::has(r, "needs a CUDA GPU")) << r.out;
}
