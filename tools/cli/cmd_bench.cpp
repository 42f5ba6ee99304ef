// `pipegemm bench`: selected variants and their cuBLAS peers, one run, same rotated buffers;
// --ladder: one variant per rung (k0 ... k5) and cuBLAS; --suite / shape ranges: many
// shapes, a results table and each kernel's geomean and worst against the best cuBLAS.
#include <unistd.h>  // environ

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli.hpp"

namespace pipegemm::cli {

namespace {

// The PIPEGEMM_* variables of this process, sorted: the report's command repeats them.
std::vector<std::pair<std::string, std::string>> pipegemm_environment() {
  std::vector<std::pair<std::string, std::string>> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (kv.rfind("PIPEGEMM_", 0) == 0 && eq != std::string::npos) env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  std::sort(env.begin(), env.end());
  return env;
}

// --output FILE: the format from its extension (.csv, .json, .md).
bool output_format(const std::string& path, report::Format* f) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  return (ext == "csv" || ext == "json" || ext == "md") && report::parse_format(ext, f);
}

}  // namespace

int run_bench(const BenchRequest& r, bool json, const std::vector<std::string>& outputs) {
  std::vector<report::Format> formats;
  for (const std::string& output : outputs) {
    report::Format f = report::Format::text;
    if (!output_format(output, &f))
      return fail_usage("--output '" + output + "': the format comes from the extension (.csv, .json or .md)");
    formats.push_back(f);
  }
  BenchRuns runs;
  Status s = pipegemm::run_bench(r, &runs);
  if (!s.ok()) return fail(s);
  const report::Document d = document(runs);
  emit(d, json);  // a run that could not complete: the runs before it, then why
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::ofstream file(outputs[i]);
    if (!(file << report::render(d, formats[i])) || !file.flush()) {
      std::cerr << "pipegemm bench: cannot write '" << outputs[i] << "'\n";
      return kFail;
    }
  }
  if (!runs.error.ok()) std::cerr << "pipegemm bench: " << runs.error.message << "\n";
  return runs.error.ok() && !runs.failures ? kOk : kFail;
}

int run_bench(const BenchRequest& r, bool json) { return run_bench(r, json, {}); }

void add_bench(CLI::App& app, int* rc) {
  auto o = std::make_shared<BenchRequest>();
  auto json = std::make_shared<bool>(false);
  auto output = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("bench", "time variants (or auto) beside cuBLAS on a shape, shape ranges or a suite: "
                                          "same run, same rotated buffers; median time, TFLOPS and the ratio to the "
                                          "best cuBLAS");
  add_problem_options(cmd, &o->problem, "81920x256x256", false);
  cmd->get_option("--shape")
      ->description("problem size MxNxK (D = A(M,K) * B(N,K)^T); each dimension may be a range start:stop:step "
                    "(inclusive), several ranges make the cross product: 1024:8192:1024x4096x4096");
  cmd->add_option("--suite", o->suite,
                  "a suite file, one shape per line 'MxNxK [dtype]', '#' comments (bench/suites/*.txt)")
      ->excludes("--shape");
  add_selection_options(cmd, &o->selection);
  cmd->add_option("--reps", o->run.reps, "timed launches per variant")->capture_default_str();
  cmd->add_option("--warmup", o->run.warmup, "warm-up launches per variant")->capture_default_str();
  cmd->add_option("--rounds", o->run.rounds, "interleaved rounds")->capture_default_str();
  cmd->add_option("--idle-ms", o->run.idle_ms,
                  "device idle before each variant's block of launches, every round, so each starts "
                  "from the same power state (0: back to back, sustained)")
      ->capture_default_str();
  cmd->add_flag("--candidates", o->candidates,
                "with --kernel auto: also time every variant that accepts each shape (what auto chose among, "
                "cuBLAS included) and report auto against the fastest");
  cmd->add_option("--max-ms-per-variant", o->run.max_ms_per_variant,
                  "fewer timed launches (>= 5 per round) for a variant whose block would take longer (0: off)")
      ->capture_default_str();
  cmd->add_flag("--same-bytes-copy", o->run.same_bytes_copy,
                "also time a device copy that moves each shape's bytes (half read, half written) the same way: "
                "the roofline of that size, launch and ramp included");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->add_option("--output", *output, "also write the report to FILE.csv, FILE.json or FILE.md (repeat for several)");
  cmd->add_flag("--ladder", o->ladder,
                "the pipelining ladder for --dtype (default f16): one variant per rung (k0 simple ... k5 "
                "Hopper TMA + wgmma) and cuBLAS, each with its speedup over k1 (load, sync, compute, sync)");
  o->progress = [](int i, int n, const std::string& shape) {
    std::cerr << "[" << i << "/" << n << "] " << shape << " ...\n";
  };
  cmd->callback([o, json, output, rc] {
    o->command = command_line(raw_args(), pipegemm_environment());  // recorded in the report
    *rc = run_bench(*o, *json, *output);
  });
}

}  // namespace pipegemm::cli
