// diagnose.hpp: the rules that turn counters into a verdict, and the report.
#include <algorithm>
#include <cmath>

#include "pipegemm_tools/diagnose.hpp"

namespace pipegemm::diagnose {
namespace {

double sum_of(const Counters& c, const std::vector<std::string>& reasons) {
  double s = 0;
  for (const std::string& r : reasons)
    if (double v = c.get(stall_metric(r)); std::isfinite(v)) s += v;
  return s;
}

std::string num(double v, int prec) { return std::isfinite(v) ? report::fixed(v, prec) : std::string("-"); }

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::compute_bound: return "compute-bound";
    case Verdict::memory_bound: return "memory-bound";
    case Verdict::uncoalesced: return "uncoalesced access";
    case Verdict::stage_starvation: return "stage starvation";
    case Verdict::occupancy_collapse: return "occupancy collapse";
    case Verdict::latency_bound: return "latency/launch-bound";
    default: return "unclear";
  }
}

Diagnosis classify(const Counters& c, const Prediction& p) {
  Diagnosis d;
  // Evidence by index: the vector grows while the rules' entries are still to be marked.
  auto add = [&](std::string what, std::string metric, double v, std::string unit, std::string rule) -> size_t {
    d.evidence.push_back({std::move(what), std::move(metric), v, std::move(unit), std::move(rule), false});
    return d.evidence.size() - 1;
  };
  auto decide = [&](Verdict v, size_t e, std::string why) {
    d.evidence[e].decided = true;
    d.verdict = v;
    d.why = std::move(why);
  };
  const double us = c.get("gpu__time_duration.sum") / 1000.0;
  const double grid = c.get("launch__grid_size");
  const double tensor = std::max(std::isfinite(c.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"))
                                     ? c.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active") : 0.0,
                                 std::isfinite(c.get("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"))
                                     ? c.get("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active") : 0.0);
  const double dram = c.get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  const double eff = c.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
  const double reqs = c.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  const double sectors = c.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  const double dram_read = c.get("dram__bytes_read.sum");
  const double achieved = c.get("sm__warps_active.avg.pct_of_peak_sustained_active");
  const double lim_smem = c.get("launch__occupancy_limit_shared_mem");
  const double lim_regs = c.get("launch__occupancy_limit_registers");
  const double stalls = sum_of(c, stall_reasons());
  const double waits = sum_of(c, pipeline_wait_reasons());
  const double wait_share = stalls > 0 ? waits / stalls : std::nan("");
  const bool has_lsu = std::isfinite(reqs) && reqs > 0;

  const size_t e_grid = add("CTAs launched (SMs: " + std::to_string(p.sm_count) + ")", "launch__grid_size", grid, "",
                         "latency-bound below half the SMs");
  const size_t e_time = add("launch time", "gpu__time_duration.sum", us, "us", "latency-bound below 5 us");
  const size_t e_eff = add("bytes used per loaded sector", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                        has_lsu ? eff : std::nan(""), "%", "uncoalesced below 50% (LSU loads only)");
  add("L1 sectors per global load request", "derived", has_lsu && std::isfinite(sectors) ? sectors / reqs : std::nan(""),
      "", "4 for 128-byte warp loads, 16 for 16-byte vectors; 32 = one sector per thread");
  add("DRAM bytes read / the GEMM's bytes", "derived", p.ideal_bytes > 0 ? dram_read / p.ideal_bytes : std::nan(""), "x",
      "1 = every operand byte read once");
  const size_t e_tensor = add("tensor pipe busy", "sm__pipe_tensor_op_{hmma,gmma}_cycles_active", tensor, "%",
                           "compute-bound at 60% or more");
  const size_t e_dram = add("DRAM throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed", dram, "%",
                         "memory-bound at 60% or more");
  const size_t e_occ = add("achieved occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", achieved, "%",
                        "collapse below 25%, past an occupancy cliff");
  add("CTAs per SM allowed by smem / by registers", "launch__occupancy_limit_{shared_mem,registers}",
      std::min(std::isfinite(lim_smem) ? lim_smem : 1e9, std::isfinite(lim_regs) ? lim_regs : 1e9), "",
      "planner: " + std::to_string(p.blocks_per_sm) + " (" + p.limiter + "), " + std::to_string(p.blocks_one_stage_less) +
          " with one stage fewer");
  const size_t e_wait = add("pipeline waits (long scoreboard + barrier + wait + sleeping) / all stalls", "derived",
                         std::isfinite(wait_share) ? 100.0 * wait_share : std::nan(""), "%",
                         "starvation or collapse at 40% or more");
  add("shared-memory bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
      c.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"), "", "(shown)");
  add("registers per thread", "launch__registers_per_thread", c.get("launch__registers_per_thread"), "", "(shown)");

  const bool past_cliff = p.blocks_one_stage_less > p.blocks_per_sm;
  if (std::isfinite(grid) && p.sm_count > 0 && grid < 0.5 * p.sm_count) {
    decide(Verdict::latency_bound, e_grid,
           num(grid, 0) + " CTAs for " + std::to_string(p.sm_count) + " SMs: most SMs idle, latency sets the time");
  } else if (std::isfinite(us) && us < 5.0) {
    decide(Verdict::latency_bound, e_time, "the launch takes " + num(us, 2) + " us: launch and pipeline fill dominate");
  } else if (has_lsu && std::isfinite(eff) && eff < 50.0) {
    decide(Verdict::uncoalesced, e_eff,
           "only " + num(eff, 1) + "% of each loaded sector is used (" + num(sectors / reqs, 1) +
               " sectors per request): the loads are not coalesced, more stages would not help");
  } else if (tensor >= 60.0) {
    decide(Verdict::compute_bound, e_tensor, "the tensor pipe is busy " + num(tensor, 1) + "% of the time");
  } else if (std::isfinite(dram) && dram >= 60.0) {
    decide(Verdict::memory_bound, e_dram,
           "DRAM at " + num(dram, 1) + "% of its peak with coalesced loads: the bytes set the time");
  } else if (past_cliff && std::isfinite(achieved) && achieved < 25.0 && std::isfinite(wait_share) && wait_share >= 0.4) {
    decide(Verdict::occupancy_collapse, e_occ,
           std::to_string(p.blocks_per_sm) + " CTA(s) per SM at " + std::to_string(p.stages) + " stages (" + p.limiter +
               "), " + std::to_string(p.blocks_one_stage_less) + " with one fewer, and " + num(achieved, 1) +
               "% achieved occupancy: too few warps hide the " + num(100 * wait_share, 0) + "% of stalls spent waiting");
  } else if (std::isfinite(wait_share) && wait_share >= 0.4) {
    decide(Verdict::stage_starvation, e_wait,
           "coalesced loads, yet " + num(100 * wait_share, 0) + "% of the warps' stalls wait on the pipeline (stages " +
               std::to_string(p.stages) + ", planner minimum " + std::to_string(p.min_stages_l2) + "-" +
               std::to_string(p.min_stages) + "): the copies are not far enough ahead");
  } else {
    d.verdict = Verdict::unclear;
    d.why = "no rule holds: tensor pipe " + num(tensor, 1) + "%, DRAM " + num(dram, 1) + "%, pipeline waits " +
            (std::isfinite(wait_share) ? num(100 * wait_share, 0) + "%" : std::string("-")) + " of stalls";
  }
  return d;
}

report::Document diagnosis_document(const Counters& c, const Prediction& p, const Diagnosis& d,
                                    const std::string& source) {
  report::Document doc;
  doc.title = "diagnose " + p.variant + ": " + to_string(d.verdict);
  report::Section& s = doc.section("", false);
  s.data("variant", p.variant).data("verdict", to_string(d.verdict)).data("why", d.why).data("kernel", c.kernel);
  s.line("verdict", to_string(d.verdict)).line("why", d.why).line("kernel", c.kernel).line("counters", source);
  s.data("counters", source);
  report::Table& t = s.table("evidence", "the numbers the rules read (in their order; * decided)",
                             {{"what", "what"}, {"value", "value"}, {"rule", "rule"}, {"metric", "ncu metric"},
                              {"decided", "", report::Show::data}});
  for (const Evidence& e : d.evidence) {
    const bool known = std::isfinite(e.value);
    t.add({report::Cell(e.what, (e.decided ? "* " : "  ") + e.what),
           known ? report::Cell(e.value, num(e.value, e.unit == "%" || e.unit == "x" ? 1 : e.unit == "us" ? 2 : 0) + e.unit)
                 : report::Cell(nullptr, "-"),
           report::text_cell(e.rule), report::text_cell(e.metric), report::Cell(e.decided)});
  }
  report::Section& pr = doc.section("the planner's prediction beside");
  pr.data("prediction.blocks_per_sm", p.blocks_per_sm).data("prediction.limiter", p.limiter);
  pr.data("prediction.stages", p.stages).data("prediction.min_stages", p.min_stages).data("prediction.min_stages_l2", p.min_stages_l2);
  pr.data("prediction.ideal_bytes", p.ideal_bytes);
  const double lim = std::min(std::isfinite(c.get("launch__occupancy_limit_shared_mem")) ? c.get("launch__occupancy_limit_shared_mem") : 1e9,
                              std::isfinite(c.get("launch__occupancy_limit_registers")) ? c.get("launch__occupancy_limit_registers") : 1e9);
  pr.line("CTAs per SM", std::to_string(p.blocks_per_sm) + " predicted (" + p.limiter + "); ncu's smem/register limit " +
                             (lim < 1e9 ? num(lim, 0) : std::string("-")));
  pr.line("stages", std::to_string(p.stages) + " in the ring; the planner's minimum " + std::to_string(p.min_stages_l2) +
                        " (operands from L2) to " + std::to_string(p.min_stages) + " (from DRAM)");
  pr.line("bytes", report::kib(p.ideal_bytes) + " the GEMM needs; DRAM read " + report::kib(c.get("dram__bytes_read.sum")));
  return doc;
}

}  // namespace pipegemm::diagnose
