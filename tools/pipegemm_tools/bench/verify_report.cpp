// `pipegemm verify`: every selected variant against the CPU reference, every element compared;
// the run and its report.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "pipegemm_tools/npy.hpp"
#include "pipegemm/introspect/dispatch.hpp"
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
  if (Status s = check_semantics(pr); !s.ok()) return s;
  if (from_files && (pr.layout != "TN" || pr.batch != 1))
    return bad("--a/--b hold A (M,K) and B (N,K) in C order, both K-major, one product: --layout TN and --batch 1 only");
  if (!pr.d_npy.empty() && pr.batch != 1) return bad("--out writes one D (M,N): --batch 1 only");
  if (!pr.d_npy.empty()) {
    if (sel.kernels.empty()) sel.kernels = {"auto"};
    if (sel.kernels.size() != 1 || sel.kernels[0] == "all") return bad("--out needs exactly one --kernel (or 'auto')");
    sel.peers = false;  // D comes from that one variant
  }
  Types types;
  Status s = parse_types(pr.types, &types);
  if (!s.ok()) return s;
  // "auto" is resolved once the device is known; named kernels beside it are selected now (bench
  // takes the same list: `--kernel auto cublaslt_i8 k0_i8_128x128x32`).
  const bool want_auto = std::find(sel.kernels.begin(), sel.kernels.end(), "auto") != sel.kernels.end();
  const bool auto_alone = want_auto && sel.kernels.size() == 1;
  std::string auto_choice, auto_why;
  std::vector<const Variant*> vs;
  Selection named_sel = sel;
  named_sel.kernels.erase(std::remove(named_sel.kernels.begin(), named_sel.kernels.end(), "auto"), named_sel.kernels.end());
  if (want_auto && std::find(named_sel.kernels.begin(), named_sel.kernels.end(), "all") != named_sel.kernels.end())
    return bad("--kernel auto goes with named kernels, not with 'all'");
  if (!auto_alone && !(s = select_variants(named_sel, types, &vs)).ok()) return s;
  // A variant reads the files' bytes as its own input type: a kernel of another type is refused.
  if (from_files)
    for (const Variant* v : vs)  // the named ones: their peers (and "all") have the files' type
      if (std::find(sel.kernels.begin(), sel.kernels.end(), v->name) != sel.kernels.end() &&
          (v->a_type != types.in || v->b_type != types.in))
        return bad("kernel '" + v->name + "' takes " + to_string(v->a_type) + " inputs but " + pr.a_npy + " and " +
                   pr.b_npy + " hold " + to_string(types.in) + ": pick a " + to_string(types.in) +
                   " variant (`pipegemm list`) or --kernel auto");
  // The shape before the GPU, so bad input is refused everywhere alike; then the semantics against
  // the asked types (an int32 D: whole alpha, beta; no epilogue) where those are a combination the
  // library computes (else each variant's own types decide, below).
  Problem p;
  ProblemRequest plain = pr;
  plain.layout = "TN", plain.d_layout = "row", plain.alpha = 1.f, plain.beta = 0.f, plain.batch = 1;
  plain.bias = plain.act = "none", plain.broadcast.clear();
  if (!(s = problem_for(plain, Variant{}, &p)).ok()) return s;
  if (Problem q; typed_problem(plain, types, &q).ok() && !(s = typed_problem(pr, types, &p)).ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present)
    return Status::error(StatusCode::no_device, "pipegemm verify needs a CUDA GPU (sm_80 or newer): " + dev.why_absent);
  if (dev.sm < 80) return bad("device " + dev.name + " is sm_" + std::to_string(dev.sm) + "; pipegemm needs sm_80+");
  if (want_auto) {
    if (!(s = typed_problem(pr, types, &p)).ok()) return s;
    // The pointers the session will use: cudaMalloc's 256-byte alignment plus --offset elements
    // (only their alignment, and whether C is D, are read).
    const Choice ch = choose_auto_for(p, dev, probe_operands(p, pr.offset, pr.c_in_place()));
    if (!ch.variant) return Status::error(StatusCode::not_supported, ch.why);
    vs.insert(vs.begin(), ch.variant);  // the first row is auto's
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
  if (from_files && (p.reads_c() || p.bias != Bias::none))
    rep.inputs += " (C and the bias: uniform [-1,1], seed " + std::to_string(rep.seed) + ")";

  // One session (inputs + reference) per type signature.
  std::map<std::tuple<int, int, int>, std::unique_ptr<VerifySession>> sessions;
  const bool named = !(sel.kernels.empty() || sel.kernels[0] == "all");
  for (size_t i = 0; i < vs.size(); ++i) {
    const Variant* v = vs[i];
    const bool via_auto = want_auto && i == 0;
    if (!(s = problem_for(pr, *v, &p)).ok()) return s;
    auto& sess = sessions[std::make_tuple(int(v->a_type), int(v->acc_type), int(v->d_type))];
    VerifyRow row;
    // auto alone: its row carries the chosen name (the header says "auto -> name"); beside named
    // kernels, "auto", so that the same variant by name reads apart.
    row.variant = via_auto && !auto_alone ? "auto" : v->name;
    row.shape = p.shape_string();
    row.outcome.variant = v->name;
    row.problem = p;
    row.c_in_place = pr.c_in_place() && p.reads_c();
    if (rep.rows.empty()) rep.semantics = semantics_text(p, row.c_in_place);
    if (!sess) {
      HostInputs in = from_files ? file_in : make_random_inputs(p, rep.seed, pr.offset);
      if (from_files) in.C = random_c(p, rep.seed), in.bias = random_bias(p, rep.seed);
      row.outcome.status = VerifySession::create(p, std::move(in), &sess, pr.c_in_place());
    }
    // auto runs as a user's call does (GemmCall: its fallback where a peer finds no algorithm).
    if (sess) row.outcome = via_auto ? sess->verify_auto() : sess->verify(*v), row.tolerance = sess->tolerance();
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
      // D (M,N) in C order: the rows of a row-major D without their padding, a column-major one transposed.
      const std::vector<uint8_t>& got = sess->last_output();
      const int e = dtype_bytes(p.d_type);
      d.data.resize(size_t(p.m * p.n * e));
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          const int64_t at = p.d_layout == Layout::RowMajor ? i * p.ldd + j : j * p.ldd + i;
          std::memcpy(d.data.data() + (i * p.n + j) * e, got.data() + at * e, size_t(e));
        }
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
  if (!r.semantics.empty()) d.title += "\n  " + r.semantics;
  report::Section& head = d.section("", false);
  head.data("device", r.device).data("seed", r.seed);
  if (!r.semantics.empty()) head.data("semantics", r.semantics);
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
       {"tolerance.abs", "", Show::data}, {"tolerance.rel", "", Show::data}, {"tolerance.rule", "", Show::data},
       {"max_abs.batch", "", Show::data}, {"worst.batch", "", Show::data}, {"d_layout", "", Show::data}});
  for (report::Column& c : semantic_columns()) t.columns.push_back(c);
  for (const VerifyRow& row : r.rows) {
    const CompareResult& c = row.outcome.result;
    const Status& st = row.outcome.status;
    std::string detail = st.message;
    // Each error beside its own element: the largest |got - ref|, and the largest error / allowed.
    // (row,col), or (product,row,col) in a batch.
    auto at = [&](int64_t b, int64_t i, int64_t j, double got, double ref) {
      const std::string where = (c.products > 1 ? std::to_string(b) + "," : "") + std::to_string(i) + "," + std::to_string(j);
      return " at (" + where + ") got " + fixed(got, 4) + " ref " + fixed(ref, 4);
    };
    if (row.ran) {
      detail = c.max_abs_row < 0 ? "no finite element" : "max abs " + fixed(c.max_abs_err, 5) +
                                   at(c.max_abs_batch, c.max_abs_row, c.max_abs_col, c.max_abs_got, c.max_abs_ref);
      if (!st.ok())
        detail = std::to_string(c.failures) + " bad; " + detail + "; worst " + fixed(c.worst_ratio, 2) + "x allowed" +
                 at(c.worst_batch, c.worst_row, c.worst_col, c.worst_got, c.worst_ref);
    }
    auto ran = [&](Cell x) { return row.ran ? x : Cell(); };  // compared values exist only when it ran
    auto finite = [&](Cell x) { return row.ran && c.max_abs_row >= 0 ? x : Cell(); };
    // JSON has no Inf: a non-finite worst ratio is null.
    const Cell ratio = std::isfinite(c.worst_ratio) ? Cell(c.worst_ratio) : Cell(nullptr);
    std::vector<Cell> cells = {row.variant, row.shape, row.verdict, report::text_cell(detail), st.message, ran(c.checked),
                               ran(c.failures), ran(c.non_finite), ran(c.max_abs_err), ran(c.max_rel_err),
                               finite(c.max_abs_row), finite(c.max_abs_col), finite(c.max_abs_got), finite(c.max_abs_ref),
                               ran(c.worst_row), ran(c.worst_col), ran(c.worst_got), ran(c.worst_ref), ran(ratio),
                               ran(row.tolerance.abs), ran(row.tolerance.rel), ran(row.tolerance.rule),
                               finite(c.max_abs_batch), ran(c.worst_batch), to_string(row.problem.d_layout)};
    for (Cell& x : semantic_cells(row.problem, row.c_in_place)) cells.push_back(std::move(x));
    t.add(std::move(cells));
  }
  s.note(r.failures ? "FAILED: " + std::to_string(r.failures) + " variant(s)" : "all verified variants PASS");
  return d;
}

}  // namespace pipegemm
