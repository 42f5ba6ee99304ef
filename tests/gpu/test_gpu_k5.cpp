// k5 (TMA + wgmma + mbarrier, warp-specialized, persistent): every registered k5 variant
// against the CPU reference on aligned odd shapes, the refusals that must happen before any
// launch, and the automatic choice that routes around them. The refusal tests need no GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/reports.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/pipeline/stream_k.cuh"

using namespace pipegemm;

namespace {

bool have_sm90() { return device_info().present && device_info().sm == 90; }

#define REQUIRE_SM90()                                                                                  \
  do {                                                                                                  \
    if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;                 \
    if (!have_sm90()) GTEST_SKIP() << "k5 is sm_90a code, the GPU is sm_" << device_info().sm;         \
  } while (0)

Problem problem(int64_t m, int64_t n, int64_t k, DType in, DType out) {
  Problem p;
  p.m = m; p.n = n; p.k = k;
  p.a_type = p.b_type = in;
  p.d_type = out;
  p.acc_type = DType::f32;
  return p.normalized();
}

std::vector<const Variant*> k5_variants_for(const Problem& p) {
  std::vector<const Variant*> out;
  for (const Variant& v : variants())
    if (v.family == "k5_ws_tma_wgmma" && v.a_type == p.a_type && v.d_type == p.d_type) out.push_back(&v);
  return out;
}

// Verifies each of vs on p's fresh random inputs (seed): each must run and pass the element-wise
// comparison against the CPU reference.
void verify_variants(const Problem& p, const std::vector<const Variant*>& vs, uint64_t seed) {
  std::unique_ptr<VerifySession> s;
  Status st = VerifySession::create(p, make_random_inputs(p, seed), &s);
  ASSERT_TRUE(st.ok()) << st.message;
  for (const Variant* v : vs) {
    VerifyOutcome o = s->verify(*v);
    EXPECT_TRUE(o.status.ok()) << v->name << " " << p.shape_string() << ": " << o.status.message;
    EXPECT_TRUE(o.result.pass) << v->name << " " << p.shape_string() << ": " << o.result.summary();
  }
}

// Verifies every k5 variant computing p's types. A variant whose size bounds exclude the shape
// (B-resident: N <= 4 BN, K <= its B slots) is left out -- only for that reason; every other variant must
// accept.
void verify_k5(const Problem& p) {
  std::vector<const Variant*> vs;
  for (const Variant* v : k5_variants_for(p))
    if (!((v->req.max_n && p.n > v->req.max_n) || (v->req.max_k && p.k > v->req.max_k))) vs.push_back(v);
  ASSERT_FALSE(vs.empty()) << "no k5 variant for " << to_string(p.a_type) << "->" << to_string(p.d_type);
  verify_variants(p, vs, 4242 + uint64_t(p.m * 7 + p.n));
}

// K <= 512 runs the short-K kernel (3 stages, 4 epilogue buffers), K > 512 the main one
// (4 stages), with 2-CTA clusters from K >= 2048 on the clustered variants (along M, or along N).
const std::array<std::array<int64_t, 3>, 10> kShapes = {{
    {8, 8, 8},           // one partial tile in every dimension, a single partial k_tile
    {127, 136, 40},      // odd M, N not a multiple of 256, K tail of 40
    {512, 512, 512},     // whole tiles
    {4095, 4104, 264},   // many persistent tiles per CTA, every edge partial
    {81920, 256, 256},   // the seed shape: tall, one N tile
    {383, 520, 1000},    // main kernel: partial tiles, K tail of 40 after 15 full k_tiles
    {384, 264, 2056},    // clusters: 3 M tiles, the last cluster's second CTA has an empty tile
    {1024, 1536, 4096},  // clusters, whole tiles, several tiles per CTA
    {264, 520, 2048},    // clusters along N (_cluster1x2): 3 N tiles of 192, the last pair's second CTA empty
    {136, 1032, 4104},   // an LLM row count: 64x64 tiles, 3 along M (the last cluster half empty), N and K tails
}};

}  // namespace

