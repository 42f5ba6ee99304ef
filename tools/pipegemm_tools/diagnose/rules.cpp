// diagnose.hpp: the rules that turn counters into a verdict, and the report.
#include <algorithm>
#include <cmath>
#include <utility>

#include "pipegemm_tools/diagnose.hpp"
#include "pipegemm_tools/planner.hpp"

namespace pipegemm::diagnose {
namespace {

double sum_of(const Counters& c, const std::vector<std::string>& reasons) {
  double s = 0;
  for (const std::string& r : reasons)
    if (double v = c.get(stall_metric(r)); std::isfinite(v)) s += v;
  return s;
}

std::string num(double v, int prec) { return std::isfinite(v) ? report::fixed(v, prec) : std::string("-"); }
double or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// The tensor pipe's busy share (%): mma.sync's (hmma) or wgmma's (gmma) counter, whichever ran.
double tensor_busy(const Counters& c) {
  return std::max(or_zero(c.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active")),
                  or_zero(c.get("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active")));
}

// A bytes-per-sector percentage: 0 (or unreported) means no such load was measured.
double positive_or_nan(double v) { return std::isfinite(v) && v > 0 ? v : std::nan(""); }

// std::min's order with NaN last: the smaller of the measured ones, NaN when neither is.
bool nan_last(double a, double b) { return std::isfinite(a) && (!std::isfinite(b) || a < b); }

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
  const double nan = std::nan("");
  const double us = c.get("gpu__time_duration.sum") / 1000.0;
  const double grid = c.get("launch__grid_size");
  const double tensor = tensor_busy(c);
  const double dram = c.get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  // The LDG-only bytes per sector reads 0 where no LDG ran (cp.async, TMA): not measured, not 0% used.
  const double eff_raw = c.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
  // LDG's own bytes against the GEMM's: below kLdgShare LDG does not move the operands (TMA or
  // cp.async does; e.g. stream-K's 4-byte flag polls), and how it uses its sectors decides nothing.
  constexpr double kLdgShare = 0.05;
  const double ldg_bytes = c.get("smsp__sass_data_bytes_mem_global_op_ld.sum");
  const double ldg_share = std::isfinite(ldg_bytes) && p.ideal_bytes > 0 ? ldg_bytes / p.ideal_bytes : nan;
  const bool ldg_minor = std::isfinite(ldg_share) && ldg_share < kLdgShare;
  const double eff = ldg_minor ? nan : positive_or_nan(eff_raw);
  const double reqs = c.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  const double sectors = c.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  const double spr = std::isfinite(reqs) && reqs > 0 && std::isfinite(sectors) ? sectors / reqs : nan;
  // The same for cp.async (LDGSTS), around L1 or through it: the lower of those with LDGSTS measured.
  const double cp_eff = std::min(positive_or_nan(c.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_bypass.pct")),
                                 positive_or_nan(c.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_access.pct")),
                                 nan_last);
  const double dram_read = c.get("dram__bytes_read.sum");
  const double achieved = c.get("sm__warps_active.avg.pct_of_peak_sustained_active");
  const double lim_smem = c.get("launch__occupancy_limit_shared_mem");
  const double lim_regs = c.get("launch__occupancy_limit_registers");
  const double stalls = sum_of(c, stall_reasons());
  const double waits = sum_of(c, pipeline_wait_reasons());
  const double wait_share = stalls > 0 ? waits / stalls : nan;
  // Filling the ring (stages - 1 k_tiles ahead) and draining it again, per tile unless persistent.
  const int fill_drain = 2 * std::max(p.stages - 1, 0);

  const size_t e_grid = add("CTAs launched (SMs: " + std::to_string(p.sm_count) + ")", "launch__grid_size", grid, "",
                            "latency-bound below half the SMs");
  const size_t e_time = add("launch time", "gpu__time_duration.sum", us, "us", "latency-bound below 5 us");
  const size_t e_eff = add("bytes used per loaded sector (LDG)", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                           ldg_minor ? eff_raw : eff, "%",
                           "uncoalesced in (0, 50%); 0 = no LDG measured (cp.async, TMA)");
  const size_t e_spr = add("L1 sectors per global load request (LDG and LDGSTS)",
                           "l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_ld", spr, "",
                           "uncoalesced above 16 (16 = 16-byte vectors, 4 = 128-byte warp loads, 32 = a sector per thread)");
  const size_t e_cp = add("bytes used per loaded sector (LDGSTS)",
                          "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_{bypass,access}.pct", cp_eff,
                          "%", "uncoalesced in (0, 50%); 0 = no cp.async measured");
  add("LDG's bytes / the GEMM's bytes", "smsp__sass_data_bytes_mem_global_op_ld.sum", ldg_share, "x",
      "under " + num(kLdgShare, 2) + ": LDG does not carry the operands, its sector use is not judged");
  add("DRAM bytes read / the GEMM's bytes", "derived", p.ideal_bytes > 0 ? dram_read / p.ideal_bytes : nan, "x",
      "1 = every operand byte read once");
  const size_t e_tensor = add("tensor pipe busy", "sm__pipe_tensor_op_{hmma,gmma}_cycles_active", tensor, "%",
                              "compute-bound at 60% or more");
  const size_t e_dram = add("DRAM throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed", dram, "%",
                            "memory-bound at 60% or more");
  const size_t e_k = add("k_tiles per output tile (K / BK)", "planner", p.k_tiles > 0 ? double(p.k_tiles) : nan, "",
                         p.persistent    ? std::string("(persistent: the ring does not drain between tiles)")
                         : p.stages < 2 ? std::string("(no ring to fill and drain)")
                                         : "latency-bound at <= 4 x (stages - 1) = " + std::to_string(2 * fill_drain) +
                                               ": filling + draining the ring is half the tile or more");
  const size_t e_occ = add("achieved occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", achieved, "%",
                           "collapse below 25%, past an occupancy cliff");
  add("CTAs per SM allowed by smem / by registers", "launch__occupancy_limit_{shared_mem,registers}",
      std::min(std::isfinite(lim_smem) ? lim_smem : 1e9, std::isfinite(lim_regs) ? lim_regs : 1e9), "",
      "planner: " + std::to_string(p.blocks_per_sm) + " (" + p.limiter + "), " + std::to_string(p.blocks_one_stage_less) +
          " with one stage fewer");
  const size_t e_wait = add("pipeline waits (long scoreboard + barrier + wait + sleeping) / all stalls", "derived",
                            std::isfinite(wait_share) ? 100.0 * wait_share : nan, "%",
                            "starvation or collapse at 40% or more");
  // What the warps wait on, by name: the three largest stall reasons.
  std::vector<std::pair<double, std::string>> top;
  for (const std::string& r : stall_reasons())
    if (double v = c.get(stall_metric(r)); std::isfinite(v) && v > 0 && stalls > 0) top.push_back({v, r});
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < top.size() && i < 3; ++i)
    add("stall reason " + std::to_string(i + 1) + ": " + top[i].second, stall_metric(top[i].second),
        100.0 * top[i].first / stalls, "%", "(shown) share of all stalls");
  add("shared-memory bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
      c.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"), "", "(shown)");
  add("registers per thread", "launch__registers_per_thread", c.get("launch__registers_per_thread"), "", "(shown)");

  const bool eff_bad = std::isfinite(eff) && eff < 50.0;
  const bool spr_bad = std::isfinite(spr) && spr > 16.0;
  const bool cp_bad = std::isfinite(cp_eff) && cp_eff < 50.0;
  const bool short_k = !p.persistent && p.stages >= 2 && p.k_tiles > 0 && p.k_tiles <= 2 * fill_drain;
  const bool past_cliff = p.blocks_one_stage_less > p.blocks_per_sm;
  const std::string top_stall = top.empty() ? "" : ", most of all " + top[0].second + " (" + num(100 * top[0].first / stalls, 0) + "%)";
  if (std::isfinite(grid) && p.sm_count > 0 && grid < 0.5 * p.sm_count) {
    decide(Verdict::latency_bound, e_grid,
           num(grid, 0) + " CTAs for " + std::to_string(p.sm_count) + " SMs: most SMs idle, latency sets the time");
  } else if (std::isfinite(us) && us < 5.0) {
    decide(Verdict::latency_bound, e_time, "the launch takes " + num(us, 2) + " us: launch and pipeline fill dominate");
  } else if (eff_bad || spr_bad || cp_bad) {
    const double used = eff_bad ? eff : cp_bad ? cp_eff : std::isfinite(eff) ? eff : cp_eff;
    decide(Verdict::uncoalesced, eff_bad ? e_eff : spr_bad ? e_spr : e_cp,
           (std::isfinite(used) ? "only " + num(used, 1) + "% of each loaded sector is used, " : std::string()) +
               num(spr, 1) + " L1 sectors per global load request (16 = coalesced 16-byte vectors): the loads are not "
               "coalesced, more stages would not help");
  } else if (tensor >= 60.0) {
    decide(Verdict::compute_bound, e_tensor, "the tensor pipe is busy " + num(tensor, 1) + "% of the time");
  } else if (std::isfinite(dram) && dram >= 60.0) {
    decide(Verdict::memory_bound, e_dram,
           "DRAM at " + num(dram, 1) + "% of its peak with coalesced loads: the bytes set the time");
  } else if (short_k) {
    decide(Verdict::latency_bound, e_k,
           std::to_string(p.k_tiles) + " k_tiles per tile against a " + std::to_string(p.stages) +
               "-stage ring: filling and draining it (" + std::to_string(fill_drain) + " k_tiles) is " +
               num(100.0 * fill_drain / p.k_tiles, 0) + "% of every tile's mainloop, paid per tile (not persistent); " +
               "tensor pipe " + num(tensor, 1) + "%, DRAM " + num(dram, 1) + "%: the pipeline's fill and drain set the time");
  } else if (past_cliff && std::isfinite(achieved) && achieved < 25.0 && std::isfinite(wait_share) && wait_share >= 0.4) {
    decide(Verdict::occupancy_collapse, e_occ,
           std::to_string(p.blocks_per_sm) + " CTA(s) per SM at " + std::to_string(p.stages) + " stages (" + p.limiter +
               "), " + std::to_string(p.blocks_one_stage_less) + " with one fewer, and " + num(achieved, 1) +
               "% achieved occupancy: too few warps hide the " + num(100 * wait_share, 0) + "% of stalls spent waiting" +
               top_stall);
  } else if (std::isfinite(wait_share) && wait_share >= 0.4) {
    decide(Verdict::stage_starvation, e_wait,
           "coalesced loads, yet " + num(100 * wait_share, 0) + "% of the warps' stalls wait on the pipeline (stages " +
               std::to_string(p.stages) + ", planner minimum " + std::to_string(p.min_stages_l2) + "-" +
               std::to_string(p.min_stages) + ")" + top_stall + ": the copies are not far enough ahead");
  } else {
    d.verdict = Verdict::unclear;
    d.why = "no rule holds: tensor pipe " + num(tensor, 1) + "%, DRAM " + num(dram, 1) + "%, pipeline waits " +
            (std::isfinite(wait_share) ? num(100 * wait_share, 0) + "%" : std::string("-")) + " of stalls" + top_stall;
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
  pr.data("prediction.ideal_bytes", p.ideal_bytes).data("prediction.k_tiles", p.k_tiles).data("prediction.persistent", p.persistent);
  const double lim = std::min(std::isfinite(c.get("launch__occupancy_limit_shared_mem")) ? c.get("launch__occupancy_limit_shared_mem") : 1e9,
                              std::isfinite(c.get("launch__occupancy_limit_registers")) ? c.get("launch__occupancy_limit_registers") : 1e9);
  pr.line("CTAs per SM", std::to_string(p.blocks_per_sm) + " predicted (" + p.limiter + "); ncu's smem/register limit " +
                             (lim < 1e9 ? num(lim, 0) : std::string("-")));
  pr.line("stages", std::to_string(p.stages) + " in the ring; the planner's minimum " + std::to_string(p.min_stages_l2) +
                        " (operands from L2) to " + std::to_string(p.min_stages) + " (from DRAM)");
  pr.line("tiles", std::to_string(p.k_tiles) + " k_tiles per output tile" +
                      (p.persistent ? "; persistent (the ring runs on across tiles)" : "; one tile per CTA (the ring fills and drains per tile)"));
  pr.line("bytes", report::kib(p.ideal_bytes) + " the GEMM needs; DRAM read " + report::kib(c.get("dram__bytes_read.sum")));
  if (p.smem_per_clk_at_peak > 0) {
    // If every counted byte costs its share of the SM's 128 B/clk, the tensor pipe is busy at most 128 / that
    // (a count, not a proven bound: docs/planner.md 4b).
    const double cap = std::min(1.0, plan::kSmemBytesPerClock / p.smem_per_clk_at_peak);
    pr.line("operand bytes", num(p.smem_per_clk_at_peak, 0) + " B/clk of shared memory at the MMA peak against the SM's " +
                                 std::to_string(plan::kSmemBytesPerClock) + ": by this count the tensor pipe is at most " +
                                 num(100 * cap, 0) + "% busy (measured " + num(tensor_busy(c), 1) + "%)");
    pr.data("prediction.smem_per_clk_at_peak", p.smem_per_clk_at_peak).data("prediction.tensor_cap", cap);
  }
  return doc;
}

}  // namespace pipegemm::diagnose
