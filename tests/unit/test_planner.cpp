// The planner on the CPU: every worked number of seeds 001 and 004, CUDA's occupancy rules
// case by case, and `pipegemm plan` refusing bad input with exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "pipegemm_tools/planner.hpp"

using namespace pipegemm;
using namespace pipegemm::plan;

namespace {

constexpr int KB = 1024;

ArchSpec arch(const char* key) {
  ArchSpec a;
  Status s = find_arch(key, &a);
  EXPECT_TRUE(s.ok()) << s.message;
  return a;
}

KernelDesc tile(int bm, int bn, int bk, int stages, DType in = DType::f16, int threads = 128,
                PipelineKind kind = PipelineKind::cp_async_ring) {
  KernelDesc k;
  k.bm = bm; k.bn = bn; k.bk = bk; k.stages = stages; k.threads = threads; k.in = in;
  k.pipeline = kind;
  return k;
}

using pipegemm::test::CliRun;
CliRun cli(const std::string& args) { return pipegemm::test::run_cli(args); }

}  // namespace

// ----- seed numbers ---------------------------------------------------------------------------

TEST(PlannerSeeds, SeedTileThreeStagesFp16Is48KB) {  // 000 / 001
  KernelDesc k = tile(128, 128, 32, 3);
  EXPECT_EQ(smem_bytes(k, 1), 16 * KB);
  EXPECT_EQ(smem_bytes(k, 2), 32 * KB);
  EXPECT_EQ(smem_bytes(k, 3), 48 * KB);
}

TEST(PlannerSeeds, MbarrierRingAddsTwoEightByteBarriersPerStage) {
  KernelDesc k = tile(128, 128, 32, 4, DType::f16, 384, PipelineKind::mbarrier_ring);
  EXPECT_EQ(smem_bytes(k, 4), 4 * (16 * KB + 16));
}

TEST(PlannerSeeds, A100Fits3BlocksAt48KBAnd1At96KB) {  // 001 Q2: floor(164/48)=3, floor(164/96)=1
  ArchSpec a = arch("sm_80");
  EXPECT_EQ(a.smem_per_sm, 164 * KB);
  Occupancy o48 = occupancy(a, 128, 48 * KB, 0);
  EXPECT_EQ(o48.blocks, 3);
  EXPECT_EQ(o48.limiter, "shared memory");
  Occupancy o96 = occupancy(a, 128, 96 * KB, 0);
  EXPECT_EQ(o96.blocks, 1);
  // ... and 3 -> 6 stages of the seed tile is exactly that step.
  KernelDesc k = tile(128, 128, 32, 3);
  EXPECT_EQ(smem_bytes(k, 6), 96 * KB);
}

TEST(PlannerSeeds, A100TwoToFiveStages40To100KBDrops4BlocksTo1) {  // 001 section 4
  ArchSpec a = arch("a100");
  EXPECT_EQ(occupancy(a, 128, 40 * KB, 0).blocks, 4);
  EXPECT_EQ(occupancy(a, 128, 100 * KB, 0).blocks, 1);
}

TEST(PlannerSeeds, GA104CliffIs50KBPerBlockFootprint) {  // 004 step 1.4
  ArchSpec a = arch("ga104");
  EXPECT_EQ(a.sm, 86);
  EXPECT_EQ(a.smem_per_sm, 100 * KB);
  // Two CTAs fit while each footprint (dynamic + static + 1 KB reserved) is <= 50 KB, i.e. the
  // kernel's own smem <= 49 KB. Seed 004's "50 KB/block" is that footprint.
  EXPECT_EQ(max_dynamic_smem_for_blocks(a, 2), 49 * KB);
  Occupancy at = occupancy(a, 128, 49 * KB, 0);
  EXPECT_EQ(at.smem_alloc, 50 * KB);
  EXPECT_EQ(at.by_smem, 2);
  EXPECT_EQ(occupancy(a, 128, 49 * KB + 1, 0).by_smem, 1);
  EXPECT_EQ(occupancy(a, 128, 50 * KB, 0).by_smem, 1);  // 51 KB footprint x 2 > 100 KB
}

