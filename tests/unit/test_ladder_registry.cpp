// The ladder in the registry (issue 5), checked without a GPU: every rung x data type is there
// and fully described, the requirements say what each load path can take, and the automatic
// choice lands on the rung that should serve a problem.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/planner.hpp"
#include "pipegemm_tools/sass.hpp"

using namespace pipegemm;

namespace {

const char* const kFamilies[] = {"k0_simple", "k1_smem_single", "k2_dbuf_ldg", "k3_dbuf_cp_async", "k4_multistage"};

Problem problem(DType in, int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m; p.n = n; p.k = k;
  p.a_type = p.b_type = in;
  p.acc_type = in == DType::i8 ? DType::i32 : DType::f32;
  p.d_type = in == DType::i8 ? DType::i32 : in;
  return p;
}

const Variant* first_of_rung(int rung, DType in) {
  Problem p = problem(in, 1, 1, 1);
  for (const Variant& v : variants())
    if (v.rung == rung && v.a_type == in && v.acc_type == p.acc_type && v.d_type == p.d_type) return &v;
  return nullptr;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST(LadderRegistry, EveryRungIsRegisteredForEveryDataType) {
  for (DType t : {DType::f16, DType::bf16, DType::i8, DType::f32})
    for (int rung = 0; rung <= 4; ++rung) {
      const Variant* v = first_of_rung(rung, t);
      ASSERT_NE(v, nullptr) << "rung " << rung << " " << to_string(t);
      EXPECT_EQ(v->family, kFamilies[rung]) << v->name;
      EXPECT_EQ(v->name.rfind("k" + std::to_string(rung) + "_", 0), 0u) << v->name;
    }
  // The options of issue 5: fp16 accumulation for fp16, fp32 output for int8.
  EXPECT_NE(find_variant("k4_f16_f16acc_256x128x64_s3"), nullptr);
  const Variant* i8f32 = find_variant("k4_i8_f32out_128x256x64_s4");
  ASSERT_NE(i8f32, nullptr);
  EXPECT_EQ(i8f32->acc_type, DType::i32);
  EXPECT_EQ(i8f32->d_type, DType::f32);
  // ... and a k0 for it: no cuBLAS peer computes int8 -> fp32, so k0 serves the odd shapes.
  ASSERT_NE(find_variant("k0_i8_f32out_128x128x32"), nullptr);
  EXPECT_EQ(find_variant("k0_i8_f32out_128x128x32")->d_type, DType::f32);
}

TEST(LadderRegistry, EveryVariantIsFullyDescribed) {
  for (const Variant& v : variants()) {
    if (v.rung < 0 || v.rung > 4 || v.family == "seed" || v.family == "skinny" || v.family == "shortk") continue;
    SCOPED_TRACE(v.name);
    EXPECT_EQ(v.family, kFamilies[v.rung]);
    EXPECT_GT(v.tile.bm, 0); EXPECT_GT(v.tile.bn, 0); EXPECT_GT(v.tile.bk, 0);
    EXPECT_GT(v.tile.threads, 0);
    EXPECT_GT(v.tile.mma_k, 0);
    EXPECT_EQ(v.tile.stages, v.rung == 0 ? 0 : v.rung == 1 ? 1 : v.rung <= 3 ? 2 : v.tile.stages);
    if (v.rung == 4) { EXPECT_GE(v.tile.stages, 2); EXPECT_LE(v.tile.stages, 8); }
    EXPECT_EQ(v.tile.smem_bytes == 0, v.rung == 0);
    // A config fits the smem opt-in of the oldest arch it claims: sm_80 163 KB, sm_90 227 KB
    // (k4 persistent: ring + its own epilogue tile); sm_80 then refuses it before any launch.
    EXPECT_LE(v.tile.smem_bytes, v.min_sm >= 90 ? 227 * 1024 : 163 * 1024);
    EXPECT_EQ(v.min_sm >= 90, v.tile.smem_bytes > 163 * 1024);
    // The tag type puts the name in the mangled symbol: "<name>E" is unique per variant (k0: of
    // its plain kernel, not of k0_full_kernel, which holds the same tag).
    EXPECT_EQ(v.symbol, (v.rung == 0 ? "k0_simple_kernel*" : "") + v.name + "E");
    // The SASS expectations follow from the typed mechanism, never from the name.
    const sass::Expect e = sass::expect_for(v);
    EXPECT_EQ(e.mma_ops, std::vector<std::string>{v.a_type == DType::f32 ? "FFMA" : v.a_type == DType::i8 ? "IMMA" : "HMMA"});
    EXPECT_EQ(e.load_ops, std::vector<std::string>{v.rung == 0 || v.rung == 2 ? "LDG" : "LDGSTS"});
    EXPECT_EQ(e.expect_overlap, v.rung >= 2);
    EXPECT_GT(e.mma_per_k_tile, 0);
    EXPECT_NE(v.occupancy, nullptr);
    EXPECT_NE(v.launch, nullptr);
    // Predicated kernels: any M and N.
    EXPECT_EQ(v.req.m_multiple, 1);
    EXPECT_EQ(v.req.n_multiple, 1);
  }
}

// The teaching variants (issue 14): registered and described as such, never auto's, and each
// breaks what it says it breaks -- checked here by the planner and the mechanism, before any GPU
// (their diagnose verdicts: tests/gpu/test_gpu_diagnose.cpp).
TEST(LadderRegistry, TeachingVariantsAreNeverAutosAndBreakWhatTheySay) {
  const char* const names[] = {"k2_f16_128x128x32_s2_teach_uncoalesced", "k4_f16_128x256x32_s2_teach_starved",
                               "k4_f16_64x128x64_s5_teach_cliff"};
  int teaching = 0;
  for (const Variant& v : variants()) {
    if (v.teaching.empty()) continue;
    ++teaching;
    EXPECT_FALSE(v.auto_candidate) << v.name;
    EXPECT_FALSE(v.auto_tuned_only) << v.name;
    EXPECT_TRUE(contains(v.name, "_teach_")) << v.name;
    EXPECT_EQ(v.description.rfind("TEACHING", 0), 0u) << v.description;
    EXPECT_TRUE(contains(v.teaching, "diagnose: ")) << v.teaching;
  }
  EXPECT_EQ(teaching, 3);
  const Problem p = problem(DType::f16, 4096, 4096, 4096);
  for (const char* n : names) {
    ASSERT_NE(find_variant(n), nullptr) << n;
    EXPECT_TRUE(check_variant(*find_variant(n), p, 90).ok()) << n;  // they take it, auto still passes them by
  }
  for (int sm : {80, 90})
    for (const Variant* a : accepting_variants(p, sm, nullptr, nullptr, nullptr)) EXPECT_TRUE(a->teaching.empty()) << a->name;

  // Uncoalesced: LDG of one 2-byte element per load (A's column walk), k2's 16-byte rule otherwise (B).
  const Variant& u = *find_variant(names[0]);
  EXPECT_EQ(u.mech.load, LoadPath::ldg);
  EXPECT_EQ(u.mech.load_bytes, 2);
  EXPECT_EQ(u.req.k_multiple, 8);
  EXPECT_EQ(u.req.ld_multiple, 8);
  EXPECT_EQ(u.req.ptr_align_bytes, 16);
  plan::ArchSpec h200;
  ASSERT_TRUE(plan::find_arch("h200", &h200).ok());
  // Starved: one CTA per SM (256 threads at k4's ~240 registers) and fewer stages than the
  // planner's minimum with operands from DRAM.
  const Variant& st = *find_variant(names[1]);
  plan::KernelDesc k = plan::kernel_from_variant(st);
  k.regs_per_thread = 200;  // any count above 128 leaves room for one CTA of 256 threads
  const int blocks = plan::occupancy(h200, k.threads, plan::smem_bytes(k, k.stages), k.regs_per_thread).blocks;
  EXPECT_EQ(blocks, 1);
  const plan::StageEstimate est = plan::estimate_stages(h200, k, blocks);
  EXPECT_GT(est.min_stages, st.tile.stages) << est.min_stages;
  EXPECT_EQ(st.tile.stages, 2);
  // Cliff: past the smem cliff (one stage fewer fits one more CTA per SM; diagnose's collapse
  // rule reads exactly this), whatever the registers (255 still fit two CTAs of 128 threads):
  // 5 stages of 24 KB fit one CTA, 4 fit two.
  const Variant& cl = *find_variant(names[2]);
  k = plan::kernel_from_variant(cl);
  for (int regs : {0, 168, 255}) {
    const int at = plan::occupancy(h200, k.threads, plan::smem_bytes(k, k.stages), regs).blocks;
    const int fewer = plan::occupancy(h200, k.threads, plan::smem_bytes(k, k.stages - 1), regs).blocks;
    EXPECT_EQ(at, 1) << regs;
    EXPECT_GT(fewer, at) << regs;
  }
}

TEST(LadderRegistry, MmaCountPerKTileFollowsTheTile) {
  // 128x256x32 over 8 warps of m16n8k16: 64 HMMA per warp per k_tile (same as the seed's
  // 128x128x32 over 4 warps); int8 m16n8k32 with BK=64: also 64; FFMA counts per thread.
  EXPECT_EQ(sass::expect_for(*find_variant("k4_f16_128x256x32_s4")).mma_per_k_tile, 64);
  // 256x128x64 over 8 warps: 64x64 per warp, 4 k_blocks of 32 HMMA.
  EXPECT_EQ(sass::expect_for(*find_variant("k4_f16_256x128x64_s3")).mma_per_k_tile, 128);
  EXPECT_EQ(sass::expect_for(*find_variant("k1_f16_128x128x32_s1")).mma_per_k_tile, 64);
  EXPECT_EQ(sass::expect_for(*find_variant("k4_i8_128x256x64_s4")).mma_per_k_tile, 64);
  EXPECT_EQ(sass::expect_for(*find_variant("k3_f32_128x128x16_s2")).mma_per_k_tile, 128 * 128 * 16 / 256);
}

// Cooperative k5 consumers run staggered (consumer 1 two k_tiles behind), ping-pong
// ones take turns instead; the 16-bit 128x256 variants' main kernel -- the one the SASS check reads
// -- is the deferred-store config, while an fp32 D keeps its stores in the epilogue.
TEST(LadderRegistry, K5CooperativeConsumersAreStaggeredAndSixteenBitTilesStoreUnderTheNextTile) {
  const Variant* coop = find_variant("k5_f16_128x256x64_s4");
  const Variant* f32out = find_variant("k5_f16_f32out_128x256x64_s4");
  const Variant* pingpong = find_variant("k5_f16_64x256x64_s4_pingpong");
  if (!coop || !f32out || !pingpong) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
  EXPECT_EQ(coop->mech.stagger, 2);
  EXPECT_EQ(f32out->mech.stagger, 2);
  EXPECT_EQ(pingpong->mech.stagger, 0);
  EXPECT_TRUE(contains(coop->description, "consumer 1 2 k_tiles behind consumer 0")) << coop->description;
  EXPECT_FALSE(contains(pingpong->description, "k_tiles behind")) << pingpong->description;
  // The symbol names the line and the form a long K runs: the deferred-store (short-K) kernel for
  // the 16-bit D, the line's own for the fp32 D.
  EXPECT_TRUE(contains(coop->symbol, "Sm90Name_k5_f16_128x256x64_s4E*10FormShortK")) << coop->symbol;
  EXPECT_TRUE(contains(f32out->symbol, "Sm90Name_k5_f16_f32out_128x256x64_s4E*8FormLong")) << f32out->symbol;
}

// The wide k5 tile (256x192, issue 16) -- each cooperative consumer owns 128 rows as two
// m64n192 wgmma blocks, 3 stages; the plain TN GEMM only (a refusal names the missing capability),
// by name until measured, and the SASS check expects both blocks' wgmma in every k_tile.
TEST(LadderRegistry, K5WideTileIsTwoM64N192BlocksPerConsumerPlainAndByName) {
  const Variant* f16 = find_variant("k5_f16_256x192x64_s3");
  const Variant* i8 = find_variant("k5_i8_256x192x128_s3");
  if (!f16 || !i8) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
  for (const Variant* v : {f16, i8}) {
    EXPECT_EQ(v->tile.bm, 256);
    EXPECT_EQ(v->tile.bn, 192);
    EXPECT_EQ(v->tile.stages, 3);
    EXPECT_EQ(v->tile.threads, 384);                      // 1 producer + 2 consumer warpgroups
    EXPECT_LE(v->tile.smem_bytes, 227 * 1024);
    EXPECT_EQ(v->tile.mma_n, 192);
    EXPECT_EQ(v->mech.stagger, 0);
    EXPECT_FALSE(v->auto_candidate);
    EXPECT_TRUE(contains(v->description, "of 128 rows (2 m64n192 blocks each)")) << v->description;
    // 256x192xBK over 2 consumers of m64n192: 2 blocks x BK / k per consumer per k_tile.
    EXPECT_EQ(sass::expect_for(*v).mma_per_k_tile, 8);
  }
  // The general form is not built for it: layouts, epilogues and batches are refused before a launch.
  Problem p = problem(DType::f16, 4096, 4096, 4096);
  EXPECT_TRUE(check_variant(*f16, p, 90).ok());
  p.a_layout = Layout::ColMajor;
  EXPECT_EQ(check_variant(*f16, p, 90).code, StatusCode::not_supported);
  p = problem(DType::f16, 4096, 4096, 4096);
  p.activation = Activation::relu;
  EXPECT_EQ(check_variant(*f16, p, 90).code, StatusCode::not_supported);
  EXPECT_TRUE(contains(f16->symbol, "Sm90Name_k5_f16_256x192x64_s3E*8FormLong")) << f16->symbol;
}

// The wide tile with its 2-CTA clusters side by side along N, the pair sharing A (256
// rows a k_tile) rather than B (192): the same tile and kernel code path otherwise, its own
// instantiation (its own line's name tag in the symbol), plain TN and tuned-only.
TEST(LadderRegistry, K5Cluster1x2IsTheWideTileSharingAAlongNPlainAndByName) {
  const Variant* along_m = find_variant("k5_f16_256x192x64_s3");
  if (!along_m) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
  for (const char* name : {"k5_f16_256x192x64_s3_cluster1x2", "k5_bf16_256x192x64_s3_cluster1x2",
                           "k5_i8_256x192x128_s3_cluster1x2"}) {
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->tile.bm, 256);
    EXPECT_EQ(v->tile.bn, 192);
    EXPECT_EQ(v->tile.stages, 3);
    EXPECT_EQ(v->mech.max_cluster, 2);
    EXPECT_TRUE(v->mech.cluster_n);
    EXPECT_FALSE(v->auto_candidate);
    EXPECT_TRUE(contains(v->description, "clusters along N multicasting A")) << v->description;
    EXPECT_EQ(sass::expect_for(*v).mma_per_k_tile, 8);
    EXPECT_TRUE(contains(v->symbol, (std::string("Sm90Name_") + name + "E").c_str())) << v->symbol;
  }
  EXPECT_FALSE(along_m->mech.cluster_n);
  EXPECT_TRUE(contains(along_m->symbol, "Sm90Name_k5_f16_256x192x64_s3E")) << along_m->symbol;
  EXPECT_FALSE(contains(along_m->description, "along N")) << along_m->description;
  const Variant* v = find_variant("k5_f16_256x192x64_s3_cluster1x2");
  Problem p = problem(DType::f16, 4096, 4096, 4096);
  EXPECT_TRUE(check_variant(*v, p, 90).ok());
  p.b_layout = Layout::ColMajor;
  EXPECT_EQ(check_variant(*v, p, 90).code, StatusCode::not_supported);
  p = problem(DType::f16, 4096, 4096, 4096);
  p.alpha = 2.f;
  EXPECT_EQ(check_variant(*v, p, 90).code, StatusCode::not_supported);
}

// The 64x64 ping-pong tile for the LLM suite's M = 65..256 rows -- one consumer a
// (64, 64) tile, m64n64 wgmma, 12 stages, one chunk buffer a consumer; the plain TN GEMM only (the
// refusal names the capability), by name until measured, one wgmma block a k_tile in the SASS check.
TEST(LadderRegistry, K5SixtyFourSquarePingPongIsPlainByNameAndOneM64N64BlockAKTile) {
  for (const char* name : {"k5_f16_64x64x64_s12_pingpong", "k5_bf16_64x64x64_s12_pingpong"}) {
    const Variant* v = find_variant(name);
    if (!v) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
    EXPECT_EQ(v->tile.bm, 64);
    EXPECT_EQ(v->tile.bn, 64);
    EXPECT_EQ(v->tile.stages, 12);
    EXPECT_EQ(v->tile.mma_n, 64);
    EXPECT_LE(v->tile.smem_bytes, 227 * 1024);
    EXPECT_TRUE(v->mech.pingpong);
    EXPECT_EQ(v->mech.max_cluster, 2);
    EXPECT_FALSE(v->auto_candidate);
    // 64x64x64 over one consumer of m64n64k16: 4 wgmma a k_tile.
    EXPECT_EQ(sass::expect_for(*v).mma_per_k_tile, 4);
    EXPECT_TRUE(contains(v->symbol, (std::string("Sm90Name_") + name + "E").c_str())) << v->symbol;
    Problem p = problem(v->a_type, 128, 4096, 4096);
    EXPECT_TRUE(check_variant(*v, p, 90).ok()) << check_variant(*v, p, 90).message;
    p.b_layout = Layout::ColMajor;
    const Status s = check_variant(*v, p, 90);
    EXPECT_EQ(s.code, StatusCode::not_supported);
    EXPECT_TRUE(contains(s.message, "K-major")) << s.message;
    p = problem(v->a_type, 128, 4096, 4096);
    p.bias = Bias::per_col;
    EXPECT_EQ(check_variant(*v, p.normalized(), 90).code, StatusCode::not_supported);
  }
}

// B-resident with B's k_tiles apart from the ring -- K <= the B slots (the name's _k),
// the ring's stages all A (8 and 10 beside K <= 128, 5 beside 256 with one chunk buffer a
// consumer), all within one SM's smem; by name until their GPU test has run (the 4-stage one,
// verified: tuned-only);
// the plain TN GEMM up to N <= BN and K <= its B slots, the refusal naming both; the symbol
// names the line.
TEST(LadderRegistry, K5BResidentWithBApartFromADeeperRingOfA) {
  struct Want { const char* name; int bn, stages, max_k, epi_bufs; };
  const Want wants[] = {
      {"k5_f16_128x256x64_s8_b_resident_k128", 256, 8, 128, 2},
      {"k5_bf16_128x256x64_s8_b_resident_k128", 256, 8, 128, 2},
      {"k5_f16_128x128x64_s10_b_resident_k128", 128, 10, 128, 2},
      {"k5_f16_128x256x64_s5_b_resident_k256", 256, 5, 256, 1},
      {"k5_bf16_128x128x64_s8_b_resident_k256", 128, 8, 256, 2},
      {"k5_f16_128x256x64_s4_b_resident", 256, 4, 256, 2}};
  for (const Want& w : wants) {
    const Variant* v = find_variant(w.name);
    if (!v) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
    EXPECT_EQ(v->tile.bn, w.bn) << w.name;
    EXPECT_EQ(v->tile.stages, w.stages) << w.name;
    EXPECT_EQ(v->req.max_n, 4 * w.bn) << w.name;  // up to 4 columns of tiles, a CTA's B its column's
    EXPECT_EQ(v->req.max_k, w.max_k) << w.name;
    EXPECT_TRUE(v->mech.b_resident) << w.name;
    EXPECT_EQ(v->mech.max_cluster, 1) << w.name;
    EXPECT_LE(v->tile.smem_bytes, 227 * 1024) << w.name;
    // The ring's stages of A, B's slots and two consumers' chunk buffers (8 KB each): the smem the
    // kernel asks for, within 2 KB (barriers, alignment slack).
    const int a_stage = 128 * 64 * 2, b_slot = w.bn * 64 * 2, epi = 2 * w.epi_bufs * 8192;
    EXPECT_NEAR(double(v->tile.smem_bytes), double(w.stages * a_stage + (w.max_k / 64) * b_slot + epi), 2048.0) << w.name;
    EXPECT_FALSE(v->auto_candidate) << w.name;
    EXPECT_TRUE(v->auto_tuned_only) << w.name;  // every B-resident form: from its own tune entry
    EXPECT_TRUE(contains(v->symbol, (std::string("Sm90Name_") + w.name + "E").c_str())) << v->symbol;
    Problem p = problem(v->a_type, 65536, w.bn, w.max_k);
    EXPECT_TRUE(check_variant(*v, p, 90).ok()) << w.name << ": " << check_variant(*v, p, 90).message;
    p = problem(v->a_type, 65536, w.bn, w.max_k + 8);
    const Status s = check_variant(*v, p, 90);
    EXPECT_EQ(s.code, StatusCode::not_supported) << w.name;
    EXPECT_TRUE(contains(s.message, ("K <= " + std::to_string(w.max_k)).c_str())) << s.message;
  }
}

// s8 behind a copy into 16-byte rows -- an odd K that cuBLAS's int8 GEMM refuses (K and
// leading dimensions in multiples of 4) and the aligned s8 k5 refuses (16-byte rows) is taken; an
// auto candidate since its GPU test, verify and fuzz ran exact on the H200.
TEST(LadderRequirements, K5PackedInt8TakesAnOddKThatCublasAndTheAlignedKernelRefuse) {
  const Variant* packed = find_variant("k5_i8_128x256x128_s4_packed");
  const Variant* aligned = find_variant("k5_i8_128x256x128_s4");
  const Variant* cublas = find_variant("cublas_i8");
  if (!packed || !aligned) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
  ASSERT_NE(cublas, nullptr);
  Problem p = problem(DType::i8, 1000, 1001, 1001);
  EXPECT_TRUE(check_variant(*packed, p, 90).ok()) << check_variant(*packed, p, 90).message;
  EXPECT_EQ(check_variant(*aligned, p, 90).code, StatusCode::not_supported);
  EXPECT_EQ(check_variant(*cublas, p, 90).code, StatusCode::not_supported);
  EXPECT_TRUE(packed->mech.packed);
  EXPECT_TRUE(packed->auto_candidate);
  EXPECT_EQ(packed->symbol, aligned->symbol);  // the same kernel, proven once
  p.a_layout = Layout::ColMajor;  // the plain TN GEMM only
  EXPECT_EQ(check_variant(*packed, p, 90).code, StatusCode::not_supported);
}

TEST(LadderRequirements, VectorRungsNeedWhole16ByteVectorsAndSayWhy) {
  // 4095x4097x255 fp16: lda = 255 halves = 510 bytes breaks the 16-byte vector of k1..k4.
  Problem p = problem(DType::f16, 4095, 4097, 255);
  for (int rung = 1; rung <= 4; ++rung) {
    Status s = check_variant(*first_of_rung(rung, DType::f16), p, 90);
    EXPECT_EQ(s.code, StatusCode::not_supported) << s.message;
    EXPECT_TRUE(contains(s.message, "K=255 is not a multiple of 8")) << s.message;
  }
  // Padded leading dimension, K in whole vectors: accepted.
  Problem q = problem(DType::f16, 127, 129, 40);
  q.lda = 48; q.ldb = 56; q.ldd = 136;
  EXPECT_TRUE(check_variant(*first_of_rung(4, DType::f16), q, 90).ok());
  // D is stored element-wise (k1..k3) or 16-byte where its rows allow (k4): any ldd, and a D
  // pointer aligned to its element, while lda/ldb keep the vector rule.
  q.ldd = 129;
  for (int rung = 1; rung <= 4; ++rung) EXPECT_TRUE(check_variant(*first_of_rung(rung, DType::f16), q, 90).ok());
  alignas(16) static char dbuf[64];
  Status s = check_variant(*first_of_rung(4, DType::f16), q, 90, dbuf, dbuf, dbuf + 2);
  EXPECT_TRUE(s.ok()) << s.message;
  s = check_variant(*first_of_rung(4, DType::f16), q, 90, dbuf, dbuf, dbuf + 1);
  EXPECT_TRUE(contains(s.message, "pointer D is not 2-byte aligned")) << s.message;
  q.lda = 130;  // A rows no longer 16-byte aligned
  s = check_variant(*first_of_rung(4, DType::f16), q, 90);
  EXPECT_TRUE(contains(s.message, "lda=130 is not a multiple of 8 elements (16-byte vectors)")) << s.message;
  // The Hopper rung's TMA store keeps D's 16-byte rule: rows 16-byte apart, and rows that end
  // on a 16-byte unit (its store clips in whole units, so a ragged row would write its padding).
  if (const Variant* k5 = find_variant("k5_f16_128x256x64_s4")) {
    Problem r = problem(DType::f16, 128, 128, 64);
    r.ldd = 129;
    s = check_variant(*k5, r, 90);
    EXPECT_TRUE(contains(s.message, "ldd=129")) << s.message;
    r = problem(DType::f16, 128, 129, 64);
    r.ldd = 136;
    s = check_variant(*k5, r, 90);
    EXPECT_TRUE(contains(s.message, "N=129 is not a multiple of 8")) << s.message;
  }
  // int8: 16 elements per vector.
  s = check_variant(*first_of_rung(3, DType::i8), problem(DType::i8, 64, 64, 1000), 90);
  EXPECT_TRUE(contains(s.message, "K=1000 is not a multiple of 16")) << s.message;
  alignas(16) static char buf[64];
  s = check_variant(*first_of_rung(2, DType::bf16), problem(DType::bf16, 64, 64, 64), 90, buf, buf + 8, buf);
  EXPECT_TRUE(contains(s.message, "pointer B is not 16-byte aligned")) << s.message;
}

TEST(LadderRequirements, PersistentK4NeedsHopperSharedMemoryAndSaysSo) {
  // Ring (147 KB) + its own epilogue tile (68 KB): past sm_80's 163 KB opt-in.
  const Variant* v = find_variant("k4_f16_256x128x64_s3_persistent");
  ASSERT_NE(v, nullptr);
  EXPECT_GT(v->tile.smem_bytes, 163 * 1024);
  Problem p = problem(DType::f16, 512, 512, 512);
  EXPECT_TRUE(contains(check_variant(*v, p, 80).message, "needs sm_90")) << check_variant(*v, p, 80).message;
  EXPECT_TRUE(check_variant(*v, p, 90).ok());
  // No candidate of an sm_80 device is it.
  for (const Variant* a : accepting_variants(p, 80, nullptr, nullptr, nullptr))
    EXPECT_LE(a->tile.smem_bytes, 163 * 1024) << a->name;
}

TEST(LadderRequirements, SimpleRungTakesAnyShapeAndStrideWithNaturalAlignment) {
  for (DType t : {DType::f16, DType::bf16, DType::i8, DType::f32}) {
    const Variant& k0 = *first_of_rung(0, t);
    for (auto s : {std::array<int64_t, 3>{1, 1, 1}, {7, 9, 13}, {127, 129, 33}, {4095, 4097, 255}})
      EXPECT_TRUE(check_variant(k0, problem(t, s[0], s[1], s[2]), 90).ok()) << k0.name;
  }
  alignas(16) static char buf[64];
  const Variant& k0 = *first_of_rung(0, DType::f16);
  EXPECT_TRUE(check_variant(k0, problem(DType::f16, 7, 9, 13), 90, buf + 2, buf, buf).ok());
  Status s = check_variant(k0, problem(DType::f16, 7, 9, 13), 90, buf + 1, buf, buf);
  EXPECT_TRUE(contains(s.message, "pointer A is not 2-byte aligned")) << s.message;
  EXPECT_EQ(check_variant(k0, problem(DType::f16, 0, 9, 13), 90).code, StatusCode::invalid_argument);
  EXPECT_TRUE(contains(check_variant(k0, problem(DType::f16, 8, 8, 8), 75).message, "needs sm_80"));
}

// auto without a tune entry or a cost model (an unknown GPU) falls back to the ladder: on sm_80
// (no Hopper rung) its top is k4. The model and the cache: test_dispatch.cpp.
const Variant* fallback_choice(const Problem& p, int sm, const void* A = nullptr, const void* B = nullptr,
                               const void* D = nullptr) {
  DeviceInfo no_model;  // present = false: nothing to model
  no_model.sm = sm;
  const Choice c = choose_auto(p.normalized(), no_model, A, B, D, TuneTables{});
  EXPECT_TRUE(!c.variant || c.source == "fallback") << c.source;
  return c.variant;
}

TEST(LadderChoice, WithoutACostModelAutoTakesTheHighestRungThatAcceptsTheProblem) {
  const Variant* v = fallback_choice(problem(DType::f16, 4096, 4096, 4096), 80);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->family, "k4_multistage") << v->name;
  EXPECT_NE(v->family, "seed") << v->name;  // general k4 first: it takes any M, N
  // Odd K: only the element path (k0) of ours accepts it; the fallback prefers it to cuBLAS.
  v = fallback_choice(problem(DType::f16, 4095, 4097, 255), 80);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->family, "k0_simple") << v->name;
  // A pointer off by one byte: no kernel of ours takes it, cuBLAS does.
  alignas(16) static char buf[64];
  v = fallback_choice(problem(DType::f16, 64, 64, 64), 80, buf + 1, buf, buf);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->is_peer()) << v->name;
  for (DType t : {DType::bf16, DType::i8, DType::f32}) {
    v = fallback_choice(problem(t, 1024, 1024, 1024), 80);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->family, "k4_multistage") << to_string(t) << " -> " << v->name;
  }
}

