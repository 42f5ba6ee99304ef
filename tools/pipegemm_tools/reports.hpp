// What each subcommand asks and what it reports. A subcommand parses its flags into a request,
// calls the one builder here (the work: selection, checks, runs, arithmetic) and renders the
// report's document (report.hpp) in the format asked for; nothing is computed in the CLI.
//
// Builders return invalid_argument for bad input (the CLI's exit 2) and no_device when a GPU is
// needed and absent (exit 3); a run that fails is part of the report, not an error.
// plan and sass, which read tables and machine code rather than run: reports_plan_sass.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/bench_suite.hpp"
#include "pipegemm_tools/report.hpp"

namespace pipegemm {

// ----- types, problems, selection (verify, bench, plan) -------------------------------------

struct TypeRequest {
  std::string in, acc, out;  // --dtype / --acc / --out-dtype as given; "" = not asked
};
struct Types {
  DType in = DType::f16, acc = DType::f32, out = DType::f16;  // the defaults filled in
  bool in_given = false, acc_given = false, out_given = false;
  bool accepts(const Variant& v) const;  // v computes every type that was asked for
};
// The one parser of the type flags. Defaults: f16 in; i32 accumulation and output for i8 in,
// else f32 accumulation and output = input. i32 is an accumulator type, refused as an input.
Status parse_types(const TypeRequest& r, Types* out);

struct ProblemRequest {
  std::string shape;  // "MxNxK"
  TypeRequest types;
  int64_t lda = 0, ldb = 0, ldd = 0;  // 0 = packed
  std::string a_npy, b_npy, d_npy;    // verify: inputs from files, D to a file
  int64_t offset = 0;                 // verify: A, B, C, the bias and D start this many elements past an aligned allocation
  // ---- the semantics (pipegemm.hpp): D = act(alpha A B^T + beta C + bias), batched ----
  std::string layout = "TN";          // --layout TN|NN|NT|TT (BLAS letters of A, B)
  std::string d_layout = "row";       // --d-layout row|col
  float alpha = 1.f, beta = 0.f;      // --alpha, --beta
  std::string c = "apart";            // --c apart|d: C in its own buffer, or C = D in place
  std::string c_dtype;                // --c-dtype: "" or "d" = D's type, else a type (f32)
  int64_t ldc = 0;                    // --ldc (0 = packed; in place: ldd)
  int64_t batch = 1;                  // --batch
  std::string broadcast;              // --broadcast a|b|c: that operand's batch stride is 0
  std::string bias = "none";          // --bias none|row|col
  std::string bias_dtype = "d";       // --bias-dtype f32|d
  std::string act = "none";           // --act none|relu|gelu_tanh|gelu_erf
  bool c_in_place() const { return c == "d"; }
};
// The problem for variant v: shape, leading dimensions and semantics from r, types from v.
Status problem_for(const ProblemRequest& r, const Variant& v, Problem* p);
// The semantics of r alone, checked (the flags' values; what only a D type decides waits for
// problem_for).
Status check_semantics(const ProblemRequest& r);
// Stand-ins for the pointers a run will use, for auto's choice before any allocation: distinct
// 256-byte-aligned addresses plus `offset` elements (cudaMalloc's alignment), C = D in place.
// Only their alignment, and whether C is D, are read.
Operands probe_operands(const Problem& p, int64_t offset, bool c_in_place);
// auto's choice (choose_auto on tune_tables()) and candidates (accepting_variants) for a
// validated problem as a call sees it: normalized, a column-major D turned row-major (row_major_d,
// A and B swapped), as GemmCall::make does.
Problem as_called(const Problem& p, const Operands& x, Operands* y);  // the problem and *y as the variant sees them
Choice choose_auto_for(const Problem& p, const DeviceInfo& dev, const Operands& x);
std::vector<const Variant*> accepting_for(const Problem& p, int sm, const Operands& x);
// The semantics in words, "" for the plain TN GEMM (D row-major, alpha 1, beta 0, no epilogue,
// batch 1): "NN, D col, alpha 2, beta 0.5 (C apart, f32), batch 3 (A broadcast), bias col f32, gelu_tanh".
std::string semantics_text(const Problem& p, bool c_in_place);
// Which operand a batch broadcasts ("a", "b", "c", or "" for none), and how C is bound: "none"
// (beta = 0), "apart", "d" (in place).
std::string broadcast_of(const Problem& p);
std::string c_binding(const Problem& p, bool c_in_place);
// The semantics as report columns (JSON/CSV data: layout, alpha, beta, c, c_type, ldc, batch,
// broadcast, bias, bias_type, activation) and one row's cells, in the same order.
std::vector<report::Column> semantic_columns();
std::vector<report::Cell> semantic_cells(const Problem& p, bool c_in_place);

struct Selection {
  std::vector<std::string> kernels;  // names, "all", "auto"
  std::string family;
  bool peers = true;                 // add the cuBLAS entries computing the same types
};
// The variants chosen by name, or every one of the family and types, in registry order.
Status select_variants(const Selection& s, const Types& t, std::vector<const Variant*>* out);

// ----- list ---------------------------------------------------------------------------------

struct ListReport {
  std::vector<const Variant*> variants;
};
ListReport list_registry();
report::Document document(const ListReport& r);

// ----- verify -------------------------------------------------------------------------------

struct VerifyRequest {
  ProblemRequest problem;
  Selection selection;
  uint64_t seed = 0;  // 0 = fresh
};
struct VerifyRow {
  std::string variant, shape, verdict;  // verdict: PASS, FAIL, refused, ERROR
  Problem problem;                      // as verified (normalized; the semantics' columns)
  bool c_in_place = false;
  VerifyOutcome outcome;
  bool ran = false;                     // the kernel ran and was compared
  Tolerance tolerance;
};
struct VerifyReport {
  std::string device;
  int sm = 0;
  uint64_t seed = 0;
  std::string inputs;  // where A and B came from
  std::vector<std::pair<std::string, Tolerance>> tolerances;  // "f16/f32/f16" -> rule, per session
  std::vector<VerifyRow> rows;
  int failures = 0;
  std::vector<std::string> errors;  // what failed beside the rows (writing --out)
  std::string auto_choice, auto_why;  // --kernel auto: what it took and how (cache, model, fallback)
  std::string semantics;              // semantics_text of the problem ("" = the plain TN GEMM)
};
Status run_verify(VerifyRequest r, VerifyReport* out);
report::Document document(const VerifyReport& r);

// ----- bench --------------------------------------------------------------------------------

struct BenchRequest {
  ProblemRequest problem;
  Selection selection;
  BenchOptions run;
  bool ladder = false;  // one variant per rung for the asked types + cuBLAS, speedup over k1
  std::string suite;    // a suite file (bench_suite.hpp) instead of --shape; --shape may hold ranges
  bool candidates = false;  // with auto: also time every variant that accepts the shape (what auto chose among)
  std::string command;      // the command line that asked (command_line()); the report records it
  std::function<void(int i, int n, const std::string& shape)> progress;  // before each shape, when n > 1
};
// The shapes a bench or tune request names: its suite file, its --shape ranges or its one
// --shape, each as the request for that one shape (a suite's dtype column overrides --dtype),
// checked before any GPU is looked for; `where` ("suite:LINE: ") prefixes their messages.
struct ShapeRequest {
  ProblemRequest problem;
  Types types;
  std::string where;
};
Status request_shapes(const ProblemRequest& r, const std::string& suite, std::vector<ShapeRequest>* out);
// A suite line's semantics flags (SuiteShape::flags) over r, then checked (check_semantics).
Status apply_suite_flags(const std::vector<std::pair<std::string, std::string>>& flags, ProblemRequest* r);
// The problem of request r with types t, before any variant is chosen.
Status typed_problem(const ProblemRequest& r, const Types& t, Problem* p);

struct BenchRuns {
  std::string device;
  int sm = 0, sm_count = 0;
  int64_t l2_bytes = 0;
  BenchOptions run;
  bool ladder = false;
  Types types;
  std::vector<BenchReport> runs;  // one per shape and (A, B, D) types; the ladder's is one
  bool sweep = false;             // a suite or a range: one results table and the summary
  std::string suite;              // the suite file, "" for a range
  int shapes = 0;
  std::vector<KernelSummary> summary;  // sweeps: per kernel against the best cuBLAS
  AutoSummary auto_summary;            // sweeps with auto and --candidates: auto against the fastest
  std::vector<SemanticsCost> semantics_costs;  // sweeps: each semantics against the plain run of its kernel
  BenchEnv env;
  std::string command;            // BenchRequest::command ("" = not recorded)
  int failures = 0;               // results that did not run
  Status error;                   // a run that could not complete (the runs before it are kept)
};
Status run_bench(const BenchRequest& r, BenchRuns* out);
report::Document document(const BenchRuns& r);
report::Document sweep_document(const BenchRuns& r);  // document() of a sweep

}  // namespace pipegemm