TEST(PlannerSeeds, GA104DoubleBufferTable4KBTo8KB) {  // 004 step 1: 2+2 KB -> 4+4 KB
  KernelDesc k = tile(64, 64, 32, 2, DType::i8);
  EXPECT_EQ(ring_bytes_per_stage(k), 4 * KB);
  EXPECT_EQ(smem_bytes(k, 1), 4 * KB);
  EXPECT_EQ(smem_bytes(k, 2), 8 * KB);
  // "8 KB << 50 KB cliff -> 2 blocks/SM -> 8 warps": the 4-warp kernel of the example is held to
  // 2 blocks by its registers (e.g. 200/thread), not by the 8 KB of smem.
  ArchSpec a = arch("sm_86");
  Occupancy o = occupancy(a, 128, 8 * KB, 200);
  EXPECT_EQ(o.blocks, 2);
  EXPECT_EQ(o.warps_per_sm, 8);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_GE(o.by_smem, 2);
  // 004 pitfall: 28 KB single-buffered doubles to 56 KB, over the cliff: 1 block, 4 warps.
  Occupancy over = occupancy(a, 128, 56 * KB, 200);
  EXPECT_EQ(over.blocks, 1);
  EXPECT_EQ(over.warps_per_sm, 4);
  EXPECT_EQ(over.limiter, "shared memory");
  EXPECT_EQ(occupancy(a, 128, 28 * KB, 200).blocks, 2);
}

TEST(PlannerSeeds, MinimumStagesOf001) {
  EXPECT_EQ(minimum_stages(300, 120), 4);
  EXPECT_EQ(minimum_stages(120, 120), 2);
  EXPECT_EQ(minimum_stages(1, 120), 2);
  EXPECT_EQ(minimum_stages(0, 120), 0);  // invalid input: not a stage count
  EXPECT_EQ(minimum_stages(300, 0), 0);
}

TEST(PlannerSeeds, GivenCopyAndComputeCyclesGiveTheSeedAnswer) {
  StageEstimate e = estimate_stages(arch("a100"), tile(128, 128, 32, 3), 3, 300, 120);
  EXPECT_EQ(e.min_stages, 4);
  EXPECT_TRUE(e.copy_given && e.compute_given);
}

TEST(PlannerSeeds, ComputeLoadRatioFormula) {
  // 2*128*128*32 / ((128*32 + 32*128) * 2) = 64
  EXPECT_DOUBLE_EQ(compute_load_ratio(128, 128, 32, 2), 64.0);
  EXPECT_DOUBLE_EQ(compute_load_ratio(16, 16, 16, 4), 4.0);
  EXPECT_DOUBLE_EQ(compute_load_ratio(40, 40, 32, 2), 20.0);
}

TEST(PlannerSeeds, CompareLoadThresholdsOf004) {
  EXPECT_EQ(recommend_variant(4.99, 16).choice, "cp.async");
  EXPECT_EQ(recommend_variant(5.0, 16).choice, "benchmark both");
  EXPECT_EQ(recommend_variant(20.0, 16).choice, "benchmark both");
  EXPECT_EQ(recommend_variant(20.01, 8).choice, "pipelining may not pay");
  EXPECT_EQ(recommend_variant(64, 0).choice, "pipelining may not pay");  // warps unknown
  // 004 skips the pipeline only with >= 8 resident warps to interleave.
  EXPECT_EQ(recommend_variant(64, 4).choice, "pipeline anyway");
  EXPECT_NE(recommend_variant(4, 16).reason.find("< 5"), std::string::npos);
}

// ----- CUDA's occupancy rules -----------------------------------------------------------------

