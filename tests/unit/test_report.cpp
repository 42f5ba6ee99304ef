// The report layer: one small document through every renderer, the type flags' one parser, and
// the planner's tile rules (the kernels' static_asserts) refusing what a kernel could not build.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pipegemm_tools/reports_plan_sass.hpp"

using namespace pipegemm;
using namespace pipegemm::report;

namespace {

// A title, a field block, a table with a text-only, a data-only and a nested column, notes.
Document sample() {
  Document d;
  d.title = "demo: two rows";
  Section& head = d.section("", false);
  head.line("GPU", "H200\nsecond line").line("kernel", "k4");
  head.data("arch.sm", 90).data("arch.name", "H200").data("seed", uint64_t(18446744073709551615ull));
  Section& s = d.section();
  Table& t = s.table("rows", "the rows:",
                     {{"name", "name"}, {"smem", "smem"}, {"", "mark", Show::text}, {"tile.bm", "", Show::data},
                      {"note", "", Show::data}});
  t.add({"a", Cell(49152, kib(49152)), text_cell("<- this"), 128, Cell()});
  t.add({"b,c", Cell(1536, kib(1536)), text_cell(""), 64, "say \"hi\""});
  t.add({text_cell("...")}, Show::text);
  t.notes.push_back("under the table");
  s.note("closing note");
  return d;
}

}  // namespace

TEST(Report, TextAlignsFieldsAndTablesAndKeepsNotesInOrder) {
  const std::string t = render_text(sample());
  EXPECT_EQ(t,
            "demo: two rows\n"
            "GPU     H200\n"
            "        second line\n"
            "kernel  k4\n"
            "\n"
            "the rows:\n"
            "name  smem    mark   \n"
            "----  ------  -------\n"
            "a     48 KB   <- this\n"
            "b,c   1.5 KB         \n"
            "...                  \n"
            "under the table\n"
            "closing note\n");
}

TEST(Report, JsonNestsDottedKeysOmitsAbsentCellsAndSkipsTextRows) {
  auto j = nlohmann::json::parse(render_json(sample()));
  EXPECT_EQ(j["arch"]["sm"], 90);
  EXPECT_EQ(j["arch"]["name"], "H200");
  EXPECT_EQ(j["seed"].get<uint64_t>(), 18446744073709551615ull);  // unsigned stays unsigned
  EXPECT_FALSE(j.contains("GPU"));                                  // text-only lines are not data
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["smem"], 49152);
  EXPECT_EQ(j["rows"][0]["tile"]["bm"], 128);
  EXPECT_FALSE(j["rows"][0].contains("note"));
  EXPECT_FALSE(j["rows"][0].contains("mark"));
  EXPECT_EQ(j["rows"][1]["note"], "say \"hi\"");
}

TEST(Report, JsonRootAndArrayIndicesInPaths) {
  Document d;
  Section& s = d.section();
  s.data("runs.0.shape", "1x2x3").data("runs.1.shape", "4x5x6").data("nothing", nullptr);
  s.table("runs.1.results", "", {{"v", "v"}}).add({1.5});
  auto j = nlohmann::json::parse(render_json(d));
  EXPECT_EQ(j["runs"][0]["shape"], "1x2x3");
  EXPECT_EQ(j["runs"][1]["results"][0]["v"], 1.5);
  EXPECT_TRUE(j["nothing"].is_null());
  d.json_root = "runs";
  EXPECT_TRUE(nlohmann::json::parse(render_json(d)).is_array());
}

TEST(Report, CsvHasTheDataColumnsQuotedWhereNeeded) {
  const Document d = sample();
  EXPECT_EQ(render_csv(d.sections[1].tables[0]),
            "name,smem,tile.bm,note\r\n"
            "a,49152,128,\r\n"
            "\"b,c\",1536,64,\"say \"\"hi\"\"\"\r\n");
}

TEST(Report, MarkdownHasTheTextColumnsAsAPipeTable) {
  Document d = sample();
  const std::string md = render_markdown(d.sections[1].tables[0]);
  EXPECT_EQ(md,
            "| name | smem | mark |\n"
            "|---|---|---|\n"
            "| a | 48 KB | <- this |\n"
            "| b,c | 1.5 KB |  |\n"
            "| ... |  |  |\n");
  const std::string doc = render_markdown(d);
  EXPECT_NE(doc.find("- **GPU**: H200<br>second line"), std::string::npos) << doc;
  EXPECT_NE(doc.find("| a | 48 KB | <- this |"), std::string::npos) << doc;
  Format f;
  EXPECT_TRUE(parse_format("md", &f) && f == Format::markdown);
  EXPECT_FALSE(parse_format("xml", &f));
}