TEST(K5Verify, Fp16InFp16OutOnOddAndWholeTileShapes) {
  REQUIRE_SM90();
  for (auto s : kShapes) verify_k5(problem(s[0], s[1], s[2], DType::f16, DType::f16));
}

TEST(K5Verify, Bf16InBf16OutOnOddAndWholeTileShapes) {
  REQUIRE_SM90();
  for (auto s : kShapes) verify_k5(problem(s[0], s[1], s[2], DType::bf16, DType::bf16));
}

TEST(K5Verify, Fp32OutputFromFp16AndBf16) {
  REQUIRE_SM90();
  for (auto s : {std::array<int64_t, 3>{127, 136, 40}, {1000, 520, 1032}}) {
    verify_k5(problem(s[0], s[1], s[2], DType::f16, DType::f32));
    verify_k5(problem(s[0], s[1], s[2], DType::bf16, DType::f32));
  }
}

// s8 x s8 -> s32 wgmma (BK = 128): exact sums, s32 and f32 output, on the same kinds of shapes
// (K a multiple of 16: TMA rows of 16 bytes; K tails inside the 128-element k_tile).
TEST(K5Verify, Int8ExactWithInt32AndFp32Output) {
  REQUIRE_SM90();
  const std::array<std::array<int64_t, 3>, 8> shapes = {{{8, 8, 16},
                                                         {127, 136, 48},
                                                         {512, 512, 512},
                                                         {4095, 4104, 272},
                                                         {81920, 256, 256},
                                                         {383, 520, 1040},
                                                         {384, 264, 2064},
                                                         {1024, 1536, 4096}}};
  for (auto s : shapes)
    for (DType out : {DType::i32, DType::f32}) {
      Problem p = problem(s[0], s[1], s[2], DType::i8, out);
      p.acc_type = DType::i32;
      verify_k5(p.normalized());
    }
}

// B-resident (B loaded once per CTA, the ring carries A), every such variant -- the 4-stage one and
// those with B's k_tiles apart from a deeper ring (8 / 10 stages beside K <= 128, 5 and
// one chunk buffer beside K <= 256, 8 on the 128-wide tile) -- on the shapes it takes: tall-skinny
// short-K, partial M, N and K tiles (K = 40: one partial k_tile; 200: a K tail in the fourth; 104:
// in the second), many tiles per CTA (each but the CTA's first reuses the B its first loaded), N = 8
// (TMA zero-fills B's other rows), several columns of tiles with several tiles a CTA (N up to 4 BN:
// each CTA's tiles in one column, its B that column's) -- 256 wide: 81920x256 none, 30000x520 on 3
// (a partial last one), 40000x1000 on 4; 128 wide: 81920x256 on 2, 20000x384 on 3, 20000x480 on 4.
// One reference a (shape, type), every variant that takes the shape against it. The job running it
// also runs it with $PIPEGEMM_K5_MAX_CTAS at 130 and 2 (grids that 2-4 columns do not divide; a grid
// of n_tiles CTAs) -- a static read once, so each its own process.
TEST(K5Verify, BResidentOnTallSkinnyShortKShapes) {
  REQUIRE_SM90();
  const std::array<std::array<int64_t, 3>, 14> shapes = {{{8, 8, 8},
                                                          {127, 136, 40},
                                                          {81920, 256, 256},
                                                          {65536, 128, 128},
                                                          {131072, 256, 128},
                                                          {33000, 200, 200},
                                                          {4097, 8, 256},
                                                          {1000, 120, 72},
                                                          {20000, 104, 104},
                                                          {4097, 8, 128},
                                                          {20000, 384, 128},
                                                          {20000, 480, 64},
                                                          {30000, 520, 64},
                                                          {40000, 1000, 64}}};
  std::map<std::string, int> shapes_run;  // per B-resident variant
  for (const Variant& v : variants())
    if (v.family == "k5_ws_tma_wgmma" && v.mech.b_resident) shapes_run[v.name] = 0;
  for (auto s : shapes)
    for (DType t : {DType::f16, DType::bf16}) {
      std::vector<const Variant*> vs;
      for (const Variant& v : variants())
        if (shapes_run.count(v.name) && v.a_type == t && s[1] <= v.req.max_n && s[2] <= v.req.max_k) {
          vs.push_back(&v);
          ++shapes_run[v.name];
        }
      if (vs.empty()) continue;
      const Problem p = problem(s[0], s[1], s[2], t, t);
      verify_variants(p, vs, 777 + uint64_t(p.m + p.n + p.k));
    }
  EXPECT_EQ(shapes_run.size(), 10u);
  for (const auto& [name, n] : shapes_run) EXPECT_GE(n, 6) << name;
}