TEST(PlannerOccupancy, RegistersRoundToEightPerThreadAndSplitOverSubPartitions) {
  ArchSpec a = arch("h200");
  // 226 -> 232 regs x 32 = 7424 per warp; 16384 per sub-partition holds 2 warps -> 8 warps.
  Occupancy o = occupancy(a, 128, 48 * KB, 226);
  EXPECT_EQ(o.regs_per_warp, 7424);
  EXPECT_EQ(o.by_regs, 2);
  EXPECT_EQ(o.blocks, 2);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(occupancy(a, 128, 0, 121).regs_per_warp, occupancy(a, 128, 0, 128).regs_per_warp);
  EXPECT_EQ(occupancy(a, 128, 0, 128).by_regs, 4);
  // Per sub-partition: 16384 / 1280 = 12 warps each -> 48, not 65536 / 1280 = 51.
  EXPECT_EQ(occupancy(arch("a100"), 64, 0, 40).by_regs, 24);
}

TEST(PlannerOccupancy, CtaOverTheRegisterFileCannotLaunch) {
  Occupancy o = occupancy(arch("a100"), 1024, 0, 72);  // 2304 x 32 warps > 65536
  EXPECT_FALSE(o.error.empty());
  EXPECT_EQ(o.blocks, 0);
  EXPECT_FALSE(occupancy(arch("a100"), 128, 0, 256).error.empty());
}

TEST(PlannerOccupancy, WarpAndBlockLimits) {
  EXPECT_EQ(occupancy(arch("sm_86"), 1024, 0, 32).by_warps, 1);  // 48 warps / 32
  Occupancy tiny = occupancy(arch("sm_86"), 32, 0, 16);
  EXPECT_EQ(tiny.blocks, 16);
  EXPECT_EQ(tiny.limiter, "blocks/SM");
  EXPECT_EQ(occupancy(arch("sm_89"), 32, 0, 16).blocks, 24);
  EXPECT_EQ(occupancy(arch("sm_90"), 32, 0, 16).blocks, 32);
  EXPECT_FALSE(occupancy(arch("sm_90"), 1056, 0, 16).error.empty());
}

TEST(PlannerOccupancy, SmemOverTheOptInLimitCannotLaunch) {
  ArchSpec a = arch("h100");
  EXPECT_TRUE(occupancy(a, 128, 227 * KB, 0).error.empty());
  EXPECT_EQ(occupancy(a, 128, 227 * KB, 0).blocks, 1);
  EXPECT_FALSE(occupancy(a, 128, 227 * KB + 1, 0).error.empty());
  EXPECT_FALSE(occupancy(arch("sm_86"), 128, 100 * KB, 0).error.empty());
}

TEST(PlannerOccupancy, HopperCountsNamedBarriers) {
  ArchSpec a = arch("h200");
  EXPECT_EQ(occupancy(a, 32, 0, 16, 0, 16).by_barriers, 4);  // 32 slots x 2 / 16 barriers
  EXPECT_EQ(occupancy(arch("a100"), 32, 0, 16, 0, 16).by_barriers, INT_MAX);  // rule is sm_90+
}

TEST(PlannerOccupancy, StageTableMarksTheCliffs) {
  // Seed tile on A100 (registers unknown): footprint 16s+1 KB -> 9, 4, 3, 2, 2, 1, ... blocks.
  std::vector<StageRow> rows = stage_table(arch("a100"), tile(128, 128, 32, 3));
  ASSERT_EQ(rows.size(), 10u);  // 10 x 16 KB <= 163 KB < 11 x 16 KB
  int expect[] = {9, 4, 3, 2, 2, 1, 1, 1, 1, 1};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(rows[i].occ.blocks, expect[i]) << "stages " << i + 1;
  EXPECT_TRUE(rows[1].cliff);
  EXPECT_TRUE(rows[2].cliff);
  EXPECT_FALSE(rows[4].cliff);
  EXPECT_TRUE(rows[5].cliff);
  EXPECT_FALSE(rows[0].cliff);
}

// ----- table, estimate, waves, ranking, registers --------------------------------------------

