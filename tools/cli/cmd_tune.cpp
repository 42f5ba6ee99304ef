// `pipegemm tune`: time every candidate of each shape, write the fastest to the tune cache.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "pipegemm_tools/tune.hpp"

namespace pipegemm::cli {

void add_tune(CLI::App& app, int* rc) {
  auto o = std::make_shared<TuneRequest>();
  auto json = std::make_shared<bool>(false);
  o->run.reps = 40;
  o->run.rounds = 2;
  o->run.warmup = 5;
  o->run.max_ms_per_variant = 400;
  auto* cmd = app.add_subcommand("tune", "time the candidates of each shape (cuBLAS included, with cuBLASLt's "
                                         "algorithm) and write the fastest to a tune table: load it with "
                                         "load_choices() / pipegemm.load_choices() or $PIPEGEMM_TUNE_CACHE");
  add_problem_options(cmd, &o->problem, "4096x4096x4096", false);
  cmd->get_option("--shape")->description("MxNxK, each dimension N or start:stop:step (as bench)");
  cmd->add_option("--suite", o->suite, "a suite file (bench/suites/*.txt)")->excludes("--shape");
  cmd->add_option("--output", o->output,
                  "the table file (default $XDG_CACHE_HOME or ~/.cache: pipegemm/tune.json); entries are "
                  "added to what it holds");
  auto repick = std::make_shared<bool>(false);
  cmd->add_flag("--force", o->force, "re-time shape buckets already in the file");
  cmd->add_flag("--repick", *repick, "choose again from the timings the file holds, by today's rule (no GPU, nothing "
                                     "re-timed)")
      ->excludes("--suite")
      ->excludes("--force");
  auto replay = std::make_shared<bool>(false);
  cmd->add_flag("--replay", *replay, "auto on shapes it has not seen: each entry of the file left out in turn, auto "
                                     "chooses from the rest, beside the cost model alone (no GPU)")
      ->excludes("--suite")
      ->excludes("--force")
      ->excludes("--repick");
  auto targets = std::make_shared<std::string>();
  cmd->add_option("--targets", *targets, "with --replay: this table's shapes and timings, auto choosing from the whole "
                                         "--output table (a held-out suite's tune)")
      ->needs("--replay");
  cmd->add_option("--prune", o->prune, "do not time candidates the cost model puts above this multiple of our fastest "
                                       "kernel (0: time all; cuBLAS is always timed; nothing is pruned under 30 us)")
      ->capture_default_str();
  cmd->add_option("--reps", o->run.reps, "timed launches per candidate")->capture_default_str();
  cmd->add_option("--warmup", o->run.warmup, "warm-up launches per candidate")->capture_default_str();
  cmd->add_option("--rounds", o->run.rounds, "interleaved rounds")->capture_default_str();
  cmd->add_option("--idle-ms", o->run.idle_ms, "device idle before each candidate's block (0: back to back)")
      ->capture_default_str();
  cmd->add_option("--max-ms-per-variant", o->run.max_ms_per_variant,
                  "fewer launches (>= 5 per round) for a candidate whose block would take longer (0: off)")
      ->capture_default_str();
  cmd->add_flag("--json", *json, "machine-readable output");
  o->progress = [](int i, int n, const std::string& shape, double s) {
    std::fprintf(stderr, "tune [%d/%d] %s  (%.0f s)\n", i, n, shape.c_str(), s);
  };
  cmd->callback([o, json, rc, repick, replay, targets] {
    if (*replay) {
      ReplayReport rep;
      Status s = replay_tune_table(o->output.empty() ? default_tune_output() : o->output, *targets, &rep);
      if (!s.ok()) {
        *rc = fail(s);
        return;
      }
      emit(document(rep), *json);
      *rc = kOk;
      return;
    }
    if (*repick) {
      std::vector<std::string> changed;
      const std::string path = o->output.empty() ? default_tune_output() : o->output;
      Status s = repick_tune_table(path, &changed);
      if (!s.ok()) {
        *rc = fail(s);
        return;
      }
      for (const std::string& c : changed) std::printf("repick %s\n", c.c_str());
      std::printf("%zu entr%s of %s chose again\n", changed.size(), changed.size() == 1 ? "y" : "ies", path.c_str());
      *rc = kOk;
      return;
    }
    TuneReport rep;
    Status s = run_tune(*o, &rep);
    if (!s.ok()) {
      *rc = fail(s);
      return;
    }
    emit(document(rep), *json);
    *rc = rep.failed ? kFail : kOk;
  });
}

}  // namespace pipegemm::cli
