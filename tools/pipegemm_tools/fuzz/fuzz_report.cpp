// `pipegemm fuzz`: the report as a document (text: a summary, a per-type and a per-variant table,
// the reproducers; JSON: the same data).
#include "pipegemm_tools/fuzz.hpp"

namespace pipegemm::fuzz {

report::Document document(const FuzzReport& r) {
  using report::Cell;
  using report::fixed;
  const FuzzOptions& o = r.options;
  report::Document d;
  d.title = "fuzz on " + r.device + ": " + std::to_string(r.problems) + " problems, " + std::to_string(r.runs) +
            " runs, " + std::to_string(r.mismatch_count) + " mismatch(es) in " + fixed(r.seconds, 1) + " s";
  report::Section& head = d.section("", false);
  std::string types;
  for (DType t : o.dtypes) types += std::string(types.empty() ? "" : ",") + to_string(t);
  head.line("seed", std::to_string(o.seed)).data("seed", o.seed);
  head.line("types", types + ", " + std::to_string(o.count) + " problems each").data("count", o.count);
  head.data("device", r.device).data("problems", r.problems).data("runs", r.runs).data("refusals", r.refusals);
  head.data("skipped", r.skipped).data("mismatches", r.mismatch_count).data("seconds", r.seconds);
  head.data("max_dim", o.max_dim).data("peers", o.peers).data("guard", o.guard).data("plain_fraction", o.plain_fraction);
  head.line("refused / skipped", std::to_string(r.refusals) + " / " + std::to_string(r.skipped));
  for (const std::string& rule : r.rules) head.note("  " + rule);

  report::Section& per_type = d.section();
  report::Table& t = per_type.table("types", "", {{"dtype", "dtype"}, {"problems", "problems"}, {"runs", "runs"},
                                                  {"with_semantics", "semantics"},
                                                  {"cpu_refs", "CPU refs"}, {"cublas_refs", "cuBLAS refs"},
                                                  {"mismatches", "mismatches"}, {"seconds", "s"},
                                                  {"setup_s", "setup s"}, {"reference_s", "ref s"},
                                                  {"run_s", "run s"}, {"check_s", "check s"}});
  auto sec = [](double v) { return Cell(v, fixed(v, 1)); };
  for (const TypeSummary& x : r.types)
    t.add({to_string(x.in), x.problems, x.runs, x.with_semantics, x.cpu_refs, x.cublas_refs, x.mismatches, sec(x.seconds),
           sec(x.setup_s), sec(x.reference_s), sec(x.run_s), sec(x.check_s)});
  t.notes.push_back("semantics: problems beyond the plain TN GEMM (layouts, alpha/beta/C, bias, activation, batch); "
                    "setup: input streams and buffers; ref: CPU or cuBLAS references; run: poison, launch, "
                    "copy back; check: the host comparison");

  report::Section& per_variant = d.section();
  report::Table& v = per_variant.table("variants", "", {{"variant", "variant"}, {"runs", "runs"}, {"via_auto", "via auto"},
                                                        {"refused", "refused"}, {"skipped", "skipped"},
                                                        {"mismatches", "mismatches"}});
  for (const VariantCount& x : r.variants) v.add({x.name, x.runs, x.via_auto, x.refused, x.skipped, x.mismatches});
  v.notes.push_back("runs count each launch once; a variant's runs include those where auto chose it");

  report::Section& bad = d.section();
  report::Table& m = bad.table("mismatch_list", "", {{"variant", "variant"}, {"via_auto", "auto", report::Show::data},
                                                     {"what", "", report::Show::data}, {"reproducer", "reproducer"}});
  m.show = report::Show::data;  // text lists them below, one reproducer per line
  for (const FuzzMismatch& x : r.mismatches) {
    m.add({x.variant, x.via_auto, x.what, x.reproducer});
    bad.note("MISMATCH " + x.variant + (x.via_auto ? " (auto's choice)" : "") + ": " + x.what);
    bad.note("  " + x.reproducer);
  }
  if (r.mismatch_count > int64_t(r.mismatches.size()))
    bad.note("(" + std::to_string(r.mismatch_count - int64_t(r.mismatches.size())) + " more not listed)");
  if (!r.error.ok()) bad.note("STOPPED: " + r.error.message).data("error", r.error.message);
  bad.note(r.mismatch_count || !r.error.ok() ? "FAILED" : "PASS: 0 mismatches");
  return d;
}

}  // namespace pipegemm::fuzz
