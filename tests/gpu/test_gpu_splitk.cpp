// k4 split-K (k4_*_splitk): every split-K variant against the CPU reference on decode and thin
// shapes where K is split (and one where it is not), the same bits on a second run (the fixed
// summation order), and the split plan the launcher and the cost model share (no GPU needed).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "pipegemm/pipeline/split_k.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm_tools/bench.hpp"
#include "split_plan_check.hpp"

using namespace pipegemm;

namespace {

std::vector<const Variant*> split_variants(DType t) {
  std::vector<const Variant*> out;
  for (const Variant& v : variants())
    if (v.mech.split_k > 1 && v.family == "k4_multistage" && v.a_type == t) out.push_back(&v);
  return out;
}

}  // namespace

TEST(K4SplitK, PlanSplitsOnlyWhenTilesLeaveSlotsIdleAndNeverLeavesASplitEmpty) {
  // 1x4096x14336 on 132 SMs x 3 CTAs: 64 tiles of 16x64 -> 6 splits of 38 k_tiles (the last 34).
  pipeline::SplitPlan p = pipeline::split_plan(1, 4096, 14336, 16, 64, 64, 16, 132 * 3);
  EXPECT_EQ(p.tiles, 64);
  EXPECT_EQ(p.splits, 6);
  EXPECT_EQ(p.k_tiles_per_split, 38);
  EXPECT_GT(224 - (p.splits - 1) * p.k_tiles_per_split, 0);
  // Enough tiles: no split. Short K: at least 4 k_tiles a split.
  EXPECT_EQ(pipeline::split_plan(4096, 4096, 4096, 64, 128, 64, 16, 264).splits, 1);
  EXPECT_EQ(pipeline::split_plan(1, 64, 512, 16, 64, 64, 16, 396).splits, 2);
  EXPECT_EQ(pipeline::split_plan(1, 64, 64, 16, 64, 64, 16, 396).splits, 1);
  for (int64_t k : {1, 63, 64, 65, 1000, 4096, 28672})
    for (int64_t slots : {1, 132, 396, 10000}) {
      expect_whole_splits(pipeline::split_plan(3, 200, k, 16, 64, 64, 16, slots), (k + 63) / 64, 16, k);
    }
}

TEST(K4SplitK, DecodeAndThinShapesVerifyAndRepeatBitForBit) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  struct Case { int64_t m, n, k; };
  const Case cases[] = {{1, 4096, 4096}, {16, 6144, 4096}, {7, 1000, 3000}, {33, 520, 8200},
                        {128, 4096, 14336}, {200, 300, 64}, {1, 64, 512}, {1024, 1024, 1024}};
  for (DType t : {DType::f16, DType::bf16}) {
    const std::vector<const Variant*> vs = split_variants(t);
    ASSERT_FALSE(vs.empty()) << "no split-K variant for " << to_string(t);
    for (const Case& c : cases) {
      Problem p;
      p.m = c.m, p.n = c.n, p.k = c.k;
      p.a_type = p.b_type = p.d_type = t;
      p.acc_type = DType::f32;
      p = p.normalized();
      std::unique_ptr<VerifySession> s;
      Status st = VerifySession::create(p, make_random_inputs(p, 77 + uint64_t(c.m * 31 + c.n)), &s);
      ASSERT_TRUE(st.ok()) << st.message;
      for (const Variant* v : vs) {
        VerifyOutcome o = s->verify(*v);
        ASSERT_TRUE(o.status.ok()) << v->name << " " << p.shape_string() << ": " << o.status.message;
        EXPECT_TRUE(o.result.pass) << v->name << " " << p.shape_string() << ": " << o.result.summary();
        const std::vector<uint8_t> first = s->last_output();
        o = s->verify(*v);
        ASSERT_TRUE(o.status.ok()) << o.status.message;
        EXPECT_TRUE(first == s->last_output()) << v->name << " " << p.shape_string() << ": a second run differs";
      }
    }
  }
}
