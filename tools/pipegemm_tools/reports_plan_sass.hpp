// What `plan` and `sass` ask and report -- the two subcommands that read tables and machine code
// rather than run a GEMM (the others: reports.hpp, whose conventions hold here too).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pipegemm_tools/planner.hpp"
#include "pipegemm_tools/reports.hpp"
#include "pipegemm_tools/sass.hpp"

namespace pipegemm::plan {

// ----- plan ---------------------------------------------------------------------------------

struct PlanRequest {
  std::string kernel;  // a registered variant; "" = the seed kernel (unless tile)
  std::string tile;    // "BMxBNxBK": plan a described tile instead
  TypeRequest types;   // with tile
  std::string family, mma;  // with tile: pipeline kind words or a registered family; instruction
  std::string arch;    // "" = the live GPU, else the H200 table
  std::string shape;   // "MxNxK": waves and the registered variants ranked
  // -1 = not given; a given value must be positive (0 is refused, not taken as "absent").
  int stages = -1, threads = -1, regs = -1;
  double t_copy = -1, t_compute = -1;
  int latency = -1;
};
struct PlanReport {
  ArchSpec arch;
  std::string arch_note;          // where the limits came from
  KernelDesc kernel;
  const Variant* variant = nullptr;  // null for a described tile
  int smem = 0;                   // dynamic smem at the kernel's stage count
  Occupancy occ;
  int cuda_blocks = -1;           // the live kernel's cudaOccupancy answer, when known
  std::vector<StageRow> stages;
  double ratio = 0;
  VariantAdvice advice;
  StageEstimate estimate;
  long long m = 0, n = 0, k = 0;  // 0 = no shape asked
  Waves waves;
  Ranking ranking;
};
Status make_report(const PlanRequest& r, PlanReport* out);
report::Document document(const PlanReport& r);
// The GPU table (`plan --archs`).
report::Document arch_table_document();

// A described tile (--tile and its options) as the planner's kernel, checked with check_tile.
Status describe_tile(const PlanRequest& r, const ArchSpec& a, KernelDesc* out);

}  // namespace pipegemm::plan

namespace pipegemm::sass {

// ----- sass ---------------------------------------------------------------------------------

struct SassRequest {
  std::vector<const Variant*> kernels;  // asked by name; empty = every one with machine code
  std::vector<std::string> archs{"all"};
  std::string function;                 // only functions whose mangled name contains this
  bool own = true;                      // checking this build (else a FILE)
  std::string file;                     // the FILE, as given
  std::string tool, version;            // the cuobjdump that made the listing
  bool brief = false;                   // text: the summary and the details of failures only
};
// Names -> variants (unknown names and peers refused).
Status select_kernels(const std::vector<std::string>& names, SassRequest* r);
// The variants to match: those asked for, else every registered one with a symbol.
std::vector<const Variant*> kernels_to_check(const SassRequest& r);
// Which functions load_listing should disassemble (mangled name, arch).
std::function<bool(const std::string&, const std::string&)> wanted(const SassRequest& r);

struct SassReport {
  std::string file, tool, version;
  std::vector<Verdict> verdicts;
  std::vector<std::string> notes;
  int failed = 0;
  bool own = true, brief = false;
};
// Matches the listing's functions to the variants and checks each: our build must hold every
// registered kernel for every arch it was built for; a FILE's other kernels with an MMA get the
// generic expectation.
Status check_listing(const SassRequest& r, const Listing& l, SassReport* out);
report::Document document(const SassReport& r);

}  // namespace pipegemm::sass