TEST(Report, NumberForms) {
  EXPECT_EQ(fixed(3.14159, 2), "3.14");
  EXPECT_EQ(kib(232448), "227 KB");
  EXPECT_EQ(kib(28160), "27.5 KB");
  EXPECT_EQ(percent(0.125), "12.5%");
}

// ----- the type flags -----------------------------------------------------------------------

TEST(ReportTypes, DefaultsFollowTheInputTypeAndBadNamesAreRefused) {
  Types t;
  ASSERT_TRUE(parse_types({}, &t).ok());
  EXPECT_TRUE(t.in == DType::f16 && t.acc == DType::f32 && t.out == DType::f16 && !t.in_given);
  ASSERT_TRUE(parse_types({"i8", "", ""}, &t).ok());
  EXPECT_TRUE(t.acc == DType::i32 && t.out == DType::i32 && t.in_given && !t.acc_given);
  ASSERT_TRUE(parse_types({"bf16", "", "f32"}, &t).ok());
  EXPECT_TRUE(t.out == DType::f32 && t.out_given);
  Status s = parse_types({"f64", "", ""}, &t);
  EXPECT_EQ(s.code, StatusCode::invalid_argument);
  EXPECT_NE(s.message.find("unknown --dtype 'f64'"), std::string::npos) << s.message;
  EXPECT_NE(parse_types({"", "x", ""}, &t).message.find("unknown --acc"), std::string::npos);
  EXPECT_NE(parse_types({"", "", "x"}, &t).message.find("unknown --out-dtype"), std::string::npos);
  EXPECT_NE(parse_types({"i32", "", ""}, &t).message.find("accumulator type"), std::string::npos);
}

// ----- tile rules ---------------------------------------------------------------------------

namespace {

plan::ArchSpec arch(const char* key) {
  plan::ArchSpec a;
  EXPECT_TRUE(plan::find_arch(key, &a).ok()) << key;
  return a;
}

plan::KernelDesc tile(int bm, int bn, int bk, int stages, DType in = DType::f16, int threads = 128,
                      PipelineKind p = PipelineKind::cp_async_ring, MmaKind mma = MmaKind::mma_sync) {
  plan::KernelDesc k;
  k.bm = bm; k.bn = bn; k.bk = bk; k.stages = stages; k.threads = threads; k.in = in; k.pipeline = p; k.mma = mma;
  return k;
}

std::string refusal(const plan::KernelDesc& k, const char* a = "h200") {
  Status s = plan::check_tile(k, arch(a));
  return s.ok() ? "(accepted)" : s.message;
}

}  // namespace

TEST(TileRules, EveryRegisteredKernelPassesOnEveryArchItRunsOn) {
  for (const Variant& v : variants()) {
    if (v.is_peer()) continue;
    for (const char* a : {"a100", "h200"}) {
      const plan::ArchSpec spec = arch(a);
      if (spec.sm < v.min_sm || (v.max_sm && spec.sm > v.max_sm)) continue;
      Status s = plan::check_tile(plan::kernel_from_variant(v), spec);
      EXPECT_TRUE(s.ok()) << v.name << " on " << a << ": " << s.message;
    }
  }
}

TEST(TileRules, EachRuleRefusesWithItsReason) {
  struct { plan::KernelDesc k; const char* arch; const char* says; } cases[] = {
      {tile(128, 128, 32, 1), "h200", "at least 2 stages"},
      {tile(128, 128, 32, 9), "h200", "2..8 slots"},
      {tile(128, 128, 32, 3, DType::f16, 100), "h200", "multiple of 32"},
      {tile(120, 128, 32, 3), "h200", "does not divide into mma.sync instructions (16x8x16"},
      {tile(128, 128, 48, 3, DType::i8), "h200", "BK % 32"},
      {tile(64, 64, 2, 2, DType::f32, 128, PipelineKind::cp_async_ring, MmaKind::ffma), "h200", "16-byte copy vectors"},
      {tile(64, 64, 512, 2, DType::f16, 32), "h200", "do not cover whole rows"},
      {tile(16, 16, 16, 2, DType::f16, 128), "h200", "every thread copies the same number"},
      {tile(12, 12, 32, 2, DType::f32, 32, PipelineKind::cp_async_ring, MmaKind::ffma), "h200", "8-row swizzle"},
      {tile(128, 128, 32, 7), "rtx3070", "at most 99 KB"},
      {tile(128, 256, 64, 4, DType::f16, 384, PipelineKind::mbarrier_ring, MmaKind::wgmma), "a100", "wgmma needs sm_90a"},
      {tile(320, 256, 64, 2, DType::f16, 384, PipelineKind::mbarrier_ring, MmaKind::wgmma), "h200", "TMA box"},
  };
  for (auto& c : cases) EXPECT_NE(refusal(c.k, c.arch).find(c.says), std::string::npos) << c.says << ": " << refusal(c.k, c.arch);
  EXPECT_EQ(refusal(tile(128, 128, 32, 3)), "(accepted)");
  EXPECT_EQ(refusal(tile(128, 128, 32, 3), "a100"), "(accepted)");
}

