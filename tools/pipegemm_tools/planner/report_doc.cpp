// The plan laid out: what text prints and JSON carries, from one PlanReport.
#include <algorithm>
#include <climits>

#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::plan {

namespace {

using report::Cell;
using report::Column;
using report::fixed;
using report::kib;
using report::percent;
using report::Show;
using report::Value;

std::string str(long long x) { return std::to_string(x); }
std::string lim(int v) { return v == INT_MAX ? "-" : str(v); }
Value limit(int v) { return v == INT_MAX ? Value(nullptr) : Value(v); }

std::string arch_line(const ArchSpec& a) {
  return str(a.sm_count) + " SMs; smem " + kib(a.smem_per_sm) + "/SM, " + kib(a.smem_per_block_optin) +
         "/block opt-in (" + kib(a.smem_per_block) + " default), " + kib(a.smem_reserved_per_block) +
         " reserved/block, " + str(a.smem_alloc_granularity) + " B granularity; " + str(a.regs_per_sm) +
         " regs/SM, " + str(a.max_regs_per_thread) + "/thread, allocated per warp in " + str(a.reg_alloc_unit) +
         "; " + str(a.max_threads_per_sm) + " threads, " + str(a.max_warps_per_sm) + " warps, " +
         str(a.max_blocks_per_sm) + " blocks/SM; " + fixed(a.sm_clock_mhz, 0) + " MHz, " + fixed(a.dram_gbps, 0) + " GB/s";
}

// The occupancy columns of the stage table (and the fields of `occupancy`).
const std::vector<std::string> kOccKeys = {"blocks_per_sm", "limited_by", "by_smem", "by_regs", "by_warps", "by_blocks",
                                           "by_barriers", "smem_footprint", "regs_known", "warps_per_sm", "occupancy"};
std::vector<Cell> occ_cells(const Occupancy& x) {
  return {x.blocks, x.limiter, limit(x.by_smem), limit(x.by_regs), limit(x.by_warps), limit(x.by_blocks),
          limit(x.by_barriers), x.smem_alloc, x.regs_known, x.warps_per_sm, x.occupancy};
}

void header(report::Document& d, const PlanReport& p) {
  const ArchSpec& a = p.arch;
  const KernelDesc& k = p.kernel;
  report::Section& s = d.section("", false);
  s.line("GPU", arch_line(a) + (a.source != "table" ? "\n" + a.notes : ""));
  s.line("kernel", (k.family.empty() ? "" : k.family + ", ") + str(k.bm) + "x" + str(k.bn) + "x" + str(k.bk) + ", " +
                       str(k.stages) + " stage(s), " + str(k.threads) + " threads, " + to_string(k.in) + " in / " +
                       to_string(k.acc) + " acc, " + to_string(k.pipeline) + ", " + to_string(k.mma));
  s.line("regs", (k.regs_per_thread ? str(k.regs_per_thread) + "/thread, " : "") + k.regs_source);
  if (k.static_smem) s.line("static", str(k.static_smem) + " B __shared__ per CTA");
  if (k.extra_smem) s.line("extra", str(k.extra_smem) + " B of dynamic smem beyond the ring (kept at every stage count)");
  const std::vector<std::pair<std::string, Cell>> arch = {
      {"key", a.key}, {"name", a.name}, {"sm", a.sm}, {"source", a.source}, {"note", p.arch_note},
      {"sm_count", a.sm_count}, {"smem_per_sm", a.smem_per_sm}, {"smem_per_block_optin", a.smem_per_block_optin},
      {"smem_reserved_per_block", a.smem_reserved_per_block}, {"smem_alloc_granularity", a.smem_alloc_granularity},
      {"regs_per_sm", a.regs_per_sm}, {"max_threads_per_sm", a.max_threads_per_sm},
      {"max_warps_per_sm", a.max_warps_per_sm}, {"max_blocks_per_sm", a.max_blocks_per_sm},
      {"sm_clock_mhz", a.sm_clock_mhz}, {"dram_gbps", a.dram_gbps}};
  for (auto& [key, c] : arch) s.data("arch." + key, c);
  const std::vector<std::pair<std::string, Cell>> kernel = {
      {"label", k.label}, {"family", k.family}, {"bm", k.bm}, {"bn", k.bn}, {"bk", k.bk}, {"stages", k.stages},
      {"threads", k.threads}, {"dtype", to_string(k.in)}, {"acc", to_string(k.acc)},
      {"pipeline", to_string(k.pipeline)}, {"mma", to_string(k.mma)}, {"regs_per_thread", k.regs_per_thread},
      {"regs_source", k.regs_source}, {"static_smem", k.static_smem}, {"extra_smem", k.extra_smem},
      {"smem_bytes", p.smem}, {"smem_per_stage", ring_bytes_per_stage(k)}};
  for (auto& [key, c] : kernel) s.data("kernel." + key, c);
  const std::vector<Cell> occ = occ_cells(p.occ);
  for (size_t i = 0; i < kOccKeys.size(); ++i) s.data("occupancy." + kOccKeys[i], occ[i]);
  if (p.cuda_blocks >= 0) s.data("occupancy.cuda_blocks_per_sm", p.cuda_blocks);
}

void stages(report::Document& d, const PlanReport& p) {
  const ArchSpec& a = p.arch;
  const KernelDesc& k = p.kernel;
  const Occupancy& occ = p.occ;
  const std::vector<StageRow>& rows = p.stages;
  report::Section& s = d.section(rows.empty() ? "No shared-memory ring: " + kib(p.smem) +
                                                    " of dynamic smem, occupancy from registers and threads."
                                              : "");
  std::vector<Column> cols = {{"stages", "stages"}, {"smem_bytes", "smem"}, {"smem_footprint", "footprint"},
                              {"blocks_per_sm", "blocks/SM"}, {"limited_by", "limited by"},
                              {"warps_per_sm", "warps/SM"}, {"occupancy", "occupancy"}, {"", "", Show::text},
                              {"cliff", "", Show::data}};
  for (const std::string& key : kOccKeys)
    if (key != "blocks_per_sm" && key != "limited_by" && key != "smem_footprint" && key != "warps_per_sm" && key != "occupancy")
      cols.push_back({key, "", Show::data});
  const std::string b_part = k.b_resident ? " (B resident: in the extra smem)" : " + B " + str(k.bn) + "x" + str(k.bk);
  report::Table& t = s.table("stages", "Shared memory and occupancy per stage count (a stage: A " + str(k.bm) + "x" +
                                           str(k.bk) + b_part + " " + to_string(k.in) +
                                           " = " + kib(ring_bytes_per_stage(k)) +
                                           (k.pipeline == PipelineKind::mbarrier_ring ? ", 16 B of full/empty mbarriers included" : "") + ")",
                             cols);
  if (rows.empty()) t.show = Show::data;
  int last_shown = 0;
  for (size_t i = 0; i < rows.size(); ++i) {  // text: the first 8, the kernel's own, cliffs and the last
    const StageRow& r = rows[i];
    const bool show = r.stages <= 8 || r.cliff || r.stages == k.stages || i + 1 == rows.size() ||
                      (i + 1 < rows.size() && rows[i + 1].cliff);
    if (show && last_shown && last_shown + 1 < r.stages) t.add({report::text_cell("...")}, Show::text);
    if (show) last_shown = r.stages;
    std::string mark = r.stages == k.stages ? "<- this kernel" : "";
    if (r.cliff)
      mark += (mark.empty() ? "" : ", ") + std::string("cliff: one stage less keeps ") + str(rows[i - 1].occ.blocks) + " blocks";
    const std::vector<Cell> o = occ_cells(r.occ);
    t.add({r.stages, Cell(r.smem, kib(r.smem)), Cell(r.occ.smem_alloc, kib(r.occ.smem_alloc)), r.occ.blocks,
           r.occ.limiter, r.occ.warps_per_sm, Cell(r.occ.occupancy, percent(r.occ.occupancy)), report::text_cell(mark),
           r.cliff, o[2], o[3], o[4], o[5], o[6], o[8]},
          show ? Show::all : Show::data);
  }
  if (!rows.empty())
    t.notes.push_back("footprint = dynamic + static + " + str(a.smem_reserved_per_block) + " B reserved, rounded up to " +
                      str(a.smem_alloc_granularity) + " B; up to " + str(rows.back().stages) + " stages fit one CTA (" +
                      kib(a.smem_per_block_optin) + " opt-in)" +
                      (occ.regs_known ? "" : "; registers unknown: blocks/SM ignore them (upper bound)") + ".");
  const int max_n = std::min(a.max_blocks_per_sm, 8);
  report::Table& cliffs = s.table("smem_for_blocks", "", {{"blocks", ""}, {"max_dynamic_smem", ""}});
  cliffs.show = Show::data;
  std::string line = "smem cliffs: dynamic smem per CTA that keeps n blocks/SM:";
  for (int n = 1; n <= max_n; ++n) cliffs.add({n, max_dynamic_smem_for_blocks(a, n, k.static_smem)});
  for (int n = max_n; n >= 1; --n) line += "  " + str(n) + ": <= " + kib(max_dynamic_smem_for_blocks(a, n, k.static_smem));
  if (!rows.empty()) s.note(line);
  s.note("this kernel: " + str(occ.blocks) + " blocks/SM (" + occ.limiter + "), " + str(occ.warps_per_sm) + " warps, " +
         percent(occ.occupancy) + " occupancy; limits: smem " + lim(occ.by_smem) + ", registers " + lim(occ.by_regs) +
         ", warps " + lim(occ.by_warps) + ", blocks " + lim(occ.by_blocks) +
         (occ.by_barriers != INT_MAX ? ", barriers " + lim(occ.by_barriers) : ""));
  if (p.cuda_blocks >= 0) s.note("CUDA (cudaOccupancyMaxActiveBlocksPerMultiprocessor): " + str(p.cuda_blocks) + " blocks/SM");
}

}  // namespace

namespace detail {  // planner/report_rank.cpp
void ratio_and_stages(report::Document& d, const PlanReport& p);
void byte_budget_section(report::Document& d, const PlanReport& p);
void ranking(report::Document& d, const PlanReport& p);
}  // namespace detail

report::Document document(const PlanReport& p) {
  report::Document d;
  d.title = "pipegemm plan: " + p.kernel.label + " on " + p.arch.name + " (sm_" + str(p.arch.sm) + ", " + p.arch_note + ")";
  header(d, p);
  stages(d, p);
  detail::ratio_and_stages(d, p);
  detail::byte_budget_section(d, p);
  if (p.m > 0) detail::ranking(d, p);
  return d;
}

}  // namespace pipegemm::plan
