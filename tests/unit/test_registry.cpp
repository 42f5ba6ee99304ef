#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/introspect/registry.hpp"

using namespace pipegemm;

TEST(Registry, EntryZeroIsCublasWithFp16AndFp32Compute) {
  const auto& vs = variants();
  ASSERT_GE(vs.size(), 2u);
  EXPECT_EQ(vs[0].family, "cublas");
  const Variant* f16 = find_variant("cublas_f16_f16acc");
  const Variant* f32 = find_variant("cublas_f16");
  ASSERT_TRUE(f16 && f32);
  EXPECT_EQ(f16->acc_type, DType::f16);
  EXPECT_EQ(f32->acc_type, DType::f32);
  EXPECT_TRUE(f16->is_peer());
}

TEST(Registry, NamesAreUniqueAndEveryVariantHasALauncher) {
  std::set<std::string> names;
  for (const Variant& v : variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << "duplicate " << v.name;
    EXPECT_NE(v.launch, nullptr) << v.name;
    if (!v.is_peer()) {
      EXPECT_NE(v.occupancy, nullptr) << v.name;
      EXPECT_FALSE(v.symbol.empty()) << v.name;
      EXPECT_GT(v.tile.threads, 0) << v.name;
    }
  }
}

TEST(Registry, SeedKernelMatchesSeed000Config) {
  for (const char* name : {"seed_f16_f16acc_128x128x32_s3", "seed_f16_128x128x32_s3"}) {
    const Variant* v = find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->tile.bm, 128); EXPECT_EQ(v->tile.bn, 128); EXPECT_EQ(v->tile.bk, 32);
    EXPECT_EQ(v->tile.stages, 3);
    EXPECT_EQ(v->tile.threads, 128);
    EXPECT_EQ(v->tile.smem_bytes, 49152);  // seed 000 section 2.2
  }
  EXPECT_EQ(find_variant("seed_f16_f16acc_128x128x32_s3")->acc_type, DType::f16);
  EXPECT_EQ(find_variant("seed_f16_128x128x32_s3")->acc_type, DType::f32);
}

static Problem seed_problem(int64_t m, int64_t n, int64_t k, DType acc = DType::f16) {
  Problem p;
  p.m = m; p.n = n; p.k = k;
  p.a_type = p.b_type = p.d_type = DType::f16;
  p.acc_type = acc;
  return p;
}

TEST(ShapeChecks, SeedKernelRefusesShapesOffTheTileWithTheRuleNamed) {
  const Variant& v = *find_variant("seed_f16_f16acc_128x128x32_s3");
  EXPECT_TRUE(check_variant(v, seed_problem(81920, 256, 256), 90).ok());
  Status s = check_variant(v, seed_problem(100, 256, 256), 90);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_NE(s.message.find("M=100 is not a multiple of 128"), std::string::npos) << s.message;
  s = check_variant(v, seed_problem(128, 130, 256), 90);
  EXPECT_NE(s.message.find("N=130"), std::string::npos) << s.message;
  s = check_variant(v, seed_problem(128, 128, 48), 90);
  EXPECT_NE(s.message.find("K=48 is not a multiple of 32"), std::string::npos) << s.message;
}

TEST(ShapeChecks, NonPositiveSizesAndShortStridesAreInvalid) {
  const Variant& v = *find_variant("seed_f16_f16acc_128x128x32_s3");
  for (auto p : {seed_problem(0, 128, 128), seed_problem(128, -1, 128), seed_problem(128, 128, 0)}) {
    Status s = check_variant(v, p, 90);
    EXPECT_EQ(s.code, StatusCode::invalid_argument) << s.message;
    EXPECT_NE(s.message.find("positive"), std::string::npos);
  }
  Problem p = seed_problem(128, 128, 128);
  p.lda = 64;
  Status s = check_variant(v, p, 90);
  EXPECT_EQ(s.code, StatusCode::invalid_argument);
  EXPECT_NE(s.message.find("lda=64 is smaller than a row"), std::string::npos) << s.message;
  p.lda = 136;  // padded but 16-byte multiple: fine
  EXPECT_TRUE(check_variant(v, p, 90).ok());
  p.lda = 130;  // not a multiple of 8 halves
  s = check_variant(v, p, 90);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_NE(s.message.find("lda=130"), std::string::npos) << s.message;
}