TEST(PlannerArch, TableCoversAmpereAdaHopperWithProgrammingGuideLimits) {
  struct { const char* k; int sm, smem, optin, threads, blocks; } rows[] = {
      {"sm_80", 80, 164, 163, 2048, 32}, {"sm_86", 86, 100, 99, 1536, 16},
      {"sm_89", 89, 100, 99, 1536, 24}, {"sm_90", 90, 228, 227, 2048, 32}};
  for (auto& r : rows) {
    ArchSpec a = arch(r.k);
    EXPECT_EQ(a.sm, r.sm);
    EXPECT_EQ(a.smem_per_sm, r.smem * KB) << r.k;
    EXPECT_EQ(a.smem_per_block_optin, r.optin * KB) << r.k;
    EXPECT_EQ(a.smem_reserved_per_block, 1 * KB);
    EXPECT_EQ(a.smem_alloc_granularity, 128);
    EXPECT_EQ(a.regs_per_sm, 65536);
    EXPECT_EQ(a.max_threads_per_sm, r.threads) << r.k;
    EXPECT_EQ(a.max_blocks_per_sm, r.blocks) << r.k;
    EXPECT_EQ(a.max_warps_per_sm, r.threads / 32);
    EXPECT_GT(a.sm_count, 0);
    EXPECT_GT(a.dram_gbps, 0);
  }
  EXPECT_EQ(arch("h200").sm_count, 132);
  EXPECT_EQ(arch("A100").sm_count, 108);
  EXPECT_EQ(arch("9.0").key, "h200");
}

TEST(PlannerArch, UnknownArchIsAnErrorThatListsTheKnown) {
  ArchSpec a;
  Status s = find_arch("sm_75", &a);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("h200"), std::string::npos);
  EXPECT_FALSE(find_arch("", &a).ok());
  EXPECT_FALSE(find_arch("gtx1080", &a).ok());
}

TEST(PlannerEstimate, SaysItsAssumptionsAndFlagsBandwidthBoundTiles) {
  ArchSpec a = arch("h200");
  StageEstimate e = estimate_stages(a, tile(128, 128, 32, 3), 2);
  EXPECT_GT(e.t_copy, a.dram_latency_cycles);
  EXPECT_GT(e.t_compute, 0);
  EXPECT_EQ(e.min_stages, minimum_stages((long long)std::ceil(e.t_copy), (long long)std::ceil(e.t_compute)));
  EXPECT_GE(e.assumptions.size(), 2u);
  EXPECT_EQ(e.min_stages_latency_only,
            minimum_stages(a.dram_latency_cycles, (long long)std::ceil(e.t_compute)));
  EXPECT_LE(e.min_stages_latency_only, e.min_stages);
  // 2 CTAs x 1 MFLOP per k_tile at 2560 FLOP/clk (mma.sync on sm_90) = 819 cycles.
  EXPECT_NEAR(e.t_compute, 2.0 * 128 * 128 * 32 * 2 / 2560, 1e-6);
  StageEstimate lat = estimate_stages(a, tile(128, 128, 32, 3), 2, 0, 0, 100);
  EXPECT_NEAR(e.t_copy - lat.t_copy, a.dram_latency_cycles - 100, 1e-6);
}

// A B-resident kernel copies A alone per k_tile (B was loaded once): a third of the ring form's
// bytes for 128x256x64, the same compute, and the variant's entry carries it.
TEST(PlannerEstimate, BResidentCopiesAAlonePerKTile) {
  ArchSpec a = arch("h200");
  const Variant* ring = find_variant("k5_f16_128x256x64_s4");
  const Variant* res = find_variant("k5_f16_128x256x64_s4_b_resident");
  ASSERT_NE(ring, nullptr);
  ASSERT_NE(res, nullptr);
  const KernelDesc kr = kernel_from_variant(*ring), kb = kernel_from_variant(*res);
  EXPECT_FALSE(kr.b_resident);
  EXPECT_TRUE(kb.b_resident);
  const StageEstimate er = estimate_stages(a, kr, 1), eb = estimate_stages(a, kb, 1);
  EXPECT_NEAR(eb.transfer * 3, er.transfer, 1e-6);  // (128x64) against (128x64 + 256x64)
  EXPECT_NEAR(eb.t_compute, er.t_compute, 1e-9);
  bool said = false;
  for (const std::string& s : eb.assumptions) said |= s.find("A alone") != std::string::npos;
  EXPECT_TRUE(said);
}