// Ping-pong with 128-row tiles -- each consumer a whole (128, BN) tile as two m64 blocks
// (128x192: 192 accumulators, setmaxnreg 240 / 24; 128x128: 128), plain TN, auto's only where a tune
// entry timed it fastest; the SASS check expects both blocks' wgmma in each k_tile (2 x 4).
TEST(LadderRegistry, K5PingPongWith128RowTilesIsPlainTunedOnlyAndTwoBlocksAKTile) {
  struct Want {
    const char* name;
    int bn, stages;
  };
  for (const Want& w : {Want{"k5_f16_128x192x64_s4_pingpong", 192, 4}, Want{"k5_bf16_128x192x64_s4_pingpong", 192, 4},
                        Want{"k5_f16_128x128x64_s6_pingpong", 128, 6}, Want{"k5_bf16_128x128x64_s6_pingpong", 128, 6}}) {
    const Variant* v = find_variant(w.name);
    if (!v) GTEST_SKIP() << "this build has no sm_90a (k5) kernels";
    EXPECT_EQ(v->tile.bm, 128) << w.name;
    EXPECT_EQ(v->tile.bn, w.bn) << w.name;
    EXPECT_EQ(v->tile.stages, w.stages) << w.name;
    EXPECT_EQ(v->tile.mma_n, w.bn) << w.name;
    EXPECT_LE(v->tile.smem_bytes, 227 * 1024) << w.name;
    EXPECT_TRUE(v->mech.pingpong) << w.name;
    EXPECT_EQ(v->mech.stagger, 0) << w.name;
    EXPECT_FALSE(v->auto_candidate) << w.name;
    EXPECT_TRUE(v->auto_tuned_only) << w.name;
    EXPECT_EQ(sass::expect_for(*v).mma_per_k_tile, 8) << w.name;
    Problem p = problem(v->a_type, 4096, 4096, 4096);
    EXPECT_TRUE(check_variant(*v, p, 90).ok()) << check_variant(*v, p, 90).message;
    p.bias = Bias::per_col;
    const Status s = check_variant(*v, p.normalized(), 90);
    EXPECT_EQ(s.code, StatusCode::not_supported) << w.name;
  }
}

