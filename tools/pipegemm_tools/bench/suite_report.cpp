// The report of a bench sweep (a suite file or shape ranges): the environment once, one results
// table of every (shape, variant), then each kernel's geometric mean and worst ratio against the
// best cuBLAS peer of its types, and what each semantics costs against the plain run of its kernel.
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

report::Document sweep_document(const BenchRuns& r) {
  using report::Cell;
  using report::Show;
  using report::fixed;
  report::Document d;
  const std::string what = r.suite.empty() ? "range" : "suite " + r.suite;
  const std::string idle = r.run.idle_ms > 0 ? ", " + std::to_string(r.run.idle_ms) + " ms idle before each block" : "";
  d.title = "bench " + what + " on " + r.device + " (sm_" + std::to_string(r.sm) + ", " + std::to_string(r.sm_count) +
            " SMs, L2 " + std::to_string(r.l2_bytes / (1024 * 1024)) + " MB): " + std::to_string(r.shapes) +
            " shapes; median of " + std::to_string(r.run.reps) + " launches after " + std::to_string(r.run.warmup) +
            " warm-up, " + std::to_string(r.run.rounds) + " interleaved rounds" + idle;
  const BenchEnv& e = r.env;
  report::Section& head = d.section("", false);
  head.line("software", "driver " + e.driver + ", CUDA runtime " + e.cuda_runtime + ", cuBLAS " + e.cublas +
                            ", pipegemm " + e.pipegemm);
  head.line("clock", "SM clock (max) " + std::to_string(e.sm_clock_mhz) + " MHz;  " + e.date);
  if (!r.command.empty()) head.line("command", r.command).data("command", r.command);
  head.data("suite", r.suite).data("shapes", r.shapes).data("device", r.device).data("sm", r.sm);
  head.data("environment.gpu", e.gpu).data("environment.driver", e.driver);
  head.data("environment.cuda_runtime", e.cuda_runtime).data("environment.cublas", e.cublas);
  head.data("environment.pipegemm", e.pipegemm).data("environment.sm_clock_mhz", e.sm_clock_mhz);
  head.data("environment.date", e.date);
  head.data("options.reps", r.run.reps).data("options.warmup", r.run.warmup);
  head.data("options.rounds", r.run.rounds).data("options.idle_ms", r.run.idle_ms);

  report::Table& t = d.section().table(
      "results", "",
      {{"shape", "shape"}, {"m", "", Show::data}, {"n", "", Show::data}, {"k", "", Show::data},
       {"", "types", Show::text}, {"a_type", "", Show::data}, {"b_type", "", Show::data},
       {"acc_type", "", Show::data}, {"d_type", "", Show::data}, {"a_layout", "", Show::data},
       {"b_layout", "", Show::data}, {"d_layout", "", Show::data}, {"variant", "variant"}, {"chose", "chose"},
       {"ms_median", "ms(med)"}, {"ms_min", "", Show::data}, {"ms_max", "", Show::data}, {"ms_stdev", "stdev"},
       {"samples", "", Show::data}, {"launches_per_sample", "", Show::data}, {"tflops", "TFLOPS"}, {"gbps", "GB/s"},
       {"copy_gbps", "", Show::data}, {"pct_of_copy", "%copyBW"}, {"pct_of_cublas", "%cuBLAS"},
       {"peer", "best cuBLAS"}, {"ok", "", Show::data}, {"message", "", Show::data}, {"why", "", Show::data},
       {"held_out", "", Show::data}});
  for (report::Column& c : semantic_columns()) t.columns.push_back(c);
  // The semantics as a text column only when some run has them: a plain sweep's table is unchanged.
  bool any_semantics = false;
  for (const BenchReport& b : r.runs) any_semantics |= !semantics_text(b.problem, b.c_in_place).empty();
  if (any_semantics) t.columns.push_back({"", "semantics", Show::text});
  for (const BenchReport& b : r.runs) {
    const Problem& p = b.problem;
    const std::vector<Cell> sem_cells = semantic_cells(p, b.c_in_place);
    const std::string sem = semantics_text(p, b.c_in_place);
    for (const BenchResult& x : b.results) {
      const Variant* v = find_variant(x.chose.empty() ? x.variant : x.chose);
      const DType acc = v ? v->acc_type : p.acc_type;
      const bool ok = x.status.ok();
      const std::string no = "-";
      std::vector<Cell> cells = {p.shape_string(), p.m, p.n, p.k,
             report::text_cell(std::string(to_string(p.a_type)) + "/" + to_string(acc) + "/" + to_string(p.d_type)),
             to_string(p.a_type), to_string(p.b_type), to_string(acc), to_string(p.d_type), to_string(p.a_layout),
             to_string(p.b_layout), to_string(p.d_layout), x.variant, Cell(x.chose, x.chose.empty() ? "" : x.chose),
             Cell(x.ms_median, ok ? fixed(x.ms_median, 4) : no), x.ms_min, x.ms_max,
             Cell(x.ms_stdev, ok ? fixed(x.ms_stdev, 4) : no), x.samples, x.launches_per_sample, Cell(x.tflops, ok ? fixed(x.tflops, 1) : no),
             Cell(x.gbps, ok ? fixed(x.gbps, 0) : no), b.copy_gbps,
             // of the device-to-device copy measured in the same run, before the shape's variants
             Cell(pct_of_copy(b, x), ok && b.copy_gbps > 0 ? fixed(pct_of_copy(b, x), 1) : no),
             Cell(x.pct_of_peer, ok && !x.peer.empty() ? fixed(x.pct_of_peer, 1) : no),
             Cell(x.peer, ok ? x.peer : x.status.message), ok, x.status.message, x.why, x.held_out};
      cells.insert(cells.end(), sem_cells.begin(), sem_cells.end());
      if (any_semantics) cells.push_back(report::text_cell(sem.empty() ? "-" : sem));
      t.add(std::move(cells));
    }
  }
  // The copy of each shape's bytes, when timed (--same-bytes-copy): the memory roofline at that size.
  bool any_copy = false;
  for (const BenchReport& b : r.runs) any_copy |= b.same_bytes_copy_ms > 0;
  if (any_copy) {
    report::Table& c = d.section().table(
        "same_bytes_copy", "a device copy of each shape's bytes (half read, half written), timed like the kernels:",
        {{"shape", "shape"}, {"mbytes", "MB"}, {"ms_median", "ms(med)"}, {"gbps", "GB/s"}, {"pct_of_copy", "%copyBW"},
         {"ours", "ours (auto, else fastest)"}, {"ours_pct", "its % of this copy"}, {"peer", "best cuBLAS"},
         {"peer_pct", "its % of this copy"}});
    for (const BenchReport& b : r.runs) {
      if (b.same_bytes_copy_ms <= 0) continue;
      const double gbps = b.set_bytes / (b.same_bytes_copy_ms * 1e-3) / 1e9;
      const double pct = b.copy_gbps > 0 ? 100.0 * gbps / b.copy_gbps : 0.0;
      // The kernels beside this roofline: auto's run (else our fastest) and the fastest peer.
      const BenchResult *ours = nullptr, *peer = nullptr;
      bool auto_ran = false;
      for (const BenchResult& x : b.results) {
        if (!x.status.ok() || x.ms_median <= 0) continue;
        const Variant* v = find_variant(x.variant);
        if (v && v->is_peer()) {
          if (!peer || x.ms_median < peer->ms_median) peer = &x;
        } else if (x.variant == "auto") {
          ours = &x, auto_ran = true;
        } else if (!auto_ran && (!ours || x.ms_median < ours->ms_median)) {
          ours = &x;
        }
      }
      auto share = [&](const BenchResult* x) {
        return x ? Cell(100.0 * b.same_bytes_copy_ms / x->ms_median, fixed(100.0 * b.same_bytes_copy_ms / x->ms_median, 1))
                 : Cell(nullptr, "-");
      };
      c.add({b.problem.shape_string(), Cell(b.set_bytes / 1e6, fixed(b.set_bytes / 1e6, 1)),
             Cell(b.same_bytes_copy_ms, fixed(b.same_bytes_copy_ms, 4)), Cell(gbps, fixed(gbps, 0)),
             Cell(pct, b.copy_gbps > 0 ? fixed(pct, 1) : "-"),
             Cell(ours ? ours->variant : "", ours ? (ours->chose.empty() ? ours->variant : "auto: " + ours->chose) : "-"),
             share(ours), Cell(peer ? peer->variant : "", peer ? peer->variant : "-"), share(peer)});
    }
  }
  report::Table& s = d.section().table(
      "summary", "per kernel, against the faster cuBLAS peer of its types (ratio = %cuBLAS / 100):",
      {{"variant", "kernel"}, {"shapes", "shapes"}, {"geomean", "geomean"}, {"worst", "worst"},
       {"worst_shape", "worst at"}, {"worst_peer", "vs"}});
  for (const KernelSummary& k : r.summary) {
    const bool any = k.shapes > 0;
    s.add({k.variant, k.shapes, any ? Cell(k.geomean, fixed(k.geomean, 3)) : Cell(nullptr, "-"),
           any ? Cell(k.worst, fixed(k.worst, 3)) : Cell(nullptr, "-"), Cell(k.worst_shape, any ? k.worst_shape : "-"),
           Cell(k.worst_peer, any ? k.worst_peer : "-")});
  }
  if (r.summary.empty()) s.notes.push_back("(no kernel of ours in the selection)");
  if (!r.semantics_costs.empty()) {
    report::Table& c = d.section().table(
        "semantics_cost",
        "each run with semantics against the plain TN runs of its shape, types and kernel (time / their median; "
        "repeated lines: the median ratio, lowest and highest):",
        {{"variant", "kernel"}, {"shape", "shape"}, {"types", "A/D"}, {"semantics", "semantics"}, {"runs", "runs"},
         {"median", "x plain"}, {"lowest", "lowest"}, {"highest", "highest"}});
    for (const SemanticsCost& x : r.semantics_costs)
      c.add({x.variant, x.shape, x.types, x.semantics, x.runs, Cell(x.median, fixed(x.median, 3)),
             Cell(x.lowest, fixed(x.lowest, 3)), Cell(x.highest, fixed(x.highest, 3))});
  }
  const AutoSummary& a = r.auto_summary;
  if (a.shapes > 0) {
    report::Section& as = d.section("auto_vs_fastest", false);
    as.data("auto_vs_fastest.shapes", a.shapes).data("auto_vs_fastest.geomean", a.geomean);
    as.data("auto_vs_fastest.worst", a.worst).data("auto_vs_fastest.worst_shape", a.worst_shape);
    as.data("auto_vs_fastest.worst_fastest", a.worst_fastest).data("auto_vs_fastest.below_095", a.below_095);
    as.line("auto vs the fastest candidate", "geomean " + fixed(a.geomean, 3) + ", worst " + fixed(a.worst, 3) + " at " +
                                                 a.worst_shape + " (" + a.worst_fastest + " faster), " +
                                                 std::to_string(a.below_095) + " of " + std::to_string(a.shapes) +
                                                 " shapes under 0.95 (ratio = fastest / auto, same run)");
  }
  return d;
}

}  // namespace pipegemm