// A B-resident ring carries A alone: a stage is A's k_tile (+ its two mbarriers), and B's slots --
// up to K <= max_k, apart from the ring's stages -- are part of the constant
// beside it, so the plan's smem at the kernel's own stage count is what the kernel asks for.
TEST(PlannerEstimate, BResidentStagesAreAAloneAndBsSlotsAConstantBesideThem) {
  int seen = 0;
  for (const Variant& v : variants()) {
    if (!v.mech.b_resident) continue;
    ++seen;
    const KernelDesc k = kernel_from_variant(v);
    EXPECT_EQ(ring_bytes_per_stage(k), k.bm * k.bk * 2 + 16) << v.name;
    EXPECT_GE(k.extra_smem, int(v.req.max_k) * k.bn * 2) << v.name;  // B's slots
    EXPECT_EQ(smem_bytes(k, k.stages), v.tile.smem_bytes) << v.name;
  }
  if (seen == 0) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
}

TEST(PlannerWaves, SeedShapeOnH200) {
  // 81920x256 in 128x128 tiles = 1280 tiles; 2 blocks x 132 SMs = 264 slots -> 5 waves,
  // the last with 1280 - 4*264 = 224 tiles.
  Waves w = waves_for(81920, 256, 128, 128, 2, 132);
  EXPECT_EQ(w.tiles, 1280);
  EXPECT_EQ(w.waves, 5);
  EXPECT_NEAR(w.last_wave_util, 224.0 / 264, 1e-12);
  EXPECT_NEAR(w.efficiency, 1280.0 / (5 * 264), 1e-12);
  EXPECT_EQ(waves_for(128, 128, 128, 128, 1, 132).waves, 1);
}

TEST(PlannerRegistry, EveryRegisteredTileReproducesItsOwnSmem) {
  for (const Variant& v : variants()) {
    if (v.is_peer() || v.tile.bm <= 0) continue;
    KernelDesc k = kernel_from_variant(v);
    // The dynamic part, plus a static __shared__ array the registry states (shortk): each once.
    EXPECT_EQ(smem_bytes(k, k.stages) + (v.tile.smem_static ? k.static_smem : 0), v.tile.smem_bytes) << v.name;
  }
  KernelDesc seed = kernel_from_variant(*find_variant("seed_f16_128x128x32_s3"));
  EXPECT_EQ(seed.extra_smem, 0);
  EXPECT_EQ(seed.pipeline, PipelineKind::cp_async_ring);
  EXPECT_EQ(seed.mma, MmaKind::mma_sync);
}

