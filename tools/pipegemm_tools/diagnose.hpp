// `pipegemm diagnose`: why a variant is as fast as it is on a shape, from Nsight Compute's counters
// of one launch (seed 001, Q3): DRAM bytes against those the GEMM needs, L1 sectors per request
// and the bytes of each sector used (coalescing), the warps' stall reasons (long scoreboard, the
// pipeline's barriers and waits), achieved against theoretical occupancy, tensor-pipe and DRAM
// utilisation, shared-memory bank conflicts, registers -- classified into one verdict, with the
// planner's prediction (blocks per SM, minimum stages) beside the measured numbers.
//
// The counters come from `ncu --csv --page raw` (run here on one launch of the variant, inside
// `pipegemm bench`), or from a stored CSV of that form (--from-csv), so a run can be re-read and
// the classifier is tested without a GPU.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/report.hpp"

namespace pipegemm::diagnose {

// The ncu metrics diagnose asks for (--metrics), by name.
const std::vector<std::string>& metric_names();
// The warps' stall reasons it reads, those of them that are the pipeline's waits (long scoreboard,
// barrier, wait, sleeping), and a reason's metric (average warps stalled per issued instruction).
const std::vector<std::string>& stall_reasons();
const std::vector<std::string>& pipeline_wait_reasons();
std::string stall_metric(const std::string& reason);

// One profiled launch: its kernel's name and every metric ncu reported for it.
struct Counters {
  std::string kernel;
  std::map<std::string, double> values;
  double get(const std::string& metric) const {  // NaN when not reported
    auto it = values.find(metric);
    return it == values.end() ? std::nan("") : it->second;
  }
};

// Reads `ncu --csv --page raw` text: the header row (first field "ID", a "Kernel Name" column),
// an optional units row, one row per launch; other lines (the application's output, ==PROF==
// lines) are skipped. Numbers may carry thousands separators; "n/a" is not reported. Takes the
// first launch whose (mangled) kernel name matches `symbol` (toolchain::symbol_matches: a
// substring, '*' matching anything; any launch when empty) -- diagnose passes kernel_pattern(v),
// the form ncu was told to profile. Refuses text without a header or without a matching launch,
// saying which.
Status parse_ncu_csv(const std::string& text, const std::string& symbol, Counters* out);

enum class Verdict {
  compute_bound,       // the tensor pipe is busy
  memory_bound,        // DRAM near its peak with coalesced loads: the bytes set the time
  uncoalesced,         // most of each loaded sector unused: sectors per request high
  stage_starvation,    // coalesced loads, warps waiting on the pipeline (barrier / scoreboard)
  occupancy_collapse,  // one CTA per SM by smem or registers, latency stalls, little achieved occupancy
  latency_bound,       // too little work: a small grid, a launch of a few microseconds, or tiles
                       // so short in K that filling and draining the ring is most of each
  unclear,             // none of the rules holds: the numbers are shown, no verdict forced
};
const char* to_string(Verdict v);

// What the planner and the problem predict, beside what ncu measured.
struct Prediction {
  std::string variant;
  int sm_count = 0;
  int blocks_per_sm = 0;          // plan::occupancy with ncu's registers per thread
  int blocks_one_stage_less = 0;  //   the same with one stage fewer: more = past an occupancy cliff
  std::string limiter;            // what limits blocks per SM
  int stages = 0;                 // the variant's ring
  int min_stages = 0;             // plan::estimate_stages: operands from DRAM (worst case)
  int min_stages_l2 = 0;          //   operands from L2 (latency only)
  double ideal_bytes = 0;         // A and B read once, D written once (C read once when used)
  int k_tiles = 0;                // per output tile: ceil(K / BK)
  bool persistent = false;        // one CTA walks tiles (TileOrder::persistent): the ring never drains between them
  double smem_per_clk_at_peak = 0;  // plan::byte_budget: shared-memory bytes per clock its MMAs need at their
                                    // peak, against the SM's 128 (0: its operands are not in smem)
};

// One rule's number: what was measured, against which threshold, and whether it decided.
struct Evidence {
  std::string what, metric;  // "tensor pipe busy", the ncu metric (or "derived")
  double value = std::nan("");
  std::string unit;          // "%", "x", "us", ""
  std::string rule;          // "compute-bound at >= 60%"
  bool decided = false;
};

struct Diagnosis {
  Verdict verdict = Verdict::unclear;
  std::string why;                 // one sentence: the deciding numbers
  std::vector<Evidence> evidence;  // every number the rules read, in the order they were tried
};

// The rules, in order (the first that holds is the verdict; docs/diagnose.md says why):
//   latency_bound       grid < half the SMs, or the launch < 5 us
//   uncoalesced         LDG (or LDGSTS) bytes used per sector in (0, 50%) -- 0 means no such
//                       load was measured; LDG's counts only where LDG asks for >= 5% of the
//                       GEMM's bytes -- or more than 16 L1 sectors per global load request
//                       (LDG and LDGSTS): no coalesced warp access of any vector width needs more
//   compute_bound       tensor pipe >= 60% busy
//   memory_bound        DRAM throughput >= 60% of peak
//   latency_bound       short K: not persistent and k_tiles <= 4 x (stages - 1), i.e. filling
//                       and draining the ring is at least half of every tile's mainloop
//   occupancy_collapse  past a cliff: one stage fewer would fit more CTAs per SM (the planner),
//                       achieved occupancy < 25%, and the pipeline's waits (long scoreboard +
//                       barrier + wait + sleeping) >= 40% of the warps' stall cycles
//   stage_starvation    coalesced loads and those waits >= 40%
// Beside them: the warps' top 3 stall reasons, each as its share of all stalls.
Diagnosis classify(const Counters& c, const Prediction& p);

// The report: the verdict and why, the evidence table, the prediction beside ncu's numbers.
report::Document diagnosis_document(const Counters& c, const Prediction& p, const Diagnosis& d,
                                    const std::string& source);

// Finds ncu: `hint` (an explicit path: an error when not executable), else $PIPEGEMM_NCU, PATH,
// $CUDA_HOME/bin, /usr/local/cuda/bin. On failure *err says where it looked.
bool locate_ncu(const std::string& hint, std::string* path, std::string* err);

// ncu's arguments that profile the first launch of a kernel whose mangled name matches
// `kernel_regex` in `exe child_args...`: --clock-control none (the GPU's own clocks, as bench
// sees them), --csv --page raw with mangled kernel names, the metrics above.
std::vector<std::string> ncu_args(const std::string& kernel_regex, const std::string& exe,
                                  const std::vector<std::string>& child_args);

// What ncu profiles of a variant: its family's kernel template, the part of Variant::symbol
// before the first '*' ("k5_ws_tma_wgmma_kernel"; a ladder symbol, the name tag, has none), since
// a launcher may run another instantiation than the registered one (k5 on K <= 512 launches its
// short-K config). The report prints the mangled name that ran.
std::string kernel_pattern(const Variant& v);
// ncu's --kernel-name regex of a variant: kernel_pattern, then anything.
std::string kernel_regex(const Variant& v);

}  // namespace pipegemm::diagnose
