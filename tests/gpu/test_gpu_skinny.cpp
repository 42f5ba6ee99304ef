// skinny (thin problems, min(M, N) <= BM): every skinny variant against the CPU reference on
// decode shapes (small M) and thin ones (small N), both load forms (16-byte rows, and any
// alignment -- aligned 4-byte words shifted into place: odd K, odd leading dimensions, pointers
// one element off), the K splits' bits
// repeated on a second run, the full epilogue over a batch, and the refusals and plan (no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pipegemm/pipeline/split_k.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm_tools/bench.hpp"
#include "split_plan_check.hpp"

using namespace pipegemm;

namespace {

std::vector<const Variant*> skinny_variants(DType in, DType out) {
  std::vector<const Variant*> vs;
  for (const Variant& v : variants())
    if (v.family == "skinny" && v.a_type == in && v.d_type == out) vs.push_back(&v);
  return vs;
}

Problem problem(int64_t m, int64_t n, int64_t k, DType t, Layout b_layout = Layout::RowMajor) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.a_type = p.b_type = p.d_type = t;
  p.acc_type = DType::f32;
  p.b_layout = b_layout;
  return p.normalized();
}

// Every skinny variant that accepts p (its BM bounds min(M, N)) verifies, twice with equal bits.
int verify_skinny(const Problem& p, HostInputs inputs) {
  const int64_t offset = inputs.offset_elements;
  std::unique_ptr<VerifySession> s;
  Status st = VerifySession::create(p, std::move(inputs), &s);
  EXPECT_TRUE(st.ok()) << st.message;
  if (!st.ok()) return 0;
  int ran = 0;
  for (const Variant* v : skinny_variants(p.a_type, p.d_type)) {
    if (std::min(p.m, p.n) > v->req.max_thin) continue;
    ++ran;
    VerifyOutcome o = s->verify(*v);
    EXPECT_TRUE(o.status.ok()) << v->name << " " << p.shape_string() << ": " << o.status.message;
    EXPECT_TRUE(o.result.pass) << v->name << " " << p.shape_string() << " offset " << offset << ": "
                               << o.result.summary();
    const std::vector<uint8_t> first = s->last_output();
    o = s->verify(*v);
    EXPECT_TRUE(o.status.ok()) << o.status.message;
    EXPECT_TRUE(first == s->last_output()) << v->name << " " << p.shape_string() << ": a second run differs";
  }
  return ran;
}
int verify_skinny(const Problem& p, int64_t offset, uint64_t seed) {
  return verify_skinny(p, make_random_inputs(p, seed, offset));
}

// Columns [k, ld) of every row of a K-major 16-bit operand (rows x ld, one product): NaN, so a
// product that used any of them would be NaN in D.
void nan_past_k(std::vector<uint8_t>* m, DType t, int64_t rows, int64_t k, int64_t ld) {
  const uint16_t nan = t == DType::f16 ? 0x7E00 : 0x7FC0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = k; c < ld && (r * ld + c + 1) * 2 <= int64_t(m->size()); ++c)
      std::memcpy(m->data() + (r * ld + c) * 2, &nan, 2);
}

// verify_skinny of (m, n, k) in type t with both operands' rows ld elements apart, the columns
// [k, ld) of every row NaN.
int verify_skinny_nan_past_k(int64_t m, int64_t n, int64_t k, int64_t ld, DType t, uint64_t seed) {
  Problem p = problem(m, n, k, t);
  p.lda = p.ldb = ld;
  p = p.normalized();
  HostInputs h = make_random_inputs(p, seed, 0);
  nan_past_k(&h.A, t, m, k, p.lda);
  nan_past_k(&h.B, t, n, k, p.ldb);
  return verify_skinny(p, std::move(h));
}

}  // namespace