// Stream-K (k5_*_streamk, pipeline/stream_k.cuh): units that leave the last wave partly empty --
// shared alone (4096x4096x1024: 512 units, 116 shared), shared with the last whole wave
// (2176x2048x1032: 136 units, K tail), fewer units than SMs (1408x2048x1024: 88; 383x520x1000: 9,
// four workers a unit), 2-CTA clusters (3200x2560x2048: 130 units on 66 clusters). Every element
// against the CPU reference, and a second run bit for bit the same: finishes add parts in a fixed order.
TEST(K5StreamK, PartialWavesVerifyAndRepeatBitForBit) {
  REQUIRE_SM90();
  const std::array<std::array<int64_t, 3>, 5> shapes = {
      {{4096, 4096, 1024}, {2176, 2048, 1032}, {1408, 2048, 1024}, {383, 520, 1000}, {3200, 2560, 2048}}};
  struct Types { DType in, out; };
  for (const Types t : {Types{DType::f16, DType::f16}, Types{DType::bf16, DType::bf16}, Types{DType::i8, DType::i32}}) {
    const std::string name = std::string("k5_") + to_string(t.in) + (t.in == DType::i8 ? "_128x256x128_s4_streamk" : "_128x256x64_s4_streamk");
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (auto sh : shapes) {
      Problem p = problem(sh[0], sh[1], t.in == DType::i8 ? (sh[2] + 15) / 16 * 16 : sh[2], t.in, t.out);
      if (t.in == DType::i8) p.acc_type = DType::i32, p = p.normalized();
      // The plan a launch makes with every SM as a worker (clusters of 2 from K = 2048) shares k_tiles.
      const int cluster = p.k >= 2048 ? 2 : 1;
      const int units = int((p.m + 128 * cluster - 1) / (128 * cluster) * ((p.n + 255) / 256));
      EXPECT_GT(pipeline::stream_k_plan(units, int((p.k + v->tile.bk - 1) / v->tile.bk), 132 / cluster).sk_units, 0)
          << p.shape_string();
      std::unique_ptr<VerifySession> s;
      Status st = VerifySession::create(p, make_random_inputs(p, 901 + uint64_t(p.m + p.k)), &s);
      ASSERT_TRUE(st.ok()) << st.message;
      VerifyOutcome o = s->verify(*v);
      ASSERT_TRUE(o.status.ok()) << name << " " << p.shape_string() << ": " << o.status.message;
      EXPECT_TRUE(o.result.pass) << name << " " << p.shape_string() << ": " << o.result.summary();
      const std::vector<uint8_t> first = s->last_output();
      o = s->verify(*v);
      ASSERT_TRUE(o.status.ok()) << o.status.message;
      EXPECT_TRUE(first == s->last_output()) << name << " " << p.shape_string() << ": a second run differs";
    }
  }
}

