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
    int odd_k = 0, small_m = 0, padded_a = 0, padded_d = 0, shifted = 0, plain = 0, vector_aligned = 0;
    int64_t max_m = 0, min_k = 1 << 30;
    for (const FuzzCase& c : generate_cases(t, 7, n)) {
      ASSERT_GE(c.m, 1); ASSERT_LE(c.m, 16384);
      ASSERT_GE(c.n, 1); ASSERT_LE(c.n, 16384);
      ASSERT_GE(c.k, 1); ASSERT_LE(c.k, 16384);
      if (c.k % 2) ++odd_k;
      else EXPECT_EQ(c.k % vec, 0) << "an even K is a whole 16-byte vector";
      min_k = std::min(min_k, c.k);
      const bool a_row = c.a_layout == Layout::RowMajor, b_row = c.b_layout == Layout::RowMajor;
      const int64_t d_row = c.d_layout == Layout::RowMajor ? c.n : c.m;
      // A vector-aligned problem: M, N, K, each leading dimension in whole 16-byte vectors, no offset.
      const bool aligned = c.m % vec == 0 && c.n % vec == 0 && c.k % vec == 0 && c.lda % vec == 0 &&
                           c.ldb % vec == 0 && c.ldd % vec == 0 && c.offset == 0;
      vector_aligned += aligned;
      for (auto [ld, packed] : {std::pair{c.lda, a_row ? c.k : c.m}, {c.ldb, b_row ? c.k : c.n}, {c.ldd, d_row}}) {
        const int64_t pad = ld - packed;
        EXPECT_TRUE(pad == 0 || (pad % 2 == 1 && pad >= 1 && pad <= 31) || (aligned && pad % vec == 0 && pad <= 4 * vec))
            << pad;
      }
      padded_a += c.lda != (a_row ? c.k : c.m);
      padded_d += c.ldd != d_row;
      EXPECT_TRUE(c.offset == 0 || c.offset == offset_for(t));
      shifted += c.offset != 0;
      if (c.plain()) {  // the plain TN GEMM keeps the sizes' full range
        ++plain;
        small_m += c.m <= 128;  // log-uniform: half of [1, 16385) lies below sqrt(16385) = 128
        max_m = std::max(max_m, c.m);
      } else {
        EXPECT_LE(std::max({c.m, c.n, c.k}), c.batch > 1 ? 512 : 1024) << "within the CPU reference's reach";
        EXPECT_TRUE(cpu_reference(c, FuzzOptions{}));
      }
    }
    EXPECT_NEAR(plain, n * 0.4, n / 20) << to_string(t);
    // A quarter of the problems are vector-aligned (K even there); of the rest, K is odd half the time.
    EXPECT_NEAR(odd_k, n * 3 / 8, n / 20) << to_string(t);
    EXPECT_GE(vector_aligned, n / 4 - n / 20) << to_string(t);  // plus those aligned by chance
    EXPECT_LE(vector_aligned, n / 4 + n / 10) << to_string(t);
    EXPECT_NEAR(small_m, plain / 2, plain / 10) << to_string(t);
    EXPECT_NEAR(padded_a, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(padded_d, n / 2, n / 20) << to_string(t);
    EXPECT_NEAR(shifted, n * 3 / 8, n / 20) << to_string(t);
    EXPECT_GT(max_m, 8192) << "the top of the range is reached";
    EXPECT_EQ(min_k, 1) << "and the bottom";
  }
  for (const FuzzCase& c : generate_cases(DType::f16, 3, 500, 100)) EXPECT_LE(std::max({c.m, c.n, c.k}), 100);
  // plain_fraction 1: every problem is the plain TN GEMM; 0: none is (but by chance).
  for (const FuzzCase& c : generate_cases(DType::f16, 3, 500, 16384, 1.0)) EXPECT_TRUE(c.plain());
  int plain0 = 0;
  for (const FuzzCase& c : generate_cases(DType::f16, 3, 500, 16384, 0.0)) plain0 += c.plain();
  EXPECT_LT(plain0, 25);
}