TEST(SkinnyPlan, SplitsFillTheSlotsInWholeWavesAndNeverLeaveASplitEmpty) {
  // 1x4096x4096, 32-row tiles: 128 tiles, k_tiles of 64, 4 warps, 132 SMs x 3 CTAs = 396 slots:
  // 3 splits (384 CTAs, one wave); 4 would need a second wave.
  pipeline::SplitPlan p = pipeline::thin_split_plan(128, 4096, 64, 4, 64, 132 * 3);
  EXPECT_EQ(p.splits, 3);
  EXPECT_EQ(p.k_tiles_per_split, 22);
  EXPECT_EQ(pipeline::thin_split_plan(128, 4096, 64, 4, 64, 132 * 4).splits, 4);  // 512 of 528 slots
  // 1x57344x8192: 1792 tiles over 528 slots is 3.4 waves; two splits make 7 waves of half the length.
  EXPECT_EQ(pipeline::thin_split_plan(1792, 8192, 64, 4, 64, 528).splits, 2);
  EXPECT_EQ(pipeline::thin_split_plan(4096, 4096, 64, 4, 64, 396).splits, 1);  // enough tiles
  EXPECT_EQ(pipeline::thin_split_plan(1, 100, 64, 4, 64, 396).splits, 1);      // two k_tiles: one warp each
  for (int64_t k : {1, 7, 64, 65, 1000, 4096, 28672})
    for (int64_t tiles : {1, 3, 128, 5000})
      for (int64_t slots : {1, 132, 396, 10000})
        expect_whole_splits(pipeline::thin_split_plan(tiles, k, 64, 4, 64, slots), (k + 63) / 64, 64, k);
}

TEST(SkinnyRefusal, WideProblemsAndMnMajorOperandsAreRefusedByName) {
  for (const Variant& v : variants()) {
    if (v.family != "skinny") continue;
    SCOPED_TRACE(v.name);
    Problem p = problem(v.req.max_thin + 1, v.req.max_thin + 1, 64, v.a_type);
    p.d_type = v.d_type;
    Status s = check_variant(v, p, 90);
    EXPECT_EQ(s.code, StatusCode::not_supported);
    EXPECT_NE(s.message.find("thin problems: M or N at most"), std::string::npos) << s.message;
    // The thin side may be either: M (decode) or N.
    p = problem(1, 5000, 64, v.a_type), p.d_type = v.d_type;
    EXPECT_TRUE(check_variant(v, p, 90).ok());
    p = problem(5000, v.req.max_thin, 64, v.a_type), p.d_type = v.d_type;
    EXPECT_TRUE(check_variant(v, p, 90).ok());
    p = problem(1, 5000, 64, v.a_type, Layout::ColMajor), p.d_type = v.d_type;
    s = check_variant(v, p, 90);
    EXPECT_NE(s.message.find("K-major B"), std::string::npos) << s.message;
  }
}

TEST(SkinnyVerify, DecodeAndThinShapesInBothLoadFormsRepeatBitForBit) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  struct Case { int64_t m, n, k, offset; };
  const Case cases[] = {
      {1, 4096, 4096, 0},   // decode: split K over CTAs
      {16, 6144, 4096, 0},  // two n8 blocks
      {7, 1000, 3000, 0},   // partial row tile, K tail inside a k_tile
      {31, 520, 8200, 0},   // four n8 blocks, the last partial
      {32, 33, 64, 0},      // one k_tile: a warp per CTA has work
      {3000, 9, 500, 0},    // thin N: A streamed, D written along its rows
      {1, 4099, 1001, 0},   // odd K: the any-alignment form
      {13, 777, 4096, 1},   // pointers one element off 16 bytes: the any-alignment form
      {1, 1, 1, 0},         // one element
  };
  int ran = 0;
  for (DType t : {DType::f16, DType::bf16})
    for (const Case& c : cases) ran += verify_skinny(problem(c.m, c.n, c.k, t), c.offset, 11 + uint64_t(c.m * 7 + c.k));
  EXPECT_GT(ran, 0);
}

