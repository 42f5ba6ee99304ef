// `pipegemm bench`: selected variants and their cuBLAS peers, one run, same rotated buffers;
// --ladder: one variant per rung and cuBLAS (seed 004 step 6).
#include <iostream>
#include <memory>

#include "cli.hpp"

namespace pipegemm::cli {

int run_bench(const BenchRequest& r, bool json) {
  BenchRuns runs;
  Status s = pipegemm::run_bench(r, &runs);
  if (!s.ok()) return fail(s);
  emit(document(runs), json);  // a run that could not complete: the runs before it, then why
  if (!runs.error.ok()) std::cerr << "pipegemm bench: " << runs.error.message << "\n";
  return runs.error.ok() && !runs.failures ? kOk : kFail;
}

void add_bench(CLI::App& app, int* rc) {
  auto o = std::make_shared<BenchRequest>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("bench", "time variants beside cuBLAS (same run, same buffers)");
  add_problem_options(cmd, &o->problem, "81920x256x256", false);
  add_selection_options(cmd, &o->selection);
  cmd->add_option("--reps", o->run.reps, "timed launches per variant")->capture_default_str();
  cmd->add_option("--warmup", o->run.warmup, "warm-up launches per variant")->capture_default_str();
  cmd->add_option("--rounds", o->run.rounds, "interleaved rounds")->capture_default_str();
  cmd->add_option("--idle-ms", o->run.idle_ms,
                  "device idle before each variant's block of launches, every round, so each starts "
                  "from the same power state (0: back to back, sustained)")
      ->capture_default_str();
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->add_flag("--ladder", o->ladder,
                "the pipelining ladder for --dtype (default f16): one variant per rung + cuBLAS, "
                "speedup over k1 (seed 004 step 6)");
  cmd->callback([o, json, rc] { *rc = run_bench(*o, *json); });
}

}  // namespace pipegemm::cli