TEST(ShapeChecks, MisalignedPointersOldGpusAndWrongTypesAreRefused) {
  const Variant& v = *find_variant("seed_f16_f16acc_128x128x32_s3");
  Problem p = seed_problem(128, 128, 128);
  alignas(16) static char buf[64];
  Status s = check_variant(v, p, 90, buf + 2, buf, buf);
  EXPECT_EQ(s.code, StatusCode::not_supported);
  EXPECT_NE(s.message.find("pointer A is not 16-byte aligned"), std::string::npos) << s.message;
  EXPECT_TRUE(check_variant(v, p, 90, buf, buf + 16, buf + 32).ok());
  s = check_variant(v, p, 75);
  EXPECT_NE(s.message.find("needs sm_80"), std::string::npos) << s.message;
  s = check_variant(v, seed_problem(128, 128, 128, DType::f32), 90);
  EXPECT_NE(s.message.find("computes"), std::string::npos) << s.message;
}

TEST(ShapeChecks, FallbackChoiceTakesOurKernelsAndAnythingOffTheirTiles) {
  DeviceInfo no_model;  // no cost model: the rungs decide
  no_model.sm = 90;
  Choice c = choose_auto(seed_problem(4096, 4096, 4096, DType::f32).normalized(), no_model, nullptr, nullptr, nullptr, {});
  ASSERT_NE(c.variant, nullptr);
  EXPECT_FALSE(c.variant->is_peer()) << c.variant->name;
  c = choose_auto(seed_problem(7, 9, 13, DType::f32).normalized(), no_model, nullptr, nullptr, nullptr, {});
  ASSERT_NE(c.variant, nullptr);
  EXPECT_TRUE(check_variant(*c.variant, seed_problem(7, 9, 13, DType::f32), 90).ok()) << c.variant->name;
}

TEST(Parsers, ShapeAndDtype) {
  int64_t m, n, k;
  EXPECT_TRUE(parse_shape("81920x256x256", &m, &n, &k));
  EXPECT_EQ(m, 81920); EXPECT_EQ(n, 256); EXPECT_EQ(k, 256);
  EXPECT_TRUE(parse_shape("1,2,3", &m, &n, &k));
  for (const char* bad : {"", "1x2", "1x2x", "ax2x3", "1x2x3x4", "1x2x3 "}) EXPECT_FALSE(parse_shape(bad, &m, &n, &k)) << bad;
  DType t;
  EXPECT_TRUE(parse_dtype("bf16", &t));
  EXPECT_EQ(t, DType::bf16);
  EXPECT_FALSE(parse_dtype("f64", &t));
}