// The semantics' dimensions, each drawn independently over the problems that have them.
TEST(Fuzz, GeneratorDrawsEverySemanticDimension) {
  const int n = 6000;
  int semantic = 0, nn = 0, tt = 0, nt = 0, d_col = 0, alpha = 0, apart = 0, in_place = 0, c_f32 = 0;
  int row = 0, col = 0, bias_f32 = 0, batched = 0, relu = 0, gtanh = 0, gerf = 0;
  int bcast[3] = {0, 0, 0};
  for (const FuzzCase& c : generate_cases(DType::f16, 11, n)) {
    if (c.plain()) continue;
    ++semantic;
    const bool a_row = c.a_layout == Layout::RowMajor, b_row = c.b_layout == Layout::RowMajor;
    nn += !a_row && b_row, tt += a_row && !b_row, nt += !a_row && !b_row;
    d_col += c.d_layout == Layout::ColMajor;
    alpha += c.alpha != 1.f;
    EXPECT_EQ(c.alpha != 1.f, c.ialpha != 1);
    EXPECT_EQ(float(int(c.ialpha)), float(c.ialpha));
    apart += c.c == CBinding::apart, in_place += c.c == CBinding::in_place;
    EXPECT_EQ(c.beta != 0.f, c.c != CBinding::none);
    if (c.c == CBinding::in_place) {
      EXPECT_EQ(c.ldc, c.ldd);
    }
    if (c.c == CBinding::apart) {  // an odd pad, or whole vectors (8 f16) in a vector-aligned problem
      const int64_t pad = c.ldc - (c.d_layout == Layout::RowMajor ? c.n : c.m);
      const bool aligned = c.m % 8 == 0 && c.n % 8 == 0 && c.k % 8 == 0 && c.offset == 0;
      EXPECT_TRUE(pad == 0 || (pad % 2 == 1 && pad <= 31) || (aligned && pad % 8 == 0 && pad <= 32)) << pad;
    }
    c_f32 += c.c_f32;
    if (c.c_f32) {
      EXPECT_EQ(c.c, CBinding::apart);
    }
    row += c.bias == Bias::per_row, col += c.bias == Bias::per_col, bias_f32 += c.bias_f32;
    relu += c.act == Activation::relu, gtanh += c.act == Activation::gelu_tanh, gerf += c.act == Activation::gelu_erf;
    EXPECT_TRUE(c.batch >= 1 && c.batch <= 4);
    batched += c.batch > 1;
    if (c.broadcast) {
      EXPECT_GT(c.batch, 1);
    }
    if (c.broadcast == 'c') {
      EXPECT_EQ(c.c, CBinding::apart) << "C = D is never broadcast";
    }
    bcast[0] += c.broadcast == 'a', bcast[1] += c.broadcast == 'b', bcast[2] += c.broadcast == 'c';
  }
  const int s = semantic;
  EXPECT_NEAR(semantic, n * 0.6, n / 20);
  for (int x : {nn, tt, nt}) EXPECT_NEAR(x, s / 4, s / 20);
  EXPECT_NEAR(d_col, s / 2, s / 20);
  EXPECT_NEAR(alpha, s / 2, s / 20);
  EXPECT_NEAR(apart, s / 3, s / 20);
  EXPECT_NEAR(in_place, s / 3, s / 20);
  EXPECT_NEAR(c_f32, apart / 2, apart / 10);
  EXPECT_NEAR(row, s / 3, s / 20);
  EXPECT_NEAR(col, s / 3, s / 20);
  EXPECT_NEAR(bias_f32, (row + col) / 2, (row + col) / 10);
  for (int x : {relu, gtanh, gerf}) EXPECT_NEAR(x, s / 4, s / 20);
  EXPECT_NEAR(batched, s / 2, s / 20);
  EXPECT_NEAR(bcast[0], batched / 4, batched / 15);
  EXPECT_NEAR(bcast[1], batched / 4, batched / 15);
  EXPECT_GT(bcast[2], 0);
  // An int32 D takes the whole alpha and beta, and neither bias nor activation.
  for (const FuzzCase& c : generate_cases(DType::i8, 11, 400)) {
    const Problem p = problem_of(c, DType::i32, DType::i32);
    EXPECT_EQ(p.bias, Bias::none);
    EXPECT_EQ(p.activation, Activation::none);
    EXPECT_EQ(p.alpha, std::nearbyint(p.alpha));
    EXPECT_EQ(p.beta, std::nearbyint(p.beta));
    EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message << " " << reproducer(p, c.offset, "x", 1);
    for (auto [acc, out] : {std::pair{DType::i32, DType::f32}}) {
      const Problem q = problem_of(c, acc, out);
      EXPECT_TRUE(validate_problem(q).ok()) << validate_problem(q).message;
    }
  }
  // Every generated problem is valid for every type its input runs with.
  const std::vector<std::pair<DType, DType>> types[] = {
      {{DType::f32, DType::f16}, {DType::f32, DType::f32}, {DType::f16, DType::f16}},  // f16 in
      {{DType::f32, DType::bf16}, {DType::f32, DType::f32}},                           // bf16
      {{DType::i32, DType::i32}, {DType::i32, DType::f32}},                            // i8
      {{DType::f32, DType::f32}}};                                                     // f32
  for (int ti = 0; ti < 4; ++ti)
    for (const FuzzCase& c : generate_cases(kInputs[ti], 5, 500))
      for (auto [acc, out] : types[ti]) {
        const Problem p = problem_of(c, acc, out);
        EXPECT_TRUE(validate_problem(p).ok()) << validate_problem(p).message << ": " << reproducer(p, c.offset, "x", 1);
      }
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
  const std::pair<DType, DType> combos[] = {{DType::f32, DType::f16}, {DType::f16, DType::f16}, {DType::i32, DType::f32},
                                            {DType::i32, DType::i32}};
  int semantic = 0;
  for (DType t : kInputs)
    for (const FuzzCase& c : generate_cases(t, 99, 200))
      for (auto [acc, out] : combos) {
        const Problem p = problem_of(c, acc, out).normalized();
        const bool in_place = c.c == CBinding::in_place && p.reads_c();
        const uint64_t seed = 0xfedcba9876543210ull;
        const std::string line = reproducer(p, c.offset, "k0_f16_128x128x16", seed, in_place);
        EXPECT_EQ(line.find('\n'), std::string::npos);
        EXPECT_EQ(line.rfind("pipegemm verify ", 0), 0u);
        Problem q;
        int64_t off = -1;
        std::string kernel;
        uint64_t s = 0;
        bool q_in_place = !in_place;
        ASSERT_TRUE(parse_reproducer(line, &q, &off, &kernel, &s, &q_in_place).ok()) << line;
        EXPECT_TRUE(q.m == p.m && q.n == p.n && q.k == p.k && q.lda == p.lda && q.ldb == p.ldb && q.ldd == p.ldd) << line;
        EXPECT_TRUE(q.a_type == t && q.b_type == t && q.acc_type == acc && q.d_type == out) << line;
        EXPECT_TRUE(q.a_layout == p.a_layout && q.b_layout == p.b_layout && q.d_layout == p.d_layout) << line;
        EXPECT_TRUE(q.alpha == p.alpha && q.beta == p.beta && q.reads_c() == p.reads_c()) << line;
        if (p.reads_c()) {
          EXPECT_TRUE(q.ldc == p.ldc && *q.c_type == *p.c_type && q.stride_c == p.stride_c) << line;
        }
        EXPECT_TRUE(q.bias == p.bias && *q.bias_type == *p.bias_type && q.activation == p.activation) << line;
        EXPECT_TRUE(q.batch == p.batch && q.stride_a == p.stride_a && q.stride_b == p.stride_b && q.stride_d == p.stride_d)
            << line;
        EXPECT_EQ(q_in_place, in_place) << line;
        EXPECT_EQ(off, c.offset);
        EXPECT_EQ(kernel, "k0_f16_128x128x16");
        EXPECT_EQ(s, seed);
        EXPECT_EQ(line.find("--offset") != std::string::npos, c.offset != 0);
        EXPECT_EQ(line.find("--c d") != std::string::npos, in_place) << line;
        semantic += !c.plain();
        // The plain TN GEMM's line is what it always was: no semantic flag.
        if (c.plain()) {
          for (const char* f : {"--layout", "--alpha", "--beta", "--batch", "--bias", "--act", "--d-layout"}) {
            EXPECT_EQ(line.find(f), std::string::npos) << line;
          }
        }
      }
  EXPECT_GT(semantic, 0);
  Problem q;
  int64_t off;
  std::string k;
  uint64_t s;
  EXPECT_FALSE(parse_reproducer("pipegemm bench --shape 1x1x1", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --shape 1x1", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --lda", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --frob 1", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --layout XY", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --act swish", &q, &off, &k, &s).ok());
  EXPECT_FALSE(parse_reproducer("pipegemm verify --alpha 1x", &q, &off, &k, &s).ok());
  // A hand-written line with every flag.
  bool ip = false;
  ASSERT_TRUE(parse_reproducer("pipegemm verify --shape 37x53x71 --lda 37 --ldb 71 --ldd 37 --dtype bf16 --acc f32 "
                               "--out-dtype bf16 --layout NN --d-layout col --alpha -0.75 --beta 2 --c d --batch 3 "
                               "--broadcast b --bias col --bias-dtype f32 --act gelu_tanh --kernel auto --seed 9",
                               &q, &off, &k, &s, &ip)
                  .ok());
  EXPECT_TRUE(ip);
  EXPECT_EQ(q.a_layout, Layout::ColMajor);
  EXPECT_EQ(q.b_layout, Layout::RowMajor);
  EXPECT_EQ(q.d_layout, Layout::ColMajor);
  EXPECT_EQ(q.alpha, -0.75f);
  EXPECT_EQ(q.beta, 2.f);
  EXPECT_EQ(q.ldc, 37);
  EXPECT_EQ(q.batch, 3);
  EXPECT_EQ(q.stride_b, 0);
  EXPECT_EQ(q.bias, Bias::per_col);
  EXPECT_EQ(*q.bias_type, DType::f32);
  EXPECT_EQ(q.activation, Activation::gelu_tanh);
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
  c.m = 1024, c.n = 1024, c.k = 1024, c.bias = Bias::per_col;  // semantics: always the CPU (the sizes are kept small)
  EXPECT_TRUE(cpu_reference(c, o));
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
