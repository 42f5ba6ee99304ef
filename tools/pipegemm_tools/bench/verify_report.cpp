// `pipegemm verify`: every selected variant against the CPU reference, every element compared;
// the run and its report.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "pipegemm_tools/npy.hpp"
#include "pipegemm/dispatch.hpp"
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

// Loads --a/--b: fixes the shape and the input type, returns the host inputs.
Status load_npy_inputs(ProblemRequest* r, HostInputs* in) {
  NpyMatrix a, b;
  // --dtype is what A must hold (bf16's <u2 / <V2 bits are read only when it says so).
  DType asked;
  const bool given = !r->types.in.empty() && parse_dtype(r->types.in, &asked);
  Status s = read_npy(r->a_npy, &a, given ? &asked : nullptr);
  if (!s.ok()) return bad(given && s.code == StatusCode::invalid_argument ? s.message + " (--dtype " + r->types.in + ")" : s.message);
  if (!(s = read_npy(r->b_npy, &b, &a.type)).ok()) return bad(s.message);
  if (a.cols != b.cols)
    return bad("A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " and B is " + std::to_string(b.rows) +
               "x" + std::to_string(b.cols) + ": B must be (N,K) with the same K as A (M,K)");
  if (a.rows == 0 || a.cols == 0 || b.rows == 0) return bad("empty matrix in --a/--b");
  r->shape = std::to_string(a.rows) + "x" + std::to_string(b.rows) + "x" + std::to_string(a.cols);
  r->lda = r->ldb = r->ldd = 0;
  r->types.in = to_string(a.type);
  in->A = std::move(a.data);
  in->B = std::move(b.data);
  in->seed = 0;
  return {};
}

std::string types_key(DType a, DType acc, DType d) {
  return std::string(to_string(a)) + "/" + to_string(acc) + "/" + to_string(d);
}

}  // namespace

Status run_verify(VerifyRequest r, VerifyReport* out) {
  ProblemRequest& pr = r.problem;
  Selection& sel = r.selection;
  HostInputs file_in;
  const bool from_files = !pr.a_npy.empty() || !pr.b_npy.empty();
  if (from_files && pr.offset)
    return Status::error(StatusCode::invalid_argument, "--offset applies to random inputs, not to --a/--b files");
  if (from_files) {
    if (pr.a_npy.empty() || pr.b_npy.empty()) return bad("--a and --b go together");
    Status s = load_npy_inputs(&pr, &file_in);
    if (!s.ok()) return s;
  }
  if (!pr.d_npy.empty()) {
    if (sel.kernels.empty()) sel.kernels = {"auto"};
    if (sel.kernels.size() != 1 || sel.kernels[0] == "all") return bad("--out needs exactly one --kernel (or 'auto')");
    sel.peers = false;  // D comes from that one variant
  }
  Types types;
  Status s = parse_types(pr.types, &types);
  if (!s.ok()) return s;
  // "auto" is resolved once the device is known.
  const bool want_auto = sel.kernels.size() == 1 && sel.kernels[0] == "auto";
  std::string auto_choice, auto_why;
  std::vector<const Variant*> vs;
  if (!want_auto && !(s = select_variants(sel, types, &vs)).ok()) return s;
  // A variant reads the files' bytes as its own input type: a kernel of another type is refused.
  if (from_files)
    for (const Variant* v : vs)  // the named ones: their peers (and "all") have the files' type
      if (std::find(sel.kernels.begin(), sel.kernels.end(), v->name) != sel.kernels.end() &&
          (v->a_type != types.in || v->b_type != types.in))
        return bad("kernel '" + v->name + "' takes " + to_string(v->a_type) + " inputs but " + pr.a_npy + " and " +
                   pr.b_npy + " hold " + to_string(types.in) + ": pick a " + to_string(types.in) +
                   " variant (`pipegemm list`) or --kernel auto");
  // The shape before the GPU, so bad input is refused everywhere alike.
  Problem p;
  if (!(s = problem_for(pr, Variant{}, &p)).ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present)
    return Status::error(StatusCode::no_device, "pipegemm verify needs a CUDA GPU (sm_80 or newer): " + dev.why_absent);
  if (dev.sm < 80) return bad("device " + dev.name + " is sm_" + std::to_string(dev.sm) + "; pipegemm needs sm_80+");
  if (want_auto) {
    if (!(s = typed_problem(pr, types, &p)).ok()) return s;
    // The pointers the session will use: cudaMalloc's 256-byte alignment plus --offset elements
    // (only their alignment is read).
    auto at = [&](DType t) { return reinterpret_cast<const void*>(uintptr_t(256 + pr.offset * dtype_bytes(t))); };
    const Choice ch = choose_auto(p.normalized(), dev, at(p.a_type), at(p.b_type), at(p.d_type), *tune_tables());
    if (!ch.variant) return Status::error(StatusCode::not_supported, ch.why);
    vs = {ch.variant};
    auto_choice = ch.variant->name;
    auto_why = ch.why;  // starts with its source: cache, model, fallback
  }

  VerifyReport rep;
  rep.auto_choice = auto_choice;
  rep.auto_why = auto_why;
  rep.device = dev.name;
  rep.sm = dev.sm;
  rep.seed = r.seed ? r.seed : std::random_device{}() | uint64_t(std::random_device{}()) << 32;
  rep.inputs = from_files ? "from " + pr.a_npy + ", " + pr.b_npy
                          : "uniform [-1,1] / int8 full range, seed " + std::to_string(rep.seed);
  // One session (inputs + reference) per type signature.
  std::map<std::tuple<int, int, int>, std::unique_ptr<VerifySession>> sessions;
  const bool named = !(sel.kernels.empty() || sel.kernels[0] == "all");
  for (const Variant* v : vs) {
    if (!(s = problem_for(pr, *v, &p)).ok()) return s;
    auto& sess = sessions[std::make_tuple(int(v->a_type), int(v->acc_type), int(v->d_type))];
    VerifyRow row;
    row.variant = v->name;
    row.shape = p.shape_string();
    row.outcome.variant = v->name;
    if (!sess) row.outcome.status = VerifySession::create(p, from_files ? file_in : make_random_inputs(p, rep.seed, pr.offset), &sess);
    if (sess) row.outcome = sess->verify(*v), row.tolerance = sess->tolerance();
    const Status& st = row.outcome.status;
    const bool refused = st.code == StatusCode::not_supported;
    row.ran = st.ok() || st.code == StatusCode::verification_failed;
    row.verdict = st.ok() ? "PASS" : refused ? "refused" : row.ran ? "FAIL" : "ERROR";
    // A refusal fails only a variant asked for by name.
    if (!st.ok() && (!refused || (named && std::find(sel.kernels.begin(), sel.kernels.end(), v->name) != sel.kernels.end())))
      ++rep.failures;
    if (!pr.d_npy.empty() && row.ran && sess) {
      NpyMatrix d;
      d.type = p.d_type; d.rows = p.m; d.cols = p.n;
      d.data = sess->last_output();
      Status ws = write_npy(pr.d_npy, d);
      if (!ws.ok()) rep.errors.push_back(ws.message), ++rep.failures;
    }
    rep.rows.push_back(std::move(row));
  }
  for (auto& [k, sess] : sessions)
    if (sess)
      rep.tolerances.push_back({types_key(DType(std::get<0>(k)), DType(std::get<1>(k)), DType(std::get<2>(k))),
                                sess->tolerance()});
  *out = std::move(rep);
  return {};
}