// shortk (K <= 16): per 16-bit input type and D type, described by its fields -- mma.sync on
// one k_tile (the whole K, zero-padded), element loads, no overlap to prove -- and taking
// everything k0 takes within its K bound, so auto may send it any tiny-K problem.
TEST(LadderRegistry, ShortKTakesTheFullSemanticsWithinItsK) {
  int n = 0;
  for (const Variant& v : variants()) {
    if (v.family != "shortk") continue;
    ++n;
    SCOPED_TRACE(v.name);
    EXPECT_EQ(v.mech.mma, MmaKind::mma_sync);
    EXPECT_EQ(v.mech.pipeline, PipelineKind::single);
    EXPECT_EQ(v.mech.load, LoadPath::ldg);
    EXPECT_EQ(v.req.max_k, v.tile.bk);
    EXPECT_EQ(v.req.ptr_align_bytes, int(dtype_bytes(v.a_type)));
    EXPECT_TRUE(v.req.a_mn_major && v.req.b_mn_major && v.req.scale && v.req.c_apart && v.req.c_f32 && v.req.batch);
    EXPECT_TRUE(v.req.bias_per_row && v.req.bias_per_col && v.req.bias_f32);
    EXPECT_EQ(v.req.activations, (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh)) |
                                     (1u << int(Activation::gelu_erf)));
    EXPECT_FALSE(v.auto_candidate);  // auto's only where its own tune entry timed it fastest (docs/shortk.md)
    EXPECT_TRUE(v.auto_tuned_only);
    const sass::Expect e = sass::expect_for(v);
    EXPECT_EQ(e.mma_ops, std::vector<std::string>{"HMMA"});
    EXPECT_EQ(e.load_ops, std::vector<std::string>{"LDG"});
    EXPECT_FALSE(e.expect_overlap);
    EXPECT_EQ(e.mma_per_k_tile, 0);  // no k_tile loop to count MMAs in
    // Refused past its K, with the bound named, before any launch.
    Problem p;
    p.m = 100, p.n = 100, p.k = v.tile.bk + 1;
    p.a_type = p.b_type = v.a_type, p.acc_type = v.acc_type, p.d_type = v.d_type;
    const Status s = check_variant(v, p.normalized(), 90);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.message, "short K: K at most 16")) << s.message;
    p.k = v.tile.bk;
    EXPECT_TRUE(check_variant(v, p.normalized(), 90).ok());
  }
  EXPECT_EQ(n, 6);  // 32x256 in the four type sets, 64x128 for the 16-bit D
}
