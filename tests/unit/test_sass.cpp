// The SASS checker: the parser on stored listings (tests/data/sass, from cuobjdump 13.5), the
// overlap rule on real kernels and on small hand-written loops that isolate one case each, and
// `pipegemm sass` as a user meets it (needs cuobjdump; skipped with the reason without it).
#include <gtest/gtest.h>

#include <algorithm>
#include <sys/wait.h>

#include <array>
#include <set>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/sass.hpp"

using namespace pipegemm;
using namespace pipegemm::sass;

namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(PIPEGEMM_TEST_DATA) + "/sass/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Listing parse_file(const std::string& name) {
  Listing l;
  std::string err;
  EXPECT_TRUE(parse_sass(read(name), &l, &err)) << err;
  return l;
}

const Function* find_fn(const Listing& l, const std::string& part) {
  for (const Function& f : l.functions)
    if (f.name.find(part) != std::string::npos) return &f;
  return nullptr;
}

const Instr* at(const Function& f, uint32_t addr) {
  int i = f.index_of(addr);
  return i < 0 ? nullptr : &f.code[i];
}

// A hand-written loop: one instruction per line, 0x10 apart; "Lk" in a branch is line k's address.
Function make_fn(const std::vector<std::string>& lines, const std::string& arch = "sm_80") {
  std::string text = "code for " + arch + "\nFunction : synthetic\n";
  for (size_t k = 0; k < lines.size(); ++k) {
    std::string s = lines[k];
    size_t p = s.find(" L");
    if ((s.rfind("BRA", 0) == 0 || s.find(" BRA ") != std::string::npos) && p != std::string::npos) {
      char b[16];
      std::snprintf(b, sizeof b, " 0x%x", std::stoi(s.substr(p + 2)) * 16);
      s = s.substr(0, p) + b;
    }
    char a[16];
    std::snprintf(a, sizeof a, "/*%04zx*/ ", k * 16);
    text += a + s + " ;\n";
  }
  Listing l;
  std::string err;
  EXPECT_TRUE(parse_sass(text, &l, &err)) << err;
  Function f = l.functions.at(0);
  f.res.stack = f.res.local = 0;
  return f;
}

Expect expect(std::vector<std::string> loads, std::vector<std::string> mmas, bool overlap, int per_k_tile,
              bool warp_specialized = false) {
  Expect e;
  e.load_ops = std::move(loads);
  e.mma_ops = std::move(mmas);
  e.expect_overlap = overlap;
  e.mma_per_k_tile = per_k_tile;
  e.warp_specialized = warp_specialized;
  return e;
}

Expect hmma(int per_k_tile = 0, bool overlap = true, const char* loads = "LDGSTS") {
  return expect({loads}, {"HMMA"}, overlap, per_k_tile);
}

const Check& check(const Verdict& v, const std::string& name) {
  for (const Check& c : v.checks)
    if (c.name == name) return c;
  static Check none{"(missing)", false, ""};
  ADD_FAILURE() << "no check " << name;
  return none;
}

}  // namespace

// ----- parser ---------------------------------------------------------------------------------

TEST(SassParser, ReadsRecordsOfTheSeedListing) {
  Listing l = parse_file("seed_f16acc.sm_80.sass");
  ASSERT_EQ(l.functions.size(), 1u);
  const Function& f = l.functions[0];
  EXPECT_EQ(f.arch, "sm_80");
  EXPECT_NE(f.name.find("k4_seed_kernel"), std::string::npos);
  EXPECT_GT(f.code.size(), 600u);
  const Instr* cp = at(f, 0x1700);  // @!P1 LDGSTS.E.BYPASS.LTC128B.128 [R151], [R142.64]
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->pred, "@!P1");
  EXPECT_EQ(cp->opcode, "LDGSTS");
  EXPECT_EQ(cp->mods, (std::vector<std::string>{"E", "BYPASS", "LTC128B", "128"}));
  ASSERT_EQ(cp->operands.size(), 2u);
  EXPECT_EQ(cp->operands[0], "[R151]");
  const Instr* br = at(f, 0x1bd0);  // @!P2 BRA 0x1410: the K loop's back edge
  ASSERT_NE(br, nullptr);
  EXPECT_TRUE(br->branch());
  EXPECT_EQ(br->target, 0x1410);
  EXPECT_TRUE(br->backward_branch());
  const Instr* bar = at(f, 0x18a0);
  ASSERT_NE(bar, nullptr);
  EXPECT_EQ(bar->opcode, "BAR");
  EXPECT_TRUE(bar->has_mod("SYNC"));
}

