// `pipegemm bench` (and --ladder): the report of the runs (bench_run.cpp times them).
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

report::Document document(const BenchRuns& r) {
  using report::Cell;
  using report::Show;
  using report::fixed;
  if (r.sweep) return sweep_document(r);
  report::Document d;
  const std::string idle = r.run.idle_ms > 0 ? ", " + std::to_string(r.run.idle_ms) + " ms idle before each block" : "";
  const std::string in = to_string(r.types.in), acc = to_string(r.types.acc), out = to_string(r.types.out);
  if (r.ladder) {
    const BenchReport* x = r.runs.empty() ? nullptr : &r.runs[0];
    d.title = "ladder on " + r.device + " (sm_" + std::to_string(r.sm) + "): " +
              (x ? x->problem.shape_string() : std::string("-")) + ", " + in + " in, " + acc + " acc, " + out +
              " out; median of " + std::to_string(r.run.reps) + " launches, " + std::to_string(r.run.rounds) +
              " interleaved rounds, " + std::to_string(x ? x->buffer_sets : 0) + " rotated buffer sets" + idle;
  } else {
    d.title = "bench on " + r.device + " (sm_" + std::to_string(r.sm) + ", " + std::to_string(r.sm_count) + " SMs, L2 " +
              std::to_string(r.l2_bytes / (1024 * 1024)) + " MB); median of " + std::to_string(r.run.reps) +
              " launches after " + std::to_string(r.run.warmup) + " warm-up, " + std::to_string(r.run.rounds) +
              " interleaved rounds" + idle;
  }
  report::Section& head = d.section("", false);
  head.data("device", r.device).data("sm", r.sm).data("environment.driver", r.env.driver);
  head.data("environment.cuda_runtime", r.env.cuda_runtime).data("environment.cublas", r.env.cublas);
  head.data("environment.pipegemm", r.env.pipegemm).data("environment.sm_clock_mhz", r.env.sm_clock_mhz);
  head.data("environment.date", r.env.date);
  if (!r.command.empty()) head.line("command", r.command).data("command", r.command);
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const BenchReport& b = r.runs[i];
    const Problem& p = b.problem;
    const std::string at = r.ladder ? "ladder" : "runs." + std::to_string(i);
    report::Section& s = d.section("", !r.ladder);
    s.data(at + ".shape", p.shape_string()).data(at + ".buffer_sets", b.buffer_sets);
    s.data(at + ".set_bytes", b.set_bytes).data(at + ".copy_gbps", b.copy_gbps);
    const std::string sem = semantics_text(p, b.c_in_place);
    if (!sem.empty()) s.data(at + ".semantics", sem);
    const std::string title = r.ladder ? "" : p.shape_string() + "  " + to_string(p.a_type) + " in, " + to_string(p.d_type) +
                                                  " out;  " + (sem.empty() ? "" : sem + ";  ") +
                                                  std::to_string(b.buffer_sets) + " buffer sets x " +
                                                  fixed(b.set_bytes / 1e6, 1) + " MB rotated;  device copy " +
                                                  fixed(b.copy_gbps, 0) + " GB/s";
    // The ladder shows rung, speedup over k1 and mechanism; bench its bandwidth and peer. A keyless
    // column that is data-only appears nowhere: the other mode's.
    const bool L = r.ladder;
    const Show ladder_text = L ? Show::text : Show::data, bench_text = L ? Show::data : Show::text;
    const Show bench_all = L ? Show::data : Show::all;
    report::Table& t = s.table(
        at + ".results", title,
        {{"", "rung", ladder_text}, {"variant", "variant"}, {"ms_median", "ms(med)"}, {"tflops", "TFLOPS"},
         {"gbps", "GB/s", bench_all}, {"", "%copyBW", bench_text}, {"", "vs k1", ladder_text}, {"", "%cuBLAS", Show::text},
         {"peer", "peer (same types)", bench_all}, {"", "mechanism", ladder_text}, {"ok", "", Show::data},
         {"message", "", Show::data}, {"ms_min", "", Show::data}, {"ms_max", "", Show::data},
         {"samples", "", Show::data}, {"launches_per_sample", "", Show::data}, {"pct_of_cublas", "", Show::data},
         {"ms_stdev", "", Show::data}, {"chose", "", Show::data}, {"why", "", Show::data}, {"held_out", "", Show::data},
         {"d_layout", "", Show::data}});
    for (report::Column& c : semantic_columns()) t.columns.push_back(c);
    const std::vector<Cell> sem_cells = semantic_cells(p, b.c_in_place);
    const BenchResult* base = nullptr;  // k1: the load -> sync -> compute -> sync baseline of 004
    for (auto& x : b.results)
      if (const Variant* v = find_variant(x.variant); v && v->rung == 1 && x.status.ok()) base = &x;
    for (auto& x : b.results) {
      const Variant* v = find_variant(x.variant);
      const bool ok = x.status.ok();
      const std::string no = "-", msg = x.status.message;  // a failed run: dashes, its message last
      const std::string pct = !x.peer.empty() ? fixed(x.pct_of_peer, 1) : L && v && v->is_peer() ? "100.0" : no;
      const std::string name = x.chose.empty() ? x.variant : x.variant + " -> " + x.chose;
      std::vector<Cell> cells = {
          report::text_cell(v && !v->is_peer() ? "k" + std::to_string(v->rung) : "peer"), Cell(x.variant, name),
          Cell(x.ms_median, ok ? fixed(x.ms_median, 4) : no), Cell(x.tflops, ok ? fixed(x.tflops, 1) : no),
          Cell(x.gbps, ok ? fixed(x.gbps, 0) : no),
          report::text_cell(ok && b.copy_gbps > 0 ? fixed(pct_of_copy(b, x), 1) : no),
          report::text_cell(ok && base ? fixed(x.tflops / base->tflops, 2) + "x" : no),
          report::text_cell(ok ? pct : no), Cell(x.peer, ok ? x.peer : msg),
          report::text_cell(ok ? (v ? v->family : "") : msg), ok, msg, x.ms_min, x.ms_max, x.samples,
          x.launches_per_sample, x.pct_of_peer, x.ms_stdev, x.chose, x.why, x.held_out, to_string(p.d_layout)};
      cells.insert(cells.end(), sem_cells.begin(), sem_cells.end());
      t.add(std::move(cells));
      if (!x.why.empty()) t.notes.push_back("auto -> " + x.chose + ", " + x.why);
    }
  }
  return d;
}

}  // namespace pipegemm