TEST(PlannerRegistry, RankingRunsTheRegistryAndGivesEachRejectionAReason) {
  Ranking r = rank_variants(arch("h200"), 81920, 256, 256, nullptr, nullptr);
  size_t total = r.ranked.size() + r.rejected.size();
  EXPECT_EQ(total, variants().size());
  bool seed = false;
  for (auto& x : r.ranked) seed |= x.v->name == "seed_f16_128x128x32_s3";
  EXPECT_TRUE(seed);
  for (size_t i = 1; i < r.ranked.size(); ++i) EXPECT_LE(r.ranked[i - 1].waves.waves, r.ranked[i].waves.waves);
  for (auto& x : r.rejected) EXPECT_FALSE(x.second.empty()) << x.first->name;

  Problem f16;  // the problem's own types: only variants computing f16 in, f32 acc, f16 out rank
  Ranking typed = rank_variants(arch("h200"), 81920, 256, 256, &f16, nullptr);
  for (auto& x : typed.ranked) EXPECT_TRUE(x.v->a_type == DType::f16 && x.v->acc_type == DType::f32) << x.v->name;

  Ranking odd = rank_variants(arch("h200"), 100, 256, 256, nullptr, nullptr);
  bool said = false;
  for (auto& x : odd.rejected)
    if (x.first->name == "seed_f16_128x128x32_s3") said = x.second.find("M=100") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(PlannerRegisters, ResUsageTextPicksTheCubinThatWouldRun) {
  const std::string text =
      "Fatbin elf code:\n================\narch = sm_80\ncode version = [1,8]\n"
      "Resource usage:\n Common:\n  GLOBAL:0\n"
      " Function _Z3fooILi1EEvv:\n  REG:96 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:360\n"
      " Function _Z3fooILi2EEvv:\n  REG:128 STACK:0 SHARED:512 LOCAL:0 CONSTANT[0]:360\n"
      "Fatbin elf code:\n================\narch = sm_90a\ncode version = [1,8]\n"
      "Resource usage:\n"
      " Function _Z3fooILi1EEvv:\n  REG:90 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:536\n";
  ResUsage r;
  std::string why;
  ASSERT_TRUE(res_usage_from_text(text, "_Z3foo", 90, &r, &why)) << why;
  EXPECT_EQ(r.cubin_arch, "sm_90a");
  EXPECT_EQ(r.regs, 90);
  EXPECT_EQ(r.static_smem, 0);  // the 1 KB in sm_90 ELFs is the driver's reservation
  ASSERT_TRUE(res_usage_from_text(text, "_Z3foo", 86, &r, &why)) << why;
  EXPECT_EQ(r.cubin_arch, "sm_80");
  EXPECT_EQ(r.matches, 2);
  EXPECT_EQ(r.regs, 128);  // ambiguous symbol: the largest
  EXPECT_EQ(r.static_smem, 512);
  EXPECT_FALSE(res_usage_from_text(text, "_Z3foo", 75, &r, &why));
  EXPECT_NE(why.find("no cubin for sm_75"), std::string::npos) << why;
  EXPECT_FALSE(res_usage_from_text(text, "bar", 90, &r, &why));
  // '*' in the registry's symbol tells template instances apart.
  ASSERT_TRUE(res_usage_from_text(text, "_Z3foo*Li2E", 86, &r, &why)) << why;
  EXPECT_EQ(r.matches, 1);
  EXPECT_EQ(r.regs, 128);
  ASSERT_TRUE(res_usage_from_text(text, "_Z3foo*Li1E", 86, &r, &why)) << why;
  EXPECT_EQ(r.regs, 96);
}

// ----- the CLI ------------------------------------------------------------------------------

TEST(PlannerCli, DefaultPlanIsTheSeedKernel) {
  CliRun r = cli("plan --arch a100");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("seed_f16_128x128x32_s3"), std::string::npos);
  EXPECT_NE(r.out.find("48 KB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Minimum stages"), std::string::npos);
}

TEST(PlannerCli, JsonForACustomTileOnA100) {
  CliRun r = cli("plan --tile 128x128x32 --stages 3 --arch a100 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernel"]["smem_bytes"], 48 * KB);
  EXPECT_EQ(j["occupancy"]["blocks_per_sm"], 3);
  EXPECT_EQ(j["arch"]["sm"], 80);
  EXPECT_EQ(j["compute_load"]["ratio"], 64.0);
}