TEST(SassParser, ResolvesLabelStyleBranchTargets) {
  const char* text =
      "code for sm_90a\n\t\tFunction : k\n"
      "        /*0000*/                   MOV R1, c[0x0][0x28] ;   /* 0x00000a0000017a02 */\n"
      "                                                             /* 0x000fe40000000f00 */\n"
      ".L_x_3:\n"
      "        /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;\n"
      "        /*0020*/              @P0 BRA `(.L_x_3) ;\n"
      "        /*0030*/                   EXIT ;\n";
  Listing l;
  std::string err;
  ASSERT_TRUE(parse_sass(text, &l, &err)) << err;
  const Function& f = l.functions.at(0);
  EXPECT_EQ(f.arch, "sm_90a");
  ASSERT_EQ(f.code.size(), 4u);  // the encoding-only line is not an instruction
  EXPECT_EQ(f.code[1].labels, std::vector<std::string>{".L_x_3"});
  EXPECT_EQ(f.code[2].target, 0x10);
  EXPECT_EQ(f.code[2].pred, "@P0");
}

TEST(SassParser, RejectsTextWithoutFunctions) {
  Listing l;
  std::string err;
  EXPECT_FALSE(parse_sass("", &l, &err));
  EXPECT_FALSE(parse_sass("cuobjdump info    : File 'x' does not contain device code\n", &l, &err));
  EXPECT_NE(err.find("no SASS function"), std::string::npos) << err;
}

