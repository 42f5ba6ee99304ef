// diagnose.hpp: the counters ncu is asked for, reading its raw CSV, finding and calling it.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "pipegemm_tools/diagnose.hpp"
#include "pipegemm_tools/toolchain.hpp"

namespace pipegemm::diagnose {
namespace {

// One CSV record (RFC 4180: quoted fields, "" inside quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (ch == '"') quoted = false;
      else cur += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(cur), cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

// "1,234,567.5" -> 1234567.5; "n/a", "" -> not a number.
bool parse_number(std::string s, double* v) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  const std::string_view t = toolchain::trim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  const std::string u(t);
  *v = std::strtod(u.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

// The warps' stall reasons (average warps stalled per issued instruction), and those that are the
// pipeline's waits: a load's result (long scoreboard: cp.async / LDG waits), a CTA or named
// barrier, a fixed-latency wait, a sleeping try_wait (mbarrier).
const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> r = {"long_scoreboard", "barrier",        "wait",       "sleeping",
                                             "short_scoreboard", "mio_throttle",  "math_pipe_throttle",
                                             "lg_throttle",     "not_selected",   "selected",   "dispatch_stall",
                                             "no_instruction",  "membar",         "branch_resolving"};
  return r;
}
const std::vector<std::string>& pipeline_wait_reasons() {
  static const std::vector<std::string> r = {"long_scoreboard", "barrier", "wait", "sleeping"};
  return r;
}
std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {
        "gpu__time_duration.sum",
        "launch__grid_size",
        "launch__block_size",
        "launch__registers_per_thread",
        "launch__shared_mem_per_block_dynamic",
        "launch__occupancy_limit_shared_mem",
        "launch__occupancy_limit_registers",
        "launch__occupancy_limit_warps",
        "launch__occupancy_limit_blocks",
        "sm__maximum_warps_per_active_cycle_pct",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        // The bytes LDG itself asked for: its coalescing matters only if it carries the operands
        // (stream-K's flag polls are 4-byte LDGs beside a TMA mainloop).
        "smsp__sass_data_bytes_mem_global_op_ld.sum",
        // cp.async (LDGSTS) on its own, around L1 (.cg, the ladder's) or through it (.ca): the
        // LDG-only one above reads 0 for these kernels (H200: k4's .cg reads 100%). The L1
        // sectors and requests of op_ld count LDGSTS too (H200: requests = LDGSTS executed).
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_bypass.pct",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_access.pct",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    };
    for (const std::string& r : stall_reasons()) n.push_back(stall_metric(r));
    return n;
  }();
  return names;
}

Status parse_ncu_csv(const std::string& text, const std::string& symbol, Counters* out) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  int name_col = -1;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;  // the application's output, ==PROF== lines
    std::vector<std::string> f = csv_fields(line);
    if (header.empty()) {
      if (f[0] != "ID") continue;
      header = f;
      for (size_t i = 0; i < f.size(); ++i)
        if (f[i] == "Kernel Name") name_col = int(i);
      if (name_col < 0) return Status::error(StatusCode::invalid_argument, "ncu CSV: the header has no \"Kernel Name\" column");
      continue;
    }
    double id = 0;
    if (!parse_number(f[0], &id)) continue;  // the units row
    ++rows;
    if (int(f.size()) <= name_col) continue;
    if (!symbol.empty() && !toolchain::symbol_matches(f[size_t(name_col)], symbol)) continue;
    Counters c;
    c.kernel = f[size_t(name_col)];
    for (size_t i = 0; i < f.size() && i < header.size(); ++i) {
      double v = 0;
      if (header[i].find("__") != std::string::npos && parse_number(f[i], &v)) c.values[header[i]] = v;
    }
    *out = std::move(c);
    return Status::success();
  }
  if (header.empty())
    return Status::error(StatusCode::invalid_argument,
                         "no ncu CSV in the text (expected `ncu --csv --page raw` output: a header row starting \"ID\")");
  return Status::error(StatusCode::invalid_argument,
                       "ncu CSV: " + std::to_string(rows) + " launch(es), none of a kernel matching '" + symbol +
                           "' (did the variant run? is --kernel the one profiled?)");
}

bool locate_ncu(const std::string& hint, std::string* path, std::string* err) {
  if (!hint.empty()) {
    if (toolchain::executable(hint)) return *path = hint, true;
    *err = "--ncu " + hint + " is not an executable file";
    return false;
  }
  if (const char* env = std::getenv("PIPEGEMM_NCU"); env && *env) {
    if (toolchain::executable(env)) return *path = env, true;
    *err = std::string("PIPEGEMM_NCU=") + env + " is not an executable file";
    return false;
  }
  for (const std::string& c : toolchain::cuda_tool_candidates("ncu"))
    if (toolchain::executable(c)) return *path = c, true;
  *err = "Nsight Compute (ncu) not found (tried PATH, $CUDA_HOME/bin and /usr/local/cuda/bin); install the CUDA "
         "toolkit's nsight-compute, or give --ncu PATH (or $PIPEGEMM_NCU)";
  return false;
}

std::vector<std::string> ncu_args(const std::string& kernel_regex, const std::string& exe,
                                  const std::vector<std::string>& child_args) {
  std::string metrics;
  for (const std::string& m : metric_names()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> a = {"--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
                                "--kernel-name-base", "mangled", "--print-kernel-base", "mangled",
                                "--kernel-name", "regex:" + kernel_regex, "--launch-count", "1", "--metrics", metrics, exe};
  a.insert(a.end(), child_args.begin(), child_args.end());
  return a;
}

std::string kernel_pattern(const Variant& v) { return v.symbol.substr(0, v.symbol.find('*')); }

std::string kernel_regex(const Variant& v) { return kernel_pattern(v) + ".*"; }  // symbols are [A-Za-z0-9_*]

}  // namespace pipegemm::diagnose
