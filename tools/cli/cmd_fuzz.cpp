// `pipegemm fuzz`: random problems through auto and every variant that takes them; progress on
// stderr every few seconds, the summary on stdout, a reproducer line per mismatch.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "pipegemm_tools/fuzz.hpp"

namespace pipegemm::cli {
namespace {

struct FuzzFlags {
  fuzz::FuzzOptions opt;
  std::vector<std::string> dtypes;
  bool json = false;
  double progress_s = 5;
};

int run_fuzz_cmd(FuzzFlags f) {
  Status s = fuzz::parse_dtypes(f.dtypes, &f.opt.dtypes);
  if (!s.ok()) return fail(s);
  auto last = std::chrono::steady_clock::now();
  auto progress = [&](const fuzz::FuzzProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (p.done != p.total && std::chrono::duration<double>(now - last).count() < f.progress_s) return;
    last = now;
    std::fprintf(stderr, "fuzz %s: %d/%d problems, %lld runs, %lld mismatch(es), %.1f s\n", to_string(p.in), p.done,
                 p.total, (long long)p.runs, (long long)p.mismatches, p.seconds);
  };
  fuzz::FuzzReport rep;
  if (!(s = fuzz::run_fuzz(f.opt, &rep, progress)).ok()) return fail(s);
  emit(fuzz::document(rep), f.json);
  return rep.mismatch_count || !rep.error.ok() ? kFail : kOk;
}

}  // namespace

void add_fuzz(CLI::App& app, int* rc) {
  auto f = std::make_shared<FuzzFlags>();
  auto* cmd = app.add_subcommand("fuzz", "random problems through auto and every variant that takes them, "
                                         "every element compared; a reproducer per mismatch");
  cmd->add_option("--count", f->opt.count, "problems per input type")->capture_default_str();
  cmd->add_option("--dtype", f->dtypes, "input types (f16, bf16, i8, f32; comma list or repeated; default all), "
                                        "each with all its accumulation/output types");
  cmd->add_option("--seed", f->opt.seed, "seed of the problems and the inputs (default: fresh, printed)");
  cmd->add_option("--max-dim", f->opt.max_dim, "largest M, N, K (log-uniform in [1, max-dim])")->capture_default_str();
  cmd->add_option("--plain-fraction", f->opt.plain_fraction,
                  "share of plain TN problems (the rest draw layouts, alpha/beta/C, bias, activation, batch)")
      ->capture_default_str();
  cmd->add_flag("--peers", f->opt.peers, "fuzz the cuBLAS entries too");
  cmd->add_flag("!--no-guard", f->opt.guard, "do not count writes into the offset / ldd padding around D");
  cmd->add_option("--progress", f->progress_s, "seconds between progress lines on stderr")->capture_default_str();
  cmd->add_flag("--json", f->json, "machine-readable output");
  cmd->callback([f, rc] { *rc = run_fuzz_cmd(*f); });
}

}  // namespace pipegemm::cli