// D may not share a byte with A or B: refused by make (by name, by Variant&, auto) before the GPU
// is looked at, so these host pointers are never launched on. Adjacent buffers are fine.
TEST(ShapeChecks, DOverlappingAOrBIsRefusedBeforeAnyLaunch) {
  Problem p;
  p.m = p.n = p.k = 4;  // f16: A, B and D are 32 bytes each
  alignas(256) static uint8_t buf[4096];
  const Variant& v = *find_variant("cublas_f16");
  GemmCall call;
  for (const auto& [a, b, d, what] : {std::tuple{buf, buf + 256, buf, "D overlaps A"},           // in place
                                      std::tuple{buf, buf + 256, buf + 31, "D overlaps A"},      // last byte of A
                                      std::tuple{buf + 512, buf + 256, buf + 256 - 31, "D overlaps B"},  // D's last byte is B's first
                                      std::tuple{buf, buf, buf + 16, "D overlaps A"}}) {
    for (const Status& s : {GemmCall::make(p, "auto", a, b, d, &call), GemmCall::make(p, "cublas_f16", a, b, d, &call),
                            GemmCall::make(p, v, a, b, d, &call), gemm(p, a, b, d)}) {
      EXPECT_EQ(s.code, StatusCode::invalid_argument) << s.message;
      EXPECT_NE(s.message.find(what), std::string::npos) << s.message;
      EXPECT_NE(s.message.find("must not share bytes"), std::string::npos) << s.message;
    }
  }
  // Apart (A and B may even be the same matrix): not this refusal.
  for (uint8_t* d : {buf + 32, buf + 1024}) {
    const Status s = GemmCall::make(p, v, buf, buf, d, &call);
    EXPECT_EQ(s.message.find("overlaps"), std::string::npos) << s.message;
  }
  // A column-major D spans (N-1)*ldd + M elements: ldd = 64 puts its end 196 elements on.
  p.d_layout = Layout::ColMajor;
  p.ldd = 64;
  const Status s = GemmCall::make(p, v, buf + 300, buf + 600, buf, &call);  // D is [0, 392)
  EXPECT_NE(s.message.find("D overlaps A"), std::string::npos) << s.message;
}

// k5 (the Hopper collectives): a variant's symbol names its table line's tag and the form a long K
// runs, so `pipegemm sass` and ncu find exactly that kernel; auto's policy is the line's column.
TEST(Registry, K5SymbolsNameTheirLineAndForm) {
  int k5 = 0;
  for (const Variant& v : variants()) {
    if (v.family != "k5_ws_tma_wgmma") continue;
    ++k5;
    EXPECT_EQ(v.symbol.rfind("k5_ws_tma_wgmma_kernel*Sm90Name_k5_", 0), 0u) << v.name << ": " << v.symbol;
    const bool long_form = v.symbol.find("E*8FormLong") != std::string::npos;
    const bool short_form = v.symbol.find("E*10FormShortK") != std::string::npos;
    EXPECT_TRUE(long_form != short_form) << v.name << ": " << v.symbol;
    // _nocluster and _packed launch their line's kernel: the symbol names the plain line.
    const std::string line = v.symbol.substr(v.symbol.find("Sm90Name_") + 9);
    EXPECT_EQ(v.name.rfind(line.substr(0, line.find('E')), 0), 0u) << v.name << ": " << v.symbol;
    // A tuned-only or by-name line is never a full candidate; B-resident is tuned-only.
    if (v.auto_tuned_only) EXPECT_FALSE(v.auto_candidate) << v.name;
    if (v.mech.b_resident) EXPECT_TRUE(v.auto_tuned_only) << v.name;
  }
  EXPECT_GT(k5, 0);
}

