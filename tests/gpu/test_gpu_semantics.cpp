// Issue 13's verify matrix on the GPU, through the verify machinery (VerifySession: D poisoned or
// filled with C, every element of every product compared with the CPU reference):
//   layout {TN, NN, NT, TT} x D {f16, bf16, f32 (f16 in)} x C {beta = 0, beta != 0 with C apart,
//   C = D in place} x epilogue {none, bias, bias+relu, bias+gelu_tanh, bias+gelu_erf} x batch
//   {1, 3 with one operand broadcast}
// on an odd shape (37x53x71) through "auto" -- which must find a variant for every cell -- and
// through every registered variant that accepts the cell (check_variant ok); then a large shape
// (1024x768x512) through auto over a subset (epilogue none and bias+gelu_tanh, batch 1 and 2).
// Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/reports.hpp"

using namespace pipegemm;

namespace {

struct DTypes {
  DType in, acc, out;
  const char* name;
};
const DTypes kTypes[] = {{DType::f16, DType::f32, DType::f16, "f16"},
                         {DType::bf16, DType::f32, DType::bf16, "bf16"},
                         {DType::f16, DType::f32, DType::f32, "f16->f32"}};
const char* const kLayouts[] = {"TN", "NN", "NT", "TT"};
enum class CMode { none, apart, in_place };
const char* const kCModes[] = {"beta=0", "C apart", "C=D"};
// The epilogues: none; a bias (per column, D's type); bias+relu (per row, f32); bias+gelu_tanh
// (per column, f32); bias+gelu_erf (per row, D's type) -- both directions, both bias types.
struct Epilogue {
  const char* bias;
  const char* bias_dtype;
  const char* act;
  const char* name;
};
const Epilogue kEpilogues[] = {{"none", "d", "none", "none"},
                               {"col", "d", "none", "bias"},
                               {"row", "f32", "relu", "bias+relu"},
                               {"col", "f32", "gelu_tanh", "bias+gelu_tanh"},
                               {"row", "d", "gelu_erf", "bias+gelu_erf"}};

struct Cell {
  int layout, types, c, epilogue, batch;
  std::string name() const {
    std::string s = std::string(kLayouts[layout]) + " " + kTypes[types].name + " " + kCModes[c] + " " +
                    kEpilogues[epilogue].name + " batch " + std::to_string(batch);
    return s;
  }
};

// The request of one cell, as `pipegemm verify` flags would make it.
ProblemRequest request(const std::string& shape, const Cell& x) {
  ProblemRequest r;
  r.shape = shape;
  r.layout = kLayouts[x.layout];
  // D (and C) column-major for half the cells: a variant then sees D^T = B A^T.
  r.d_layout = (x.layout + x.epilogue) % 2 ? "col" : "row";
  const CMode c = CMode(x.c);
  if (c != CMode::none) {
    r.alpha = 1.5f;
    r.beta = c == CMode::apart ? 0.5f : -1.f;
    r.c = c == CMode::in_place ? "d" : "apart";  // C in D's type (an f32 C under a 16-bit D: the fuzzer's)
  } else if (x.epilogue % 2) {
    r.alpha = -0.5f;  // alpha alone, without C
  }
  const Epilogue& e = kEpilogues[x.epilogue];
  r.bias = e.bias;
  r.bias_dtype = e.bias_dtype;
  r.act = e.act;
  r.batch = x.batch;
  if (x.batch > 1) {
    const char* const which[] = {"a", "b", "c"};
    std::string b = which[(x.layout + x.epilogue + x.types) % 3];
    if (b == "c" && c != CMode::apart) b = x.layout % 2 ? "a" : "b";  // only a C apart is broadcast
    r.broadcast = b;
  }
  return r;
}

Variant typed(const DTypes& t) {
  Variant v;  // only its types are read
  v.a_type = v.b_type = t.in;
  v.acc_type = t.acc;
  v.d_type = t.out;
  return v;
}

struct Tally {
  int cells = 0, runs = 0, refusals = 0;
  int family_runs = 0;  // runs (auto's included) on a variant of the family verify_cell was given
  std::map<std::string, int> runs_by_variant;
};

// One cell: auto (must accept and pass) and, when `every`, each variant that accepts (of
// `family` only, when one is named).
void verify_cell(const std::string& shape, const Cell& x, bool every, uint64_t seed, Tally* tally,
                 const std::string& family = "") {
  const DTypes& t = kTypes[x.types];
  const ProblemRequest r = request(shape, x);
  Problem p;
  Status s = problem_for(r, typed(t), &p);
  ASSERT_TRUE(s.ok()) << x.name() << ": " << s.message;
  const bool in_place = r.c_in_place() && p.reads_c();
  std::unique_ptr<VerifySession> sess;
  s = VerifySession::create(p, make_random_inputs(p, seed), &sess, in_place);
  ASSERT_TRUE(s.ok()) << x.name() << ": " << s.message;
  ++tally->cells;
  const Operands probe = probe_operands(p, 0, in_place);  // cudaMalloc's alignment, C = D or apart
  const Choice ch = choose_auto_for(p, device_info(), probe);
  EXPECT_NE(ch.variant, nullptr) << shape << " " << x.name() << ": auto found no variant: " << ch.why;
  if (ch.variant) {
    const VerifyOutcome o = sess->verify_auto();  // as a user's call: a peer without an algorithm falls back
    ++tally->runs, ++tally->runs_by_variant["auto -> " + ch.variant->name];
    if (!family.empty() && ch.variant->family == family) ++tally->family_runs;
    EXPECT_TRUE(o.status.ok()) << shape << " " << x.name() << " auto -> " << ch.variant->name << ": " << o.status.message
                               << "\n  tolerance: " << sess->tolerance().rule;
  }
  if (!every) return;
  for (const Variant& v : variants()) {
    if (&v == ch.variant || v.a_type != t.in || v.acc_type != t.acc || v.d_type != t.out) continue;
    if (!family.empty() && v.family != family) continue;
    if (!check_variant(v, p, device_info().sm, probe).ok()) {
      ++tally->refusals;
      continue;
    }
    const VerifyOutcome o = sess->verify(v);
    ++tally->runs, ++tally->runs_by_variant[v.name];
    if (!family.empty()) ++tally->family_runs;
    EXPECT_TRUE(o.status.ok()) << shape << " " << x.name() << " " << v.name << ": " << o.status.message
                               << "\n  tolerance: " << sess->tolerance().rule;
  }
}

void print(const char* what, const Tally& t, double seconds) {
  std::printf("%s: %d cells, %d runs, %d refusals (capabilities), %.1f s\n", what, t.cells, t.runs, t.refusals, seconds);
  for (const auto& [name, n] : t.runs_by_variant) std::printf("  %-48s %d\n", name.c_str(), n);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(GpuSemantics, VerifyMatrixOnAnOddShapeThroughAutoAndEveryAcceptingVariant) {
  REQUIRE_GPU();
  const auto t0 = std::chrono::steady_clock::now();
  Tally tally;
  uint64_t seed = 20261213;
  for (int layout = 0; layout < 4; ++layout)
    for (int types = 0; types < 3; ++types)
      for (int c = 0; c < 3; ++c)
        for (int e = 0; e < 5; ++e)
          for (int batch : {1, 3}) verify_cell("37x53x71", Cell{layout, types, c, e, batch}, true, ++seed, &tally);
  EXPECT_EQ(tally.cells, 4 * 3 * 3 * 5 * 2);
  print("37x53x71", tally, since(t0));
}

TEST(GpuSemantics, LargeShapeThroughAuto) {
  REQUIRE_GPU();
  const auto t0 = std::chrono::steady_clock::now();
  Tally tally;
  uint64_t seed = 20261301;
  for (int layout = 0; layout < 4; ++layout)
    for (int types = 0; types < 3; ++types)
      for (int c = 0; c < 3; ++c)
        for (int e : {0, 3})
          for (int batch : {1, 2}) verify_cell("1024x768x512", Cell{layout, types, c, e, batch}, false, ++seed, &tally);
  EXPECT_EQ(tally.cells, 4 * 3 * 3 * 2 * 2);
  print("1024x768x512", tally, since(t0));
}

// k5's general form takes every layout (MN-major operands read transposed by wgmma from the TMA
// ring): each k5 variant on shapes whose leading dimensions suit TMA (multiples of 8) but whose
// M, N and K are not multiples of the tile (partial boxes along MN and K), and a long-K shape
// with two M tiles, where the launch uses 2-CTA clusters and B (MN-major or not) is multicast.
// Every MN-major cell must have run on k5 (not only been refused).
TEST(GpuSemantics, K5EveryLayoutOnPartialTilesAndClusters) {
  REQUIRE_GPU();
  if (device_info().sm != 90) GTEST_SKIP() << "k5 is sm_90a code; the device is sm_" << device_info().sm;
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t seed = 20261401;
  struct Shape { const char* mnk; std::vector<int> cs, es, batches; };
  // K = 200: 4 k_tiles, the bias staged after the drain; K = 2104: under the mainloop (k_tile STAGES).
  const Shape shapes[] = {{"328x264x200", {0, 1, 2}, {0, 1, 3}, {1, 3}}, {"264x520x2104", {0, 1}, {0, 2, 3}, {1}}};
  for (const Shape& sh : shapes) {
    Tally tally;
    for (int layout = 0; layout < 4; ++layout)
      for (int types = 0; types < 3; ++types)
        for (int c : sh.cs)
          for (int e : sh.es)
            for (int batch : sh.batches) {
              const int before = tally.family_runs;
              const Cell cell{layout, types, c, e, batch};
              verify_cell(sh.mnk, cell, true, ++seed, &tally, "k5_ws_tma_wgmma");
              EXPECT_GT(tally.family_runs - before, 0) << sh.mnk << " " << cell.name() << ": no k5 variant ran it";
            }
    print(sh.mnk, tally, since(t0));
  }
}

// shortk (K <= 16) takes every cell of the matrix: each layout, D type, C mode, epilogue and batch
// on shapes off its 32x256 tile with K = 1, an odd 7 and its bound 16 -- K-major fills walk k,
// MN-major ones rows; D column-major for half the cells (the kernel then sees D^T, its stores
// off 16 bytes when M is odd). Every cell must have run on a shortk variant.
TEST(GpuSemantics, ShortKEveryLayoutEpilogueAndBatchOnTinyK) {
  REQUIRE_GPU();
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t seed = 20261501;
  for (const char* mnk : {"37x53x7", "70x517x16", "1x300x1"}) {
    Tally tally;
    for (int layout = 0; layout < 4; ++layout)
      for (int types = 0; types < 3; ++types)
        for (int c = 0; c < 3; ++c)
          for (int e = 0; e < 5; ++e)
            for (int batch : {1, 3}) {
              const int before = tally.family_runs;
              const Cell cell{layout, types, c, e, batch};
              verify_cell(mnk, cell, true, ++seed, &tally, "shortk");
              EXPECT_GT(tally.family_runs - before, 0) << mnk << " " << cell.name() << ": no shortk variant ran it";
            }
    print(mnk, tally, since(t0));
  }
}

// An int8 GEMM with a C apart (its own ldc) in a transposed layout: cuBLASLt's candidates returned
// wrong int32 sums for such problems (found by `pipegemm fuzz`), so cublaslt_i8 refuses them and auto
// runs one of ours -- every element exact.
TEST(GpuSemantics, Int8WithCApartNeverReachesCublasLt) {
  REQUIRE_GPU();
  ProblemRequest r;
  r.shape = "400x80x192";
  r.lda = 400, r.ldb = 96, r.ldd = 144, r.ldc = 128;
  r.layout = "NT";
  r.alpha = 3.f, r.beta = 2.f;
  Variant t;
  t.a_type = t.b_type = DType::i8, t.acc_type = DType::i32, t.d_type = DType::i32;
  Problem p;
  Status s = problem_for(r, t, &p);
  ASSERT_TRUE(s.ok()) << s.message;
  std::unique_ptr<VerifySession> sess;
  ASSERT_TRUE((s = VerifySession::create(p, make_random_inputs(p, 1212), &sess, false)).ok()) << s.message;
  const VerifyOutcome o = sess->verify_auto();
  EXPECT_TRUE(o.status.ok()) << "auto: " << o.status.message;
  const Variant* lt = find_variant("cublaslt_i8");
  ASSERT_NE(lt, nullptr);
  const VerifyOutcome l = sess->verify(*lt);
  EXPECT_EQ(l.status.code, StatusCode::not_supported) << "cublaslt_i8: " << l.status.message;
}