TEST(SassParser, ResourceUsageAttachesToTheNamedFunctions) {
  Listing l = parse_file("fixtures.sm_80.sass");
  parse_res_usage(read("fixtures.sm_80.res"), &l);
  const Function* f = find_fn(l, "double_buffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->res.regs, 72);
  EXPECT_EQ(f->res.stack, 0);
  EXPECT_EQ(f->res.shared, 16384);
  EXPECT_EQ(find_fn(l, "single_buffer")->res.shared, 8192);
}

TEST(SassParser, SymbolGlobTellsInstantiationsApart) {
  const std::string f16 = "_ZN8pipegemm7kernels7k4_seed14k4_seed_kernelINS1_10SeedConfigIN4cute28SM80_16x8x16_F16F16F16F16_TNEEEEEv";
  EXPECT_TRUE(symbol_matches(f16, "k4_seed_kernel"));
  EXPECT_TRUE(symbol_matches(f16, "k4_seed_kernel*F16F16F16F16_TN"));
  EXPECT_FALSE(symbol_matches(f16, "k4_seed_kernel*F32F16F16F32_TN"));
  EXPECT_FALSE(symbol_matches(f16, "F16F16F16F16*k4_seed_kernel"));  // order matters
  EXPECT_FALSE(symbol_matches(f16, ""));
  EXPECT_EQ(sm_of("sm_90a"), 90);
  EXPECT_EQ(sm_of("sm_80"), 80);
}

// ----- the rule on real kernels ---------------------------------------------------------------

TEST(SassCheck, SeedKernelOverlapIsProvenOnBothArchs) {
  const Variant* seed = find_variant("seed_f16_f16acc_128x128x32_s3");
  ASSERT_NE(seed, nullptr);
  EXPECT_EQ(expect_for(*seed).mma_per_k_tile, 64);  // 128*128*32 / (4 warps * 16*8*16)
  for (const char* file : {"seed_f16acc.sm_80.sass", "seed_f16acc.sm_90a.sass"}) {
    Listing l = parse_file(file);
    const Function& f = l.functions.at(0);
    EXPECT_TRUE(symbol_matches(f.name, seed->symbol)) << file;
    Verdict v = check_function(f, expect_for(*seed));
    EXPECT_TRUE(v.pass) << format_verdict(v);
    EXPECT_TRUE(v.overlap) << file;
    EXPECT_EQ(v.mma_in_loop, 64) << file;
    EXPECT_EQ(v.unroll, 1) << file;
    EXPECT_GT(v.mma_overlapped, 0) << file;
    EXPECT_GE(v.mma_in_flight, v.mma_overlapped) << file;
    // The witness: a load, then an MMA, inside the loop, with no BAR.SYNC between them.
    ASSERT_GE(v.load.addr, 0);
    ASSERT_GE(v.mma.addr, 0);
    EXPECT_EQ(v.load.text.find("LDGSTS") != std::string::npos, true) << v.load.text;
    EXPECT_GE(v.load.addr, int64_t(v.loop_begin));
    EXPECT_LE(v.mma.addr, int64_t(v.loop_end));
    if (v.mma.addr > v.load.addr) {
      for (const Instr& i : f.code) {
        EXPECT_FALSE(i.addr > v.load.addr && i.addr < v.mma.addr && i.is("BAR")) << file << " " << i.text;
      }
    }
    EXPECT_GE(v.gate.addr, 0) << file;  // DEPBAR.LE SB0, 0x1 / BAR.SYNC
  }
  Verdict v80 = check_function(parse_file("seed_f16acc.sm_80.sass").functions.at(0), expect_for(*seed));
  EXPECT_EQ(v80.loop_begin, 0x1410u);
  EXPECT_EQ(v80.loop_end, 0x1bd0u);
  EXPECT_EQ(v80.gate.text, "DEPBAR.LE SB0, 0x1");  // the cp_async_wait<STAGES-2>, then BAR.SYNC
}

TEST(SassCheck, SingleBufferFixtureIsNotOverlapped) {
  Listing l = parse_file("fixtures.sm_80.sass");
  const Function* f = find_fn(l, "single_buffer");
  ASSERT_NE(f, nullptr);
  const int per_k_tile = mma_per_k_tile(64, 64, 32, 4, 16, 8, 16);
  Verdict v = check_function(*f, hmma(per_k_tile, true));
  EXPECT_FALSE(v.overlap);
  EXPECT_FALSE(v.pass) << "the negative case must fail\n" << format_verdict(v);
  EXPECT_EQ(v.status(), "NOT overlapped");
  EXPECT_EQ(v.mma_overlapped, 0);
  EXPECT_EQ(v.mma_in_loop, 16);
  EXPECT_EQ(v.blocker.text, "DEPBAR.LE SB0, 0x0");  // the load is waited for before any MMA
  // Registered as a single-buffer rung (expect_overlap = false) the same code passes.
  Verdict k1 = check_function(*f, hmma(per_k_tile, false));
  EXPECT_TRUE(k1.pass) << format_verdict(k1);
  EXPECT_EQ(k1.status(), "not overlapped (expected)");
}

TEST(SassCheck, DoubleBufferFixtureOverlapsTheFirstKBlock) {
  Listing l = parse_file("fixtures.sm_80.sass");
  const Function* f = find_fn(l, "double_buffer");
  ASSERT_NE(f, nullptr);
  Verdict v = check_function(*f, hmma(mma_per_k_tile(64, 64, 32, 4, 16, 8, 16)));
  EXPECT_TRUE(v.pass) << format_verdict(v);
  EXPECT_EQ(v.mma_in_loop, 16);
  // __pipeline_wait_prior(0) is hoisted above the second k_block's HMMAs: those wait for the load.
  EXPECT_EQ(v.mma_overlapped, 8) << format_verdict(v);
  EXPECT_EQ(v.blocker.text, "DEPBAR.LE SB0, 0x0");
}

// ----- the rule on hand-written loops: one case each ------------------------------------------

TEST(SassRule, CpAsyncGroupArithmeticDecidesWhetherADepbarWaitsForTheLoad) {
  // wait<1> after the commit leaves this k_tile's group in flight: overlap.
  Function ok = make_fn({"LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "HMMA.16816.F32 R8, R12, R16, R8",
                         "DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L0", "EXIT"});
  Verdict v = check_function(ok, hmma(1));
  EXPECT_TRUE(v.pass) << format_verdict(v);
  // wait<0> before the MMA drains it: no overlap, and the DEPBAR is named as the reason.
  Function bad = make_fn({"LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "DEPBAR.LE SB0, 0x0",
                          "HMMA.16816.F32 R8, R12, R16, R8", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L0", "EXIT"});
  Verdict w = check_function(bad, hmma(1));
  EXPECT_FALSE(w.overlap);
  EXPECT_FALSE(w.pass);
  EXPECT_EQ(w.blocker.text, "DEPBAR.LE SB0, 0x0");
}

TEST(SassRule, BarSyncBetweenLoadAndMmaBreaksOverlap) {
  Function f = make_fn({"LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "BAR.SYNC.DEFER_BLOCKING 0x0",
                        "HMMA.16816.F32 R8, R12, R16, R8", "DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0",
                        "@P0 BRA L0", "EXIT"});
  Verdict v = check_function(f, hmma());
  EXPECT_FALSE(v.overlap);
  EXPECT_EQ(v.blocker.text, "BAR.SYNC.DEFER_BLOCKING 0x0");
  EXPECT_EQ(v.mma_in_flight, 1);  // still in flight (a barrier does not wait for cp.async)
}

TEST(SassRule, RotatedLoopOverlapsAcrossTheBackEdge) {
  // The compiler put the next k_tile's load at the bottom: it overlaps the next iteration's MMAs.
  Function f = make_fn({"HMMA.16816.F32 R8, R12, R16, R8", "HMMA.16816.F32 R20, R12, R18, R20",
                        "DEPBAR.LE SB0, 0x0", "BAR.SYNC.DEFER_BLOCKING 0x0", "LDGSTS.E.128 [R2], [R4.64]",
                        "LDGDEPBAR", "@P0 BRA L0", "EXIT"});
  Verdict v = check_function(f, hmma(2));
  EXPECT_TRUE(v.pass) << format_verdict(v);
  EXPECT_EQ(v.mma_overlapped, 2);
  EXPECT_EQ(v.mma.addr, 0x0);
  EXPECT_EQ(v.load.addr, 0x40);
}

TEST(SassRule, LoadsAfterTheComputeThatAreWaitedAtTheTopDoNotOverlap) {
  // wait(k) -> BAR -> MMA(k) -> load(k+1): the load is drained at the top of the next iteration.
  Function f = make_fn({"DEPBAR.LE SB0, 0x0", "BAR.SYNC.DEFER_BLOCKING 0x0", "HMMA.16816.F32 R8, R12, R16, R8",
                        "LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "@P0 BRA L0", "EXIT"});
  EXPECT_FALSE(check_function(f, hmma()).overlap);
}

TEST(SassRule, LdgRegisterPrefetchOverlapsUntilItsRegistersAreRead) {
  // k2 shape: LDG k_tile+1 to registers, compute from smem, barrier, STS the registers, barrier.
  Function ok = make_fn({"LDG.E.128 R40, [R2.64]", "LDS.128 R12, [R3]", "HMMA.16816.F32 R8, R12, R16, R8",
                         "BAR.SYNC.DEFER_BLOCKING 0x0", "STS.128 [R3], R40", "BAR.SYNC.DEFER_BLOCKING 0x0",
                         "@P0 BRA L0", "EXIT"});
  Verdict v = check_function(ok, hmma(1, true, "LDG"));
  EXPECT_TRUE(v.pass) << format_verdict(v);
  // The loaded registers are stored before the MMA: the LDG is consumed, nothing overlaps.
  Function bad = make_fn({"LDG.E.128 R40, [R2.64]", "STS.128 [R3], R42", "LDS.128 R12, [R3]",
                          "HMMA.16816.F32 R8, R12, R16, R8", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L0", "EXIT"});
  Verdict w = check_function(bad, hmma(1, true, "LDG"));
  EXPECT_FALSE(w.overlap) << format_verdict(w);
  EXPECT_EQ(w.blocker.text, "STS.128 [R3], R42");
}

TEST(SassRule, LoadWidthMustBeTheLoadPaths) {
  // The teaching k2 (issue 14): A's 2-byte column loads beside B's 16-byte vectors. With the
  // 2-byte loads merged away by a compiler, the lesson would be gone: the check fails.
  Function cols = make_fn({"LDG.E.U16.CONSTANT R40, [R2.64]", "LDG.E.128.CONSTANT R44, [R4.64]",
                           "LDS.128 R12, [R3]", "HMMA.16816.F32 R8, R12, R16, R8", "BAR.SYNC.DEFER_BLOCKING 0x0",
                           "STS.128 [R3], R40", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L0", "EXIT"});
  Expect e = hmma(1, true, "LDG");
  e.load_bytes = 2;
  Verdict v = check_function(cols, e);
  EXPECT_TRUE(check(v, "load width").ok) << format_verdict(v);
  EXPECT_NE(check(v, "load width").detail.find("1 of 2 loads"), std::string::npos) << format_verdict(v);
  EXPECT_TRUE(v.pass) << format_verdict(v);
  e.load_bytes = 8;  // no LDG.E.64 in the loop
  v = check_function(cols, e);
  EXPECT_FALSE(check(v, "load width").ok);
  EXPECT_FALSE(v.pass);
  e.load_bytes = 16;
  EXPECT_TRUE(check(check_function(cols, e), "load width").ok);
  // Unset (cp.async and TMA rungs): no such check.
  for (const Check& c : check_function(cols, hmma(1, true, "LDG")).checks) EXPECT_NE(c.name, "load width");
}

TEST(SassRule, LoopWithoutAnyWaitIsNotAPipeline) {
  // k0 shape (no smem): loads feed MMAs directly, nothing gates the next iteration.
  Function f = make_fn({"LDG.E R40, [R2.64]", "HMMA.16816.F32 R8, R12, R16, R8", "@P0 BRA L0", "EXIT"});
  Verdict v = check_function(f, hmma(0, true, "LDG"));
  EXPECT_FALSE(check(v, "gate").ok);
  EXPECT_FALSE(v.overlap);
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(check_function(f, hmma(0, false, "LDG")).pass);  // registered as expect_overlap=false
}

TEST(SassRule, RegisterDoubleBufferIsGatedByTheReadersOfItsLoads) {
  // skinny's shape: two register buffers taking turns, each k_tile's loads read by the MMAs of the
  // next half of the loop; no barrier instruction -- the readers' scoreboard waits gate.
  Function f = make_fn({"LDG.E.128 R40, [R2.64]", "HMMA.16816.F32 R8, R12, R44, R8", "LDG.E.128 R44, [R4.64]",
                        "HMMA.16816.F32 R8, R12, R40, R8", "@P0 BRA L0", "EXIT"});
  Expect e = hmma(0, true, "LDG");
  EXPECT_FALSE(check_function(f, e).pass);  // a barrier-gated rung's expectation: no gate found
  e.gate_by_registers = true;
  Verdict v = check_function(f, e);
  EXPECT_TRUE(check(v, "gate").ok);
  EXPECT_TRUE(v.overlap);
  EXPECT_TRUE(v.pass);
  // Each MMA reading the k_tile just loaded (one buffer, or a copy of the fresh registers): no overlap.
  Function g = make_fn({"LDG.E.128 R40, [R2.64]", "HMMA.16816.F32 R8, R12, R40, R8", "@P0 BRA L0", "EXIT"});
  v = check_function(g, e);
  EXPECT_FALSE(v.overlap);
  EXPECT_FALSE(v.pass);
}

TEST(SassRule, MmaCountMustBeAWholeNumberOfKTiles) {
  Function f = make_fn({"LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "HMMA.16816.F32 R8, R12, R16, R8",
                        "HMMA.16816.F32 R20, R12, R18, R20", "HMMA.16816.F32 R24, R12, R18, R24",
                        "HMMA.16816.F32 R28, R12, R18, R28", "DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0",
                        "@P0 BRA L0", "EXIT"});
  Verdict two = check_function(f, hmma(2));  // unrolled twice by the compiler
  EXPECT_TRUE(two.pass) << format_verdict(two);
  EXPECT_EQ(two.unroll, 2);
  Verdict three = check_function(f, hmma(3));  // 4 is no multiple of 3: an MMA lost or duplicated
  EXPECT_FALSE(check(three, "mma count").ok);
  EXPECT_FALSE(three.pass);
}

TEST(SassRule, SpillsFailEvenAnOverlappedKernel) {
  std::vector<std::string> body = {"LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "HMMA.16816.F32 R8, R12, R16, R8",
                                   "DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L0",
                                   "STL [R1], R8", "EXIT"};
  Verdict v = check_function(make_fn(body), hmma());
  EXPECT_TRUE(v.overlap);
  EXPECT_FALSE(check(v, "spills").ok);
  EXPECT_FALSE(v.pass);
  body[6] = "NOP";
  Function f = make_fn(body);
  f.res.stack = 16;  // a stack frame from -res-usage
  EXPECT_FALSE(check_function(f, hmma()).pass);
  f.res.stack = 0;
  EXPECT_TRUE(check_function(f, hmma()).pass);
}

TEST(SassRule, NoLoopWithMmasMeansNoProof) {
  Function f = make_fn({"LDGSTS.E.128 [R2], [R4.64]", "HMMA.16816.F32 R8, R12, R16, R8", "EXIT"});
  Verdict v = check_function(f, hmma());
  EXPECT_FALSE(v.loop_found);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.status(), "NO MAIN LOOP");
}

TEST(SassRule, RetryPathAfterExitIsNotTheMainLoop) {
  // A wait's retry block placed after EXIT jumps back into the loop: not a loop of its own.
  Function f = make_fn({"MOV R1, R2", "LDGSTS.E.128 [R2], [R4.64]", "LDGDEPBAR", "HMMA.16816.F32 R8, R12, R16, R8",
                        "DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0", "@P0 BRA L1", "EXIT",
                        "HMMA.16816.F32 R8, R12, R16, R8", "BRA L3"});
  Verdict v = check_function(f, hmma(1));
  EXPECT_TRUE(v.pass) << format_verdict(v);
  EXPECT_EQ(v.loop_begin, 0x10u);
  EXPECT_EQ(v.loop_end, 0x60u);
}

TEST(SassRule, SerializedWgmmaIsCaught) {
  std::vector<std::string> loop = {"SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R3", "WARPGROUP.ARRIVE",
                                   "HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0", "WARPGROUP.DEPBAR.LE gsb0, 0x0",
                                   "HGMMA.64x128x16.F32 R24, gdesc[UR12], R24, gsb0", "WARPGROUP.DEPBAR.LE gsb0, 0x0",
                                   "UTMALDG.2D [UR16], [UR20]", "@P1 BRA L0", "EXIT"};
  Expect e = expect({"UTMALDG"}, {"HGMMA"}, true, 0);
  Verdict v = check_function(make_fn(loop, "sm_90a"), e);
  EXPECT_FALSE(check(v, "wgmma").ok) << format_verdict(v);
  EXPECT_FALSE(v.pass);
  loop[3] = "NOP";  // chained: one wait for both
  Verdict w = check_function(make_fn(loop, "sm_90a"), e);
  EXPECT_TRUE(check(w, "wgmma").ok) << format_verdict(w);
  EXPECT_TRUE(w.pass) << format_verdict(w);
}

TEST(SassRule, WarpSpecializedProducerAndConsumerLoops) {
  // Producer warp: wait empty[s], TMA into s. Consumer warps: wait full[s], wgmma, release s.
  std::vector<std::string> code = {
      "@P0 BRA L7",                                         // consumers jump to their loop
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR4+0x20], R3",  // 1: producer loop
      "UTMALDG.2D [UR8], [UR12]", "UTMALDG.2D [UR16], [UR12]", "SYNCS.ARRIVE.TRANS64 RZ, [UR4], R5",
      "@P2 BRA L1", "EXIT",
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR4], R3",  // 7: consumer loop
      "WARPGROUP.ARRIVE", "HGMMA.64x128x16.F32 R24, gdesc[UR8], R24", "HGMMA.64x128x16.F32 R24, gdesc[UR12], R24, gsb0",
      "WARPGROUP.DEPBAR.LE gsb0, 0x0", "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4+0x20], RZ", "@P2 BRA L7", "EXIT"};
  const Expect s = expect({"UTMALDG"}, {"HGMMA"}, true, 2, true);
  Verdict v = check_function(make_fn(code, "sm_90a"), s);
  EXPECT_TRUE(v.pass) << format_verdict(v);
  EXPECT_EQ(v.load.text, "UTMALDG.2D [UR8], [UR12]");
  // A CTA barrier inside the consumer loop serializes producer and consumers again.
  code[11] = "BAR.SYNC.DEFER_BLOCKING 0x0";
  Verdict w = check_function(make_fn(code, "sm_90a"), s);
  EXPECT_FALSE(w.pass) << format_verdict(w);
  // A named barrier of one consumer warpgroup (128 of the CTA's 384 threads) does not: the
  // producer never joins it.
  Expect s384 = s;
  s384.cta_threads = 384;
  code[11] = "BAR.SYNC.DEFER_BLOCKING R2, 0x80";
  Verdict x = check_function(make_fn(code, "sm_90a"), s384);
  EXPECT_TRUE(x.pass) << format_verdict(x);
  // ... unless its count is every thread of the CTA, or unknown (a register): then it holds.
  code[11] = "BAR.SYNC.DEFER_BLOCKING R2, 0x180";
  EXPECT_FALSE(check_function(make_fn(code, "sm_90a"), s384).pass);
  code[11] = "BAR.SYNC.DEFER_BLOCKING R2, R3";
  EXPECT_FALSE(check_function(make_fn(code, "sm_90a"), s384).pass);
  code[11] = "BAR.SYNC.DEFER_BLOCKING R2, 0x80";
  EXPECT_FALSE(check_function(make_fn(code, "sm_90a"), s).pass) << "the CTA's threads unknown: every barrier holds";
}

TEST(SassRule, EveryRegisteredKernelHasExpectationsFromItsMechanism) {
  const std::vector<std::string> loads = {"LDGSTS", "LDG", "UTMALDG"}, mmas = {"HMMA", "IMMA", "HGMMA", "IGMMA", "FFMA"};
  for (const Variant& v : variants()) {
    if (v.is_peer()) continue;
    const Expect e = expect_for(v);
    ASSERT_EQ(e.load_ops.size(), 1u) << v.name;  // one load instruction, named by the load path
    ASSERT_EQ(e.mma_ops.size(), 1u) << v.name;
    EXPECT_NE(std::find(loads.begin(), loads.end(), e.load_ops[0]), loads.end()) << v.name;
    EXPECT_NE(std::find(mmas.begin(), mmas.end(), e.mma_ops[0]), mmas.end()) << v.name;
    EXPECT_FALSE(v.symbol.empty()) << v.name;
    // shortk's whole K is one k_tile: no k_tile loop, so no MMA count per k_tile and no load in a
    // loop to check the width of.
    EXPECT_EQ(e.mma_per_k_tile > 0, !one_k_tile(v)) << v.name;
    EXPECT_EQ(e.warp_specialized, v.mech.warp_specialized) << v.name;
    EXPECT_EQ(e.load_bytes, v.mech.load == LoadPath::ldg && !one_k_tile(v) ? v.mech.load_bytes : 0) << v.name;
  }
  // The uncoalesced teaching variant is held to its 2-byte loads, k2 to its 16-byte vectors.
  EXPECT_EQ(expect_for(*find_variant("k2_f16_128x128x32_s2_teach_uncoalesced")).load_bytes, 2);
  EXPECT_EQ(expect_for(*find_variant("k2_f16_128x128x32_s2")).load_bytes, 16);
}

// ----- the command ----------------------------------------------------------------------------

namespace {

using CliOut = pipegemm::test::CliRun;
using pipegemm::test::has;
CliOut cli(const std::string& args, const std::string& env = "") { return pipegemm::test::run_cli("sass " + args, env); }

std::string fixture(const char* arch) { return std::string(PIPEGEMM_SASS_FIXTURES) + "/sass_fixtures." + arch + ".cubin"; }

#define NEED_CUOBJDUMP()                                                           \
  do {                                                                             \
    std::string p_, e_;                                                            \
    if (!locate_cuobjdump(&p_, &e_)) GTEST_SKIP() << "no cuobjdump here: " << e_;  \
  } while (0)

}  // namespace

// Every registered kernel is proven by .ci/run (`pipegemm sass --arch all`, ~35 MB of SASS);
// here the seed kernels, both archs, through the same path.
TEST(SassCli, ProvesTheSeedKernelsOnBothArchsAsJson) {
  NEED_CUOBJDUMP();
  CliOut r = cli("--kernel seed_f16_f16acc_128x128x32_s3 --kernel seed_f16_128x128x32_s3 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["failed"], 0);
  std::set<std::string> seen;
  for (const auto& v : j["verdicts"]) {
    EXPECT_TRUE(v["pass"].get<bool>()) << v.dump(2);
    if (v["variant"].is_string()) seen.insert(v["variant"].get<std::string>() + "@" + v["arch"].get<std::string>());
  }
  EXPECT_EQ(seen, (std::set<std::string>{"seed_f16_f16acc_128x128x32_s3@sm_80", "seed_f16_f16acc_128x128x32_s3@sm_90a", "seed_f16_128x128x32_s3@sm_80",
                                          "seed_f16_128x128x32_s3@sm_90a"}))
      << r.out;
}

TEST(SassCli, PrintsAReadableProofForTheSeedKernel) {
  NEED_CUOBJDUMP();
  CliOut r = cli("--kernel seed_f16_f16acc_128x128x32_s3 --arch 80");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "seed_f16_f16acc_128x128x32_s3 [sm_80]: overlap proven")) << r.out;
  EXPECT_TRUE(has(r, "proof (load issues")) << r.out;
  EXPECT_TRUE(has(r, "    loop  /*")) << r.out;  // the back edge that closes the K loop
  EXPECT_TRUE(has(r, "LDGSTS")) << r.out;
  EXPECT_TRUE(has(r, "HMMA")) << r.out;
  EXPECT_FALSE(has(r, "sm_90a")) << r.out;
}

// A k5 line's every kernel (Variant::kernels), each found by its own symbol: the 128x256 fp32-out
// line has the plain TN GEMM's long- and short-K kernels and four general ones.
TEST(SassCli, ChecksEveryKernelOfAK5LineByItsOwnSymbol) {
  NEED_CUOBJDUMP();
  const Variant* v = find_variant("k5_f16_f32out_128x256x64_s4");
  if (!v) GTEST_SKIP() << "no sm_90a kernels in this build";
  CliOut r = cli("--kernel k5_f16_f32out_128x256x64_s4 --arch sm_90a --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  std::set<std::string> forms, functions;
  for (const auto& x : j["verdicts"]) {
    EXPECT_EQ(x["variant"], "k5_f16_f32out_128x256x64_s4");
    EXPECT_TRUE(x["pass"].get<bool>()) << x.dump(2);
    forms.insert(x["form"].get<std::string>());
    functions.insert(x["function"].get<std::string>());
  }
  EXPECT_EQ(forms, (std::set<std::string>{"long", "short_k", "general_kk", "general_kmn", "general_mnk", "general_mnmn"}))
      << r.out;
  EXPECT_EQ(functions.size(), 6u) << r.out;
}

TEST(SassCli, SingleBufferCubinFailsWithExitCode1) {
  NEED_CUOBJDUMP();
  for (const char* arch : {"sm_80", "sm_90a"}) {
    CliOut r = cli(fixture(arch) + " --function single_buffer");
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_TRUE(has(r, "NOT overlapped")) << r.out;
    CliOut d = cli(fixture(arch) + " --function double_buffer");
    EXPECT_EQ(d.code, 0) << d.out;
    EXPECT_TRUE(has(d, "overlap proven")) << d.out;
  }
}

TEST(SassCli, BadInputsAreClearErrorsWithExitCode2) {
  NEED_CUOBJDUMP();
  CliOut r = cli("--kernel no_such_kernel");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "unknown kernel 'no_such_kernel'")) << r.out;
  r = cli("/no/such/file");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "no such file")) << r.out;
  r = cli("/bin/sh");  // a host-only executable
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "not a CUDA binary")) << r.out;
  r = cli(std::string(PIPEGEMM_TEST_DATA) + "/sass/fixtures.sm_80.res");  // text, not a binary
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "error")) << r.out;
  r = cli(fixture("sm_80") + " --arch 90a");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "has no sm_90a code")) << r.out;
  r = cli("--kernel cublas_f16_f16acc");
  EXPECT_EQ(r.code, 2);
}

TEST(SassCli, MissingCuobjdumpIsAClearError) {
  CliOut r = cli("", "PIPEGEMM_CUOBJDUMP=/nonexistent/cuobjdump");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "PIPEGEMM_CUOBJDUMP=/nonexistent/cuobjdump is not an executable file")) << r.out;
}