TEST(TileRules, TheK5FamilyAddsItsOwnShape) {
  plan::KernelDesc k = tile(128, 256, 64, 4, DType::f16, 384, PipelineKind::mbarrier_ring, MmaKind::wgmma);
  k.family = "k5_ws_tma_wgmma";
  EXPECT_EQ(refusal(k), "(accepted)");
  k.bn = 128;  // m64n128: 16-bit inputs only
  EXPECT_EQ(refusal(k), "(accepted)");
  k.bn = 64;  // m64n64: the 64x64 ping-pong tile only (16-bit inputs)
  EXPECT_NE(refusal(k).find("the 64-wide tile is the ping-pong form's"), std::string::npos) << refusal(k);
  k.pingpong = true, k.bm = 64;
  EXPECT_EQ(refusal(k), "(accepted)");
  k.pingpong = false, k.bm = 128;
  k.bn = 192;
  EXPECT_NE(refusal(k).find("BN must be 256, 128 or 64"), std::string::npos) << refusal(k);
  k.bn = 96;
  EXPECT_NE(refusal(k).find("BN must be 256, 128 or 64"), std::string::npos) << refusal(k);
  plan::KernelDesc s8 = tile(128, 128, 128, 4, DType::i8, 384, PipelineKind::mbarrier_ring, MmaKind::wgmma);
  s8.family = k.family;
  EXPECT_NE(refusal(s8).find("BN must be 256, not 128"), std::string::npos) << refusal(s8);
  k.bn = 256, k.bk = 32;
  EXPECT_NE(refusal(k).find("128-byte swizzle span: BK must be 64"), std::string::npos) << refusal(k);
  k.bk = 64, k.threads = 256;
  EXPECT_NE(refusal(k).find("384 threads"), std::string::npos) << refusal(k);
  // The wide tile: two m64n192 blocks a consumer (BM = 256, BN = 192), 3 stages; no other N, no 192 rows
  // (three consumers of 64 rows cannot compile: docs/hopper.md), and 4 stages of 56 KB do not fit
  // beside the six 8 KB epilogue chunk buffers.
  plan::KernelDesc w = tile(256, 192, 64, 3, DType::f16, 384, PipelineKind::mbarrier_ring, MmaKind::wgmma);
  w.family = k.family;
  w.extra_smem = 6 * 8192;
  EXPECT_EQ(refusal(w), "(accepted)");
  w.bn = 256;
  EXPECT_NE(refusal(w).find("BN must be 192, not 256"), std::string::npos) << refusal(w);
  w.bm = 192, w.bn = 256;
  EXPECT_NE(refusal(w).find("BM must be 128 or 256, not 192"), std::string::npos) << refusal(w);
  w.bm = 256, w.bn = 192, w.stages = 4;
  EXPECT_NE(refusal(w).find("at most 227 KB"), std::string::npos) << refusal(w);
  k.family.clear();  // a generic TMA + wgmma ring is not held to k5's shape
  EXPECT_EQ(refusal(k), "(accepted)");
}

TEST(TileRules, ADescribedTileTakesItsFamilysKindAndThreads) {
  plan::PlanRequest r;
  r.tile = "128x256x64";
  r.family = "k5_ws_tma_wgmma";
  r.stages = 4;
  plan::KernelDesc k;
  Status s = plan::describe_tile(r, arch("h200"), &k);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(k.threads, 384);
  EXPECT_EQ(k.pipeline, PipelineKind::mbarrier_ring);
  EXPECT_EQ(k.mma, MmaKind::wgmma);
  r.family = "nope";
  EXPECT_NE(plan::describe_tile(r, arch("h200"), &k).message.find("unknown --family"), std::string::npos);
}