// Variant::kernels: every kernel a variant launches, by its own symbol, with the problems it runs.
// A k5 line's short_k and layouts columns (variants.def) decide them: the plain TN GEMM's kernels
// cover every K once (one kernel, or K <= 512 and K > 512), the general kernels every layout pair.
TEST(Registry, EveryKernelOfAVariantIsListedWithItsRule) {
  std::map<std::string, std::vector<std::string>> symbols;  // variant -> its kernels' symbols
  for (const Variant& v : variants()) {
    if (v.is_peer()) {
      EXPECT_TRUE(v.kernels.empty()) << v.name;
      continue;
    }
    ASSERT_FALSE(v.kernels.empty()) << v.name;
    std::set<std::string> unique;
    for (const KernelInstance& k : v.kernels) {
      EXPECT_TRUE(unique.insert(k.symbol).second) << v.name << ": " << k.symbol;
      EXPECT_FALSE(k.when.empty()) << v.name;
      symbols[v.name].push_back(k.symbol);
    }
    if (v.family != "k5_ws_tma_wgmma") {
      EXPECT_EQ(v.kernels.size(), 1u) << v.name;
      EXPECT_EQ(v.kernels[0].symbol, v.symbol) << v.name;
      continue;
    }
    const std::string tag = v.symbol.substr(0, v.symbol.find("E*") + 2);  // "...Sm90Name_<line>E*"
    std::vector<const KernelInstance*> plain;
    std::set<std::pair<bool, bool>> layouts;
    for (const KernelInstance& k : v.kernels) {
      EXPECT_EQ(k.symbol.rfind(tag, 0), 0u) << v.name << ": " << k.symbol;  // the line's tag, then the form's
      EXPECT_FALSE(k.form.empty()) << v.name;
      // The cluster rule is the variant's.
      EXPECT_EQ(k.when.find("clusters of 2") != std::string::npos, v.mech.max_cluster == 2) << v.name << ": " << k.when;
      if (k.general) {
        EXPECT_TRUE(layouts.insert({k.a_mn_major, k.b_mn_major}).second) << v.name << ": " << k.form;
        EXPECT_EQ(k.min_k, 0) << v.name;
        EXPECT_EQ(k.max_k, 0) << v.name;
      } else {
        plain.push_back(&k);
      }
    }
    // The general kernels: all four layout pairs where the variant takes MN-major operands, else none.
    EXPECT_EQ(layouts.size(), v.req.a_mn_major ? 4u : 0u) << v.name;
    EXPECT_EQ(v.req.a_mn_major, v.req.b_mn_major) << v.name;
    // The plain TN GEMM's: every K exactly once; the long-K one is the variant's symbol.
    ASSERT_TRUE(plain.size() == 1 || plain.size() == 2) << v.name;
    if (plain.size() == 1) {
      EXPECT_EQ(plain[0]->min_k, 0) << v.name;
      EXPECT_EQ(plain[0]->max_k, 0) << v.name;
      EXPECT_EQ(plain[0]->symbol, v.symbol) << v.name;
    } else {
      const KernelInstance* lo = plain[0]->max_k ? plain[0] : plain[1];
      const KernelInstance* hi = plain[0]->max_k ? plain[1] : plain[0];
      EXPECT_EQ(lo->form, "short_k") << v.name;
      EXPECT_EQ(hi->form, "long") << v.name;
      EXPECT_EQ(lo->min_k, 0) << v.name;
      EXPECT_EQ(hi->min_k, lo->max_k + 1) << v.name;
      EXPECT_EQ(hi->max_k, 0) << v.name;
      EXPECT_EQ(hi->symbol, v.symbol) << v.name;
    }
  }
  // The columns of some lines, as the table has them.
  auto count = [&](const char* name) {
    EXPECT_NE(find_variant(name), nullptr) << name;
    return symbols[name].size();
  };
  EXPECT_EQ(count("k5_f16_128x256x64_s4"), 5u);         // deferred, general
  EXPECT_EQ(count("k5_f16_f32out_128x256x64_s4"), 6u);  // short_s3e4, general
  EXPECT_EQ(count("k5_f16_128x128x64_s6"), 6u);         // short_deferred, general
  EXPECT_EQ(count("k5_i8_128x256x128_s4"), 2u);         // short_s3e4, tn
  EXPECT_EQ(count("k5_f16_64x256x64_s4_pingpong"), 5u); // every_k, general
  EXPECT_EQ(count("k5_f16_256x192x64_s3"), 1u);         // every_k, tn
  EXPECT_EQ(count("k5_f16_128x256x64_s4_streamk"), 6u); // short_deferred, general
  EXPECT_EQ(find_variant("k5_f16_128x256x64_s4")->kernels[0].form, "short_k");  // the deferred form at every K
  // _nocluster and _packed launch their line's kernels.
  EXPECT_EQ(symbols["k5_f16_128x256x64_s4_nocluster"], symbols["k5_f16_128x256x64_s4"]);
  EXPECT_EQ(symbols["k5_i8_128x256x128_s4_packed"], symbols["k5_i8_128x256x128_s4"]);
}
