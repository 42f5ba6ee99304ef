// `pipegemm tune`: for each shape (a suite, ranges, one --shape) and types, time the registered
// variants that accept it -- cuBLAS and cuBLASLt included -- after the cost model has pruned the
// hopeless, and write the fastest into the tune cache auto reads (pipegemm/introspect/dispatch.hpp), keyed
// by GPU, types, layouts and shape bucket. Resumable: a key already in the file is not timed
// again (--force re-times it); the file is rewritten after every shape.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

struct TuneRequest {
  ProblemRequest problem;  // --shape (ranges allowed) and the types
  std::string suite;       // or a suite file
  std::string output;      // "" = default_tune_output()
  bool force = false;      // re-time keys already in the file
  double prune = 3.0;      // skip candidates the model puts above prune x our fastest (0: time all)
  BenchOptions run;
  // Before each shape: index (1-based), count, the shape, seconds so far.
  std::function<void(int i, int n, const std::string& shape, double seconds)> progress;
};

struct TuneRow {
  std::string shape, types, bucket;
  std::string status;       // "timed", "cached" (key already in the file), "failed"
  std::string best, next;   // fastest and runner-up
  double best_us = 0, next_us = 0;
  std::string model_pick;   // what the cost model alone would have taken, and its measured time
  double model_pick_us = 0;
  int timed = 0, pruned = 0;
  std::string message;
};

struct TuneReport {
  std::string device, output;
  BenchEnv env;
  BenchOptions run;
  double prune = 0;
  std::vector<TuneRow> rows;
  int timed = 0, cached = 0, failed = 0;
  double seconds = 0;
};

// Candidates for p on dev: auto's (accepting_variants), cheapest first by the model, minus
// (prune > 0) those predicted above prune x our cheapest kernel, unless that is launch-bound, and
// a packed form with nothing to copy; cuBLAS is never pruned. `pruned` gets the names left out.
// c_in_place: a C the problem reads is D itself (else its own buffer). p may have a column-major D:
// the candidates are those of the call (as_called).
std::vector<const Variant*> tune_candidates(const Problem& p, const DeviceInfo& dev, double prune,
                                            std::vector<std::string>* pruned, bool c_in_place = false);

Status run_tune(const TuneRequest& r, TuneReport* out);
// "a/acc/d", e.g. "f16/f32/f16": a row's types in tune's and replay's reports.
std::string types_of(const Problem& p);
// `tune --repick`: pick_best applied again to the timings a table holds (after the rule changed;
// nothing is re-timed, no GPU). `changed` gets "shape types: old -> new" per entry it moved.
Status repick_tune_table(const std::string& path, std::vector<std::string>* changed);
report::Document document(const TuneReport& r);

// `tune --replay`: auto on shapes it has not seen, from the timings a table holds (no GPU). Each
// plain entry in turn is left out and auto chooses from the rest (its tuned neighbours, else the
// cost model), and the model alone chooses; both picks' times are read from the entry's timings.
struct ReplayRow {
  std::string shape, types;
  std::string fastest;       // the entry's fastest candidate, and its time
  double fastest_us = 0, peer_us = 0;  // peer: the faster cuBLAS peer (0: none timed)
  std::string pick, source;  // auto without the entry: its pick and step ("neighbours", "model")
  double pick_us = 0;        // 0: the pick was not timed there (pruned)
  std::string model;         // the cost model alone
  double model_us = 0;
};
struct ReplayReport {
  std::string path, targets, gpu;
  std::vector<ReplayRow> rows;
  int skipped = 0;           // entries with a batch or an epilogue, or of a GPU not in the table
};
// targets: another table's entries as the shapes (their timings the truth), `path` whole as what
// auto reads: how a table serves shapes measured apart from it (e.g. a held-out suite).
Status replay_tune_table(const std::string& path, const std::string& targets, ReplayReport* out);
report::Document document(const ReplayReport& r);

}  // namespace pipegemm