TEST(PlannerCli, ShapeRanksTheRegistry) {
  CliRun r = cli("plan --arch h200 --shape 81920x256x256 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["ranking"].size(), 1u);
  EXPECT_GE(j["rejected"].size(), 1u);  // the cuBLAS peers at least
}

TEST(PlannerCli, BadInputIsExitCode2WithAMessage) {
  struct { const char* args; const char* says; } cases[] = {
      {"plan --arch sm_75", "unknown arch"},
      {"plan --tile 128x128x30", "does not divide"},
      {"plan --tile 64x64x2 --dtype f32", "16-byte"},
      {"plan --tile 120x128x32", "does not divide"},
      {"plan --tile 128x128x32 --stages 1", "at least 2 stages"},
      {"plan --tile 128x128x32 --stages 7 --arch sm_86", "at most 99 KB"},
      {"plan --tile 0x128x32", "bad --tile"},
      {"plan --tile 128x128x32 --threads 100", "multiple of 32"},
      {"plan --shape 0x256x256", "bad --shape"},
      {"plan --tile 128x128x32 --shape 100x256x256", "does not divide the shape"},
      {"plan --t-copy 0", "positive"},
      {"plan --regs 300", "1..255"},
      {"plan --kernel nope", "unknown kernel"},
      {"plan --kernel cublas_f16", "nothing to plan"},
      {"plan --kernel seed_f16_128x128x32_s3 --tile 64x64x32", "exclude"},
      {"plan --tile 128x128x32 --family nope", "unknown --family"},
      {"plan --tile 128x128x32 --mma wgmma --arch a100", "sm_90a"},
  };
  for (auto& c : cases) {
    CliRun r = cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(PlannerCli, ARegisteredKernelOffItsArchIsRefused) {
  for (const Variant& v : variants()) {
    if (v.is_peer() || v.tile.bm <= 0 || v.min_sm <= 80) continue;  // an sm_90(a)-only kernel
    CliRun r = cli("plan --kernel " + v.name + " --arch a100");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("sm_80"), std::string::npos) << r.out;
    return;
  }
  GTEST_SKIP() << "no sm_90-only kernel registered";
}

TEST(PlannerCli, ArchTable) {
  CliRun r = cli("plan --archs");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* k : {"a100", "rtx3070", "rtx4090", "h100", "h200"}) EXPECT_NE(r.out.find(k), std::string::npos) << k;
}

// ----- operand bytes per MAC (plan::byte_budget) ------------------------------------------------

// The budget that separates k5's tiles (docs/hopper.md): per k_tile the wgmma read every m64
// block's A and B from shared memory and the copies write A and B there. 128x256: all of the SM's
// 128 B/clk at the wgmma peak; ping-pong's 64x256 1.25x that (measured 82-86% of the cooperative
// kernel); the wide 256x192 4% less; mma.sync by its warp layout.
TEST(PlannerBytes, OperandBytesPerMacSeparateTheHopperTiles) {
  const ArchSpec h200 = arch("h200");
  KernelDesc coop = tile(128, 256, 64, 4, DType::f16, 384, PipelineKind::mbarrier_ring);
  coop.mma = MmaKind::wgmma;
  coop.max_cluster = 2;
  ByteBudget b = byte_budget(h200, coop);
  ASSERT_TRUE(b.known) << b.why_unknown;
  EXPECT_EQ(b.read_bytes, 80 * KB);   // 2 blocks x (64 + 256) rows x 64 x 2 B
  EXPECT_EQ(b.write_bytes, 48 * KB);  // (128 + 256) rows x 64 x 2 B
  EXPECT_DOUBLE_EQ(b.smem_per_kmac, 62.5);
  EXPECT_DOUBLE_EQ(b.smem_per_clk_at_peak, 128.0);  // 2048 MACs/clk on the H200's wgmma f16
  EXPECT_NEAR(b.l2_per_mac, 0.0234, 1e-4);
  EXPECT_NEAR(b.l2_per_mac_cluster, 0.0156, 1e-4);

  KernelDesc pingpong = coop;
  pingpong.bm = 64;
  pingpong.pingpong = true;
  EXPECT_DOUBLE_EQ(byte_budget(h200, pingpong).smem_per_clk_at_peak, 160.0);

  KernelDesc wide = coop;
  wide.bm = 256, wide.bn = 192, wide.stages = 3;
  b = byte_budget(h200, wide);
  EXPECT_EQ(b.read_bytes, 128 * KB);  // 4 blocks x (64 + 192) rows
  EXPECT_EQ(b.write_bytes, 56 * KB);
  EXPECT_NEAR(b.smem_per_clk_at_peak / 128.0, 0.958, 1e-3);
  EXPECT_NEAR(b.l2_per_mac / 0.0234375, 0.778, 1e-3);
  // Its 2-CTA clusters: sharing B (along M), (256 + 96) rows a CTA per k_tile; sharing A (along N,
  // _cluster1x2), (128 + 192) -- 9% fewer L2 bytes per MAC. The 128x256 tile is the other way round.
  EXPECT_NEAR(b.l2_per_mac_cluster * 256 * 192, (256 + 96) * 2.0, 1e-6);
  wide.cluster_n = true;
  EXPECT_NEAR(byte_budget(h200, wide).l2_per_mac_cluster * 256 * 192, (128 + 192) * 2.0, 1e-6);
  KernelDesc coop_n = coop;
  coop_n.cluster_n = true;
  EXPECT_GT(byte_budget(h200, coop_n).l2_per_mac_cluster, byte_budget(h200, coop).l2_per_mac_cluster);

  // s8 (BK = 128, 1-byte elements at twice the MAC rate): the same share of the SM's bandwidth.
  KernelDesc s8 = coop;
  s8.in = DType::i8, s8.acc = DType::i32, s8.bk = 128;
  EXPECT_DOUBLE_EQ(byte_budget(h200, s8).smem_per_clk_at_peak, 128.0);

  // mma.sync: each warp's ldmatrix reads its warp tile; without the layout the budget is unknown.
  KernelDesc k4 = tile(128, 256, 32, 4);
  EXPECT_FALSE(byte_budget(h200, k4).known);
  k4.warps_m = 2, k4.warps_n = 4;
  b = byte_budget(h200, k4);
  ASSERT_TRUE(b.known);
  EXPECT_EQ(b.read_bytes, (128 * 4 + 256 * 2) * 32 * 2);
  // No shared-memory operands (k0, skinny): nothing to budget.
  KernelDesc k0 = tile(128, 128, 16, 1);
  k0.pipeline = PipelineKind::none;
  EXPECT_FALSE(byte_budget(h200, k0).known);
}

TEST(PlannerCli, PlanOfAHopperTileSaysWhereItsOperandBytesGo) {
  for (const char* kernel : {"k5_f16_64x256x64_s4_pingpong", "k5_f16_256x192x64_s3"}) {
    if (!find_variant(kernel)) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
  }
  CliRun r = cli("plan --kernel k5_f16_64x256x64_s4_pingpong --arch h200");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("160 of the SM's 128 B/clk at the MMA peak"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.25x the SM's shared-memory bandwidth at the MMA peak by this count (80.0% of the peak"),
            std::string::npos) << r.out;
  r = cli("plan --kernel k5_f16_256x192x64_s3 --arch h200 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["byte_budget"]["read_bytes"].get<double>(), 131072.0) << r.out;
  EXPECT_EQ(j["byte_budget"]["smem_per_clk"].get<int>(), 128) << r.out;
}

// A kernel whose shared memory is one __shared__ array (shortk) launches with no dynamic smem: the
// planner must count that array once (as static), not as dynamic smem plus cuobjdump's static.
TEST(PlannerStaticSmem, ShortKArrayCountedOnceAsStatic) {
  int seen = 0;
  for (const Variant& v : variants()) {
    if (v.family != "shortk") continue;
    ++seen;
    ASSERT_TRUE(v.tile.smem_static) << v.name;
    const KernelDesc k = kernel_from_variant(v);
    EXPECT_EQ(k.static_smem, v.tile.smem_bytes) << v.name;
    EXPECT_EQ(v.tile.dynamic_smem(), 0) << v.name;
    EXPECT_EQ(smem_bytes(k, k.stages), 0) << v.name << ": the array counted as dynamic smem too";
  }
  EXPECT_GT(seen, 0) << "no shortk variant registered";
  for (const Variant& v : variants())
    if (v.family == "k5_ws_tma_wgmma") {
      EXPECT_FALSE(v.tile.smem_static) << v.name;
      EXPECT_EQ(v.tile.dynamic_smem(), v.tile.smem_bytes) << v.name;
    }
}