TEST(SkinnyVerify, PaddedLeadingDimensionsInBothLoadForms) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  int ran = 0;
  for (DType t : {DType::f16, DType::bf16}) {
    Problem p = problem(5, 3000, 1000, t);
    p.lda = 1003, p.ldb = 1010, p.ldd = 3007;  // odd lda: the any-alignment form
    ran += verify_skinny(p.normalized(), 0, 5);
    p = problem(9, 2048, 2048, t);
    p.lda = 2056, p.ldb = 2064, p.ldd = 2050;  // whole 16-byte rows: vector loads
    ran += verify_skinny(p.normalized(), 0, 6);
  }
  EXPECT_GT(ran, 0);
}

TEST(SkinnyVerify, EpilogueBatchAndBroadcastOperand) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  int ran = 0;
  for (DType t : {DType::f16, DType::bf16})
    for (Bias b : {Bias::per_row, Bias::per_col})
      for (int64_t m : {int64_t(4), int64_t(700)}) {
        Problem p = problem(m, m == 4 ? 900 : 20, 520, t);
        p.alpha = 0.5f, p.beta = 1.5f, p.ldc = p.n;
        p.c_type = t;
        p.bias = b;
        p.bias_type = DType::f32;
        p.activation = Activation::gelu_tanh;
        p.batch = 3;
        p.stride_b = 0;  // one B for every product
        ran += verify_skinny(p.normalized(), 0, 21 + uint64_t(m));
      }
  EXPECT_GT(ran, 0);
}

// The 16-byte form's tail k_tile at a tiny or ragged K (a lane wholly past K reads
// nothing; only the vector that straddles K takes element loads): 16-byte rows padded 8-15
// elements past K with NaN, so neither a read past K nor a product with it can hide.
TEST(SkinnyVerify, VectorFormTailIgnoresNaNPaddingPastK) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  struct Case { int64_t m, n, k; };
  const Case cases[] = {{1, 252, 8}, {4, 4096, 16}, {3, 777, 12}, {2, 300, 1}, {8, 1561, 24},
                        {5, 1000, 40}, {16, 520, 72}, {30, 513, 66}, {4100, 5, 20}, {7, 2000, 4100}};
  int ran = 0;
  for (DType t : {DType::f16, DType::bf16})
    for (const Case& c : cases)  // whole 16-byte rows: the vector form
      ran += verify_skinny_nan_past_k(c.m, c.n, c.k, (c.k + 7) / 8 * 8 + 8, t, 31 + uint64_t(c.k));
  EXPECT_GT(ran, 0);
}

// The any-alignment form (rows off 16 bytes: five aligned 4-byte words a lane, shifted into place)
// reads up to one element either side of a lane's 8 -- at a row's ends the previous row's padding or
// its own past K, both NaN here -- and must use none of them: odd and even leading dimensions off
// 16 bytes, K a multiple of the k_tile (the last whole k_tile goes to the tail), tiny and ragged K.
TEST(SkinnyVerify, AnyAlignmentFormIgnoresNaNOnEitherSideOfItsWords) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  struct Case { int64_t m, n, k, pad; };
  const Case cases[] = {{1, 4096, 4095, 2}, {4, 1000, 64, 1}, {3, 777, 130, 3}, {16, 520, 9, 4},
                        {30, 513, 1, 1},    {4100, 5, 257, 2}, {7, 2000, 4096, 5}, {2, 300, 256, 6},
                        {9, 333, 1000, 2},  {1, 65, 17, 1}};
  int ran = 0;
  for (DType t : {DType::f16, DType::bf16})
    for (const Case& c : cases) {
      const int64_t ld = (c.k + c.pad) % 8 ? c.k + c.pad : c.k + c.pad + 1;  // never whole 16-byte rows
      ran += verify_skinny_nan_past_k(c.m, c.n, c.k, ld, t, 41 + uint64_t(c.k));
    }
  EXPECT_GT(ran, 0);
}