// Programmatic dependent launch (on by default on sm_90, $PIPEGEMM_PDL=0 turns it off;
// arch/griddep.cuh): a chain of GEMMs on one stream, each reading the D the one before wrote --
// D1 = A W1^T (long K, so the next kernel's CTAs start while the first's last wave runs), then
// D2 = D1 W2^T, D3 = D2 W2^T, D4 = D3 W2^T -- every D poisoned (NaN) before the chain. A kernel
// that read its A before the previous one finished would read NaN: D4 must be finite everywhere
// and bit for bit the D4 of the same chain launched without PDL. k5, its stream-K form,
// skinny (M = 8: the decode chain) and k0 (the fallback of tiny and misaligned problems).
TEST(K5Pdl, ADependentChainGivesTheSameBitsAsWithout) {
  REQUIRE_SM90();
  const int64_t k1 = 8192, n = 1024;
  auto device = [](size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    return std::unique_ptr<void, decltype(&cudaFree)>(p, &cudaFree);
  };
  const int64_t max_m = 2048;
  auto a = device(max_m * k1 * 2), w1 = device(n * k1 * 2), w2 = device(n * n * 2);
  std::vector<std::unique_ptr<void, decltype(&cudaFree)>> d;
  for (int i = 0; i < 4; ++i) d.push_back(device(max_m * n * 2));
  std::vector<uint16_t> h(size_t(max_m * k1));
  uint32_t x = 12345;
  auto fill = [&](void* dst, int64_t count, float scale) {  // fp16 in [-scale, scale)
    for (int64_t i = 0; i < count; ++i) {
      x = x * 1664525u + 1013904223u;
      const float f = (float(x >> 8) / float(1u << 24) * 2.f - 1.f) * scale;
      h[size_t(i)] = __half_as_ushort(__float2half(f));
    }
    ASSERT_EQ(cudaMemcpy(dst, h.data(), size_t(count) * 2, cudaMemcpyHostToDevice), cudaSuccess);
  };
  fill(a.get(), max_m * k1, 1.f);
  fill(w1.get(), n * k1, 1.f);
  fill(w2.get(), n * n, 1.f / 32);  // each later link keeps the values' size (no fp16 overflow)
  auto gemm_problem = [](int64_t mm, int64_t nn, int64_t kk) { return problem(mm, nn, kk, DType::f16, DType::f16); };
  struct Case { const char* name; int64_t m; };
  for (const Case c : {Case{"k5_f16_128x256x64_s4", 2048}, Case{"k5_f16_128x256x64_s4_streamk", 2048},
                       Case{"skinny_f16_8x32x256_w4", 8}, Case{"k0_f16_64x64x16", 256}}) {
    std::vector<uint16_t> want, got;
    for (int pdl : {0, 1}) {
      setenv("PIPEGEMM_PDL", pdl ? "1" : "0", 1);
      for (auto& di : d) ASSERT_EQ(cudaMemset(di.get(), 0xff, size_t(max_m * n * 2)), cudaSuccess);  // NaN
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      Options o;
      o.variant = c.name;
      Status st = gemm(gemm_problem(c.m, n, k1), a.get(), w1.get(), d[0].get(), o);
      ASSERT_TRUE(st.ok()) << st.message;
      for (int i = 1; i < 4 && st.ok(); ++i) {
        st = gemm(gemm_problem(c.m, n, n), d[size_t(i - 1)].get(), w2.get(), d[size_t(i)].get(), o);
        ASSERT_TRUE(st.ok()) << st.message;
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<uint16_t>& out = pdl ? got : want;
      out.resize(size_t(c.m * n));
      ASSERT_EQ(cudaMemcpy(out.data(), d[3].get(), out.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    }
    unsetenv("PIPEGEMM_PDL");
    for (const std::vector<uint16_t>* v : {&want, &got}) {
      size_t nan = 0;
      for (uint16_t e : *v) nan += (e & 0x7c00) == 0x7c00;
      EXPECT_EQ(nan, 0u) << c.name << ": D4 " << (v == &want ? "without" : "with") << " PDL is not finite everywhere";
    }
    EXPECT_TRUE(want == got) << c.name << ": D4 with PDL differs from D4 without";
  }
}

TEST(K5Verify, PaddedLeadingDimensions) {
  REQUIRE_SM90();
  Problem p = problem(300, 200, 136, DType::f16, DType::f16);
  p.lda = 144; p.ldb = 160; p.ldd = 264;  // multiples of 8 elements, larger than a row
  verify_k5(p);
}

// Refusals happen in check_variant(), so they are checked with or without a GPU (sm = 90).
TEST(K5Refusal, MisalignedPointerOrLeadingDimensionIsRefusedWithTheRule) {
  const Variant* v = find_variant("k5_f16_128x256x64_s4");
  ASSERT_NE(v, nullptr);
  Problem p = problem(128, 128, 64, DType::f16, DType::f16);
  alignas(16) static char buf[64];
  Status s = check_variant(*v, p, 90, buf + 2, buf, buf);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_NE(s.message.find("pointer A is not 16-byte aligned"), std::string::npos) << s.message;
  Problem q = problem(128, 128, 60, DType::f16, DType::f16);  // lda = 60: rows 120 bytes apart
  s = check_variant(*v, q, 90, buf, buf, buf);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_NE(s.message.find("lda=60"), std::string::npos) << s.message;
  Problem r = problem(128, 96, 64, DType::f16, DType::f16);
  r.ldd = 100;  // 100 halves = 200 bytes between D rows
  s = check_variant(*v, r, 90, buf, buf, buf);
  EXPECT_NE(s.message.find("ldd=100"), std::string::npos) << s.message;
  // A D row that ends mid 16-byte unit: the TMA store would write into its padding.
  Problem t = problem(128, 100, 64, DType::f16, DType::f16);
  t.ldd = 104;
  s = check_variant(*v, t, 90, buf, buf, buf);
  EXPECT_NE(s.message.find("N=100 is not a multiple of 8"), std::string::npos) << s.message;
}

// B-resident holds its tiles' B in smem (a CTA's tiles share one column: up to 4 of BN): N > 1024
// or K > 256 is refused before a launch, with the rule.
TEST(K5Refusal, BResidentRefusesNOrKBeyondWhatSharedMemoryHolds) {
  const Variant* v = find_variant("k5_f16_128x256x64_s4_b_resident");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(check_variant(*v, problem(81920, 256, 256, DType::f16, DType::f16), 90).ok());
  EXPECT_TRUE(check_variant(*v, problem(81920, 1024, 256, DType::f16, DType::f16), 90).ok());
  for (auto s : {std::array<int64_t, 3>{81920, 1032, 256}, {81920, 256, 264}, {4096, 4096, 4096}}) {
    Status st = check_variant(*v, problem(s[0], s[1], s[2], DType::f16, DType::f16), 90);
    EXPECT_EQ(st.code, StatusCode::not_supported) << s[1] << "x" << s[2];
    EXPECT_NE(st.message.find("holds its tiles' B in shared memory: N <= 1024 and K <= 256"), std::string::npos)
        << st.message;
  }
  Problem q = problem(1024, 256, 256, DType::f16, DType::f16);
  q.alpha = 2.f;  // the plain TN GEMM only
  EXPECT_EQ(check_variant(*v, q, 90).code, StatusCode::not_supported);
  // B's k_tiles apart from the ring: K up to its B slots, whatever the ring's stages.
  const Variant* deep = find_variant("k5_f16_128x256x64_s8_b_resident_k128");
  ASSERT_NE(deep, nullptr);
  EXPECT_TRUE(check_variant(*deep, problem(131072, 256, 128, DType::f16, DType::f16), 90).ok());
  Status st = check_variant(*deep, problem(131072, 256, 136, DType::f16, DType::f16), 90);
  EXPECT_EQ(st.code, StatusCode::not_supported);
  EXPECT_NE(st.message.find("N <= 1024 and K <= 128"), std::string::npos) << st.message;
}

TEST(K5Refusal, GpusOtherThanSm90AreRefused) {
  for (const Variant& v : variants()) {
    if (v.family != "k5_ws_tma_wgmma") continue;
    Problem p = problem(256, 256, 64, v.a_type, v.d_type);
    p.acc_type = v.acc_type;  // s8: s32 accumulation
    EXPECT_TRUE(check_variant(v, p, 90).ok()) << v.name;
    EXPECT_EQ(check_variant(v, p, 80).code, StatusCode::not_supported) << v.name;
    EXPECT_EQ(check_variant(v, p, 100).code, StatusCode::not_supported) << v.name;
  }
}

TEST(K5Refusal, K5IsACandidateOnSm90OnlyAndNotWhereItRefuses) {
  auto has_k5 = [](const Problem& p, int sm) {
    for (const Variant* v : accepting_variants(p.normalized(), sm, nullptr, nullptr, nullptr))
      if (v->family == "k5_ws_tma_wgmma" && !v->mech.packed) return true;  // the packed form takes any
    return false;
  };
  Problem p = problem(4096, 4096, 4096, DType::bf16, DType::bf16);
  EXPECT_TRUE(has_k5(p, 90));
  Problem q = problem(4096, 4096, 4090, DType::bf16, DType::bf16);  // lda = 4090: not 16-byte rows
  EXPECT_FALSE(has_k5(q, 90));
  EXPECT_FALSE(has_k5(p, 80));  // an A100 never gets sm_90a code
  std::string why;
  const Variant* v = choose_variant(q, 90, nullptr, nullptr, nullptr, &why);
  ASSERT_NE(v, nullptr) << why;
  // Not the plain k5 (it refuses the rows); the packed k5 (an auto candidate)
  // copies them through an aligned workspace and may be chosen.
  EXPECT_TRUE(v->family != "k5_ws_tma_wgmma" || v->mech.packed) << v->name << ": " << why;
}

TEST(K5Refusal, RefusedLaunchWritesNothing) {
  REQUIRE_SM90();
  Problem p = problem(256, 256, 64, DType::f16, DType::f16);
  void *A, *B, *D;
  ASSERT_EQ(cudaMalloc(&A, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&B, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&D, 1 << 20), cudaSuccess);
  cudaMemset(D, 0x5a, 1 << 20);
  Options o;
  o.variant = "k5_f16_128x256x64_s4";
  Status s = gemm(p, A, B, static_cast<char*>(D) + 8, o);  // misaligned D
  EXPECT_EQ(s.code, StatusCode::not_supported) << s.message;
  cudaDeviceSynchronize();
  std::vector<unsigned char> h(1 << 20);
  cudaMemcpy(h.data(), D, h.size(), cudaMemcpyDeviceToHost);
  for (unsigned char c : h) ASSERT_EQ(c, 0x5a);
  cudaFree(A); cudaFree(B); cudaFree(D);
}

// The packed form on what its kernel refuses: odd K (rows of 1 or 2 bytes), odd and padded leading
// dimensions, N whose D rows end mid 16-byte unit, pointers off 16 bytes (by `offset` elements). D
// is poisoned and compared whole, and the padding between its rows must still hold the poison.
namespace {
void verify_packed_any_alignment(const char* name, DType in, DType out) {
  struct Case { int64_t m, n, k, lda, ldb, ldd, offset; };
  const Case cases[] = {{127, 129, 41, 0, 0, 0, 0},          {4095, 4097, 255, 0, 0, 0, 1},
                        {512, 100, 4095, 4101, 4099, 107, 0}, {1, 7, 9, 0, 0, 0, 3},
                        {300, 264, 1001, 1003, 1005, 270, 1}, {2048, 1544, 2049, 0, 0, 0, 0}};
  const Variant* v = find_variant(name);
  ASSERT_NE(v, nullptr) << name;
  for (const Case& c : cases) {
    Problem p = problem(c.m, c.n, c.k, in, out);
    if (in == DType::i8) p.acc_type = DType::i32;
    p.lda = c.lda ? c.lda : c.k, p.ldb = c.ldb ? c.ldb : c.k, p.ldd = c.ldd ? c.ldd : c.n;
    p = p.normalized();
    std::unique_ptr<VerifySession> s;
    Status st = VerifySession::create(p, make_random_inputs(p, 99 + uint64_t(c.m), c.offset), &s);
    ASSERT_TRUE(st.ok()) << st.message;
    VerifyOutcome o = s->verify(*v);
    EXPECT_TRUE(o.status.ok()) << v->name << " " << p.shape_string() << ": " << o.status.message;
    EXPECT_TRUE(o.result.pass) << v->name << " " << p.shape_string() << " offset " << c.offset << ": "
                               << o.result.summary();
    const uint8_t* d = s->last_output().data();
    const size_t e = size_t(dtype_bytes(out));
    int64_t touched = 0;
    for (int64_t i = 0; i + 1 < p.m; ++i)
      for (int64_t j = p.n; j < p.ldd; ++j)
        for (size_t b = 0; b < e; ++b) touched += d[size_t(i * p.ldd + j) * e + b] != poison_byte(out);
    EXPECT_EQ(touched, 0) << v->name << " " << p.shape_string() << ": D padding written";
  }
}
}  // namespace

TEST(K5Packed, AnyAlignmentVerifiesWithThePaddingUntouched) {
  REQUIRE_SM90();
  verify_packed_any_alignment("k5_f16_128x256x64_s4_packed", DType::f16, DType::f16);
  verify_packed_any_alignment("k5_bf16_128x256x64_s4_packed", DType::bf16, DType::bf16);
}

// s8 through the packed form: cuBLAS's int8 GEMM takes K and the leading dimensions in
// multiples of 4 only, so these shapes had k0 alone. Exact s32 (and f32) sums, D's padding untouched.
TEST(K5Packed, Int8AnyAlignmentIsExactWithThePaddingUntouched) {
  REQUIRE_SM90();
  verify_packed_any_alignment("k5_i8_128x256x128_s4_packed", DType::i8, DType::i32);
  verify_packed_any_alignment("k5_i8_f32out_128x256x128_s4_packed", DType::i8, DType::f32);
}

// The packed form's full semantics: every layout with rows, leading dimensions and
// pointers off 16 bytes, alpha with beta C (apart with an odd ldc, and in place in a D that goes
// through the workspace), a bias and a GELU, a batch of 3 with each operand broadcast in turn (and
// product strides off 16 bytes), on a small odd shape, a partial-tile shape and a long-K one with
// 2-CTA clusters. Every element of every product against the CPU reference; D's padding untouched.
TEST(K5Packed, FullSemanticsAtAnyAlignment) {
  REQUIRE_SM90();
  struct Shape { const char* mnk; int64_t pad; };
  const Shape shapes[] = {{"45x37x83", 1}, {"130x72x33", 3}, {"300x264x2049", 1}};
  uint64_t seed = 2026122200;
  int runs = 0;
  for (const char* name : {"k5_f16_128x256x64_s4_packed", "k5_bf16_128x256x64_s4_packed"}) {
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (const Shape& sh : shapes)
      for (const char* layout : {"TN", "NN", "NT", "TT"})
        for (const char* c : {"apart", "d"})
          for (const char* bcast : {"", "a", "b", "c"}) {
            if (std::string(bcast) == "c" && std::string(c) == "d") continue;  // a C = D is D's products
            ProblemRequest r;
            r.shape = sh.mnk;
            r.layout = layout;
            long long m = 0, n = 0, k = 0;
            ASSERT_EQ(std::sscanf(sh.mnk, "%lldx%lldx%lld", &m, &n, &k), 3);
            const bool ka = layout[0] == 'T', kb = layout[1] == 'N';  // BLAS letters: A "T" / B "N" = K-major
            r.lda = (ka ? k : m) + sh.pad;
            r.ldb = (kb ? k : n) + sh.pad;
            r.ldd = n + sh.pad;
            r.alpha = 1.5f, r.beta = -0.5f;
            r.c = c;
            if (r.c == "apart") r.ldc = n + 2 * sh.pad + 1;
            r.bias = "col", r.bias_dtype = "f32", r.act = "gelu_tanh";
            r.batch = *bcast ? 3 : 1;
            r.broadcast = bcast;
            Problem p;
            Status st = problem_for(r, *v, &p);
            ASSERT_TRUE(st.ok()) << st.message;
            const bool in_place = r.c_in_place();
            std::unique_ptr<VerifySession> sess;
            st = VerifySession::create(p, make_random_inputs(p, ++seed, 1), &sess, in_place);
            ASSERT_TRUE(st.ok()) << st.message;
            const VerifyOutcome o = sess->verify(*v);
            const std::string what = std::string(name) + " " + sh.mnk + " " + layout + " C " + c + " broadcast " +
                                     (*bcast ? bcast : "-");
            ASSERT_TRUE(o.status.ok()) << what << ": " << o.status.message;
            EXPECT_TRUE(o.result.pass) << what << ": " << o.result.summary();
            ++runs;
          }
  }
  EXPECT_EQ(runs, 2 * 3 * 4 * 7);
}

// The cases the test above leaves out: pointers and leading dimensions aligned to pairs, so a C
// in D's type is read two columns a load -- with an odd N, where a pair at column N - 1 would read
// one element past the row (compute-sanitizer memcheck flags it: run this test under it) -- a
// batch of 3 with every product copied, a column-major D (A and B swapped: the kernel's N is M, odd
// too) and an f32 C.
TEST(K5Packed, OddNWithPairAlignedCEveryProductCopiedAndAColumnMajorD) {
  REQUIRE_SM90();
  const char* shapes[] = {"45x37x83", "131x73x40", "257x1001x300"};
  uint64_t seed = 2026122300;
  int runs = 0;
  for (const char* name : {"k5_f16_128x256x64_s4_packed", "k5_bf16_128x256x64_s4_packed"}) {
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (const char* mnk : shapes)
      for (const char* layout : {"TN", "NT"})
        for (const char* d_layout : {"row", "col"})
          for (const char* c : {"apart", "apart_f32", "d"}) {
            ProblemRequest r;
            r.shape = mnk;
            r.layout = layout;
            r.d_layout = d_layout;
            long long m = 0, n = 0, k = 0;
            ASSERT_EQ(std::sscanf(mnk, "%lldx%lldx%lld", &m, &n, &k), 3);
            const long long d_rows_len = std::string(d_layout) == "row" ? n : m;  // odd: the pad makes it even
            r.ldd = d_rows_len + 1;
            r.alpha = 0.75f, r.beta = 1.25f;
            r.c = std::string(c) == "d" ? "d" : "apart";
            if (std::string(c) == "apart_f32") r.c_dtype = "f32";
            if (r.c == "apart") r.ldc = d_rows_len + 3;
            r.bias = "row", r.act = "relu";
            r.batch = 3;
            Problem p;
            Status st = problem_for(r, *v, &p);
            ASSERT_TRUE(st.ok()) << st.message;
            std::unique_ptr<VerifySession> sess;
            st = VerifySession::create(p, make_random_inputs(p, ++seed, 0), &sess, r.c_in_place());
            ASSERT_TRUE(st.ok()) << st.message;
            const VerifyOutcome o = sess->verify(*v);
            const std::string what = std::string(name) + " " + mnk + " " + layout + " D " + d_layout + " C " + c;
            ASSERT_TRUE(o.status.ok()) << what << ": " << o.status.message;
            EXPECT_TRUE(o.result.pass) << what << ": " << o.result.summary();
            ++runs;
          }
  }
  EXPECT_EQ(runs, 2 * 3 * 2 * 2 * 3);
}