report::Document document(const VerifyReport& r) {
  using report::Cell;
  using report::Show;
  using report::fixed;
  report::Document d;
  d.title = "verify on " + r.device + " (sm_" + std::to_string(r.sm) + "), inputs " + r.inputs;
  report::Section& head = d.section("", false);
  head.data("device", r.device).data("seed", r.seed);
  for (auto& [types, tol] : r.tolerances) head.note("  tolerance [" + types + "]: " + tol.rule);
  if (!r.auto_choice.empty()) {
    head.data("auto.variant", r.auto_choice).data("auto.why", r.auto_why);
    head.note("  auto -> " + r.auto_choice + ", " + r.auto_why);
  }
  report::Section& s = d.section("", false);
  report::Table& t = s.table(
      "results", "",
      {{"variant", "variant"}, {"shape", "shape"}, {"verdict", "verdict"}, {"", "detail", Show::text},
       {"message", "", Show::data}, {"checked", "", Show::data}, {"failures", "", Show::data},
       {"non_finite", "", Show::data}, {"max_abs_err", "", Show::data}, {"max_rel_err", "", Show::data},
       {"max_abs.row", "", Show::data}, {"max_abs.col", "", Show::data}, {"max_abs.got", "", Show::data},
       {"max_abs.ref", "", Show::data}, {"worst.row", "", Show::data}, {"worst.col", "", Show::data},
       {"worst.got", "", Show::data}, {"worst.ref", "", Show::data}, {"worst.ratio", "", Show::data},
       {"tolerance.abs", "", Show::data}, {"tolerance.rel", "", Show::data}, {"tolerance.rule", "", Show::data}});
  for (const VerifyRow& row : r.rows) {
    const CompareResult& c = row.outcome.result;
    const Status& st = row.outcome.status;
    std::string detail = st.message;
    // Each error beside its own element: the largest |got - ref|, and the largest error / allowed.
    auto at = [](int64_t i, int64_t j, double got, double ref) {
      return " at (" + std::to_string(i) + "," + std::to_string(j) + ") got " + fixed(got, 4) + " ref " + fixed(ref, 4);
    };
    if (row.ran) {
      detail = c.max_abs_row < 0 ? "no finite element" : "max abs " + fixed(c.max_abs_err, 5) +
                                   at(c.max_abs_row, c.max_abs_col, c.max_abs_got, c.max_abs_ref);
      if (!st.ok())
        detail = std::to_string(c.failures) + " bad; " + detail + "; worst " + fixed(c.worst_ratio, 2) + "x allowed" +
                 at(c.worst_row, c.worst_col, c.worst_got, c.worst_ref);
    }
    auto ran = [&](Cell x) { return row.ran ? x : Cell(); };  // compared values exist only when it ran
    auto finite = [&](Cell x) { return row.ran && c.max_abs_row >= 0 ? x : Cell(); };
    // JSON has no Inf: a non-finite worst ratio is null.
    const Cell ratio = std::isfinite(c.worst_ratio) ? Cell(c.worst_ratio) : Cell(nullptr);
    t.add({row.variant, row.shape, row.verdict, report::text_cell(detail), st.message, ran(c.checked), ran(c.failures),
           ran(c.non_finite), ran(c.max_abs_err), ran(c.max_rel_err), finite(c.max_abs_row), finite(c.max_abs_col),
           finite(c.max_abs_got), finite(c.max_abs_ref), ran(c.worst_row), ran(c.worst_col), ran(c.worst_got),
           ran(c.worst_ref), ran(ratio), ran(row.tolerance.abs), ran(row.tolerance.rel), ran(row.tolerance.rule)});
  }
  s.note(r.failures ? "FAILED: " + std::to_string(r.failures) + " variant(s)" : "all verified variants PASS");
  return d;
}

}  // namespace pipegemm
