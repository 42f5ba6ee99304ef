// `pipegemm list`: the registry as one table; every column from the variants' typed fields.
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

namespace {

std::string tile_text(const TileConfig& t) {
  if (t.bm == 0) return "-";
  return std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.bk) + "/" + std::to_string(t.stages);
}

// Only the constraints that bind: "any M,N,K" means no size rule at all.
std::string takes(const Requirements& r) {
  std::string s;
  auto add = [&s](const std::string& x) { s += (s.empty() ? "" : " ") + x; };
  if (r.m_multiple > 1) add("M%" + std::to_string(r.m_multiple));
  if (r.n_multiple > 1) add("N%" + std::to_string(r.n_multiple));
  if (r.k_multiple > 1) add("K%" + std::to_string(r.k_multiple));
  if (r.max_n) add("N<=" + std::to_string(r.max_n));
  if (r.max_k) add("K<=" + std::to_string(r.max_k));
  if (r.max_thin) add("min(M,N)<=" + std::to_string(r.max_thin));
  if (r.ld_multiple > 1) add((r.ldd_mult() == r.ld_multiple ? "ld%" : "lda,ldb%") + std::to_string(r.ld_multiple));
  if (r.ldd_mult() > 1 && r.ldd_mult() != r.ld_multiple) add("ldd%" + std::to_string(r.ldd_mult()));
  if (s.empty()) s = "any M,N,K";
  if (r.ptr_align_bytes > 1)
    s += ", " + std::to_string(r.ptr_align_bytes) + (r.d_align() == r.ptr_align_bytes ? "B ptrs" : "B A,B ptrs");
  return s;
}

// The activations beyond none a variant applies, by name.
report::Value activations(const Requirements& r) {
  report::Value a = report::Value::array();
  for (Activation x : {Activation::relu, Activation::gelu_tanh, Activation::gelu_erf})
    if (r.activations & (1u << int(x))) a.push(to_string(x));
  return a;
}

// The kernels a variant launches, each with its symbol and the problems it runs (Variant::kernels).
report::Value kernels(const Variant& v) {
  report::Value a = report::Value::array();
  for (const KernelInstance& k : v.kernels)
    a.push(report::Value::object({{"form", k.form.empty() ? report::Value(nullptr) : report::Value(k.form)},
                                  {"symbol", k.symbol},
                                  {"general", k.general},
                                  {"a_mn_major", k.a_mn_major},
                                  {"b_mn_major", k.b_mn_major},
                                  {"min_k", k.min_k},
                                  {"max_k", k.max_k},
                                  {"when", k.when}}));
  return a;
}

}  // namespace

ListReport list_registry() {
  ListReport r;
  for (const Variant& v : variants()) r.variants.push_back(&v);
  return r;
}

report::Document document(const ListReport& r) {
  using report::Cell;
  using report::Show;
  report::Document d;
  report::Table& t = d.section().table(
      "variants", "",
      {{"name", "variant"}, {"family", "family"}, {"rung", "rung"}, {"", "in/acc/out", Show::text},
       {"", "tile/stages", Show::text}, {"tile.smem_bytes", "smem"}, {"", "arch", Show::text},
       {"", "takes", Show::text}, {"description", "", Show::data}, {"min_sm", "", Show::data},
       {"max_sm", "", Show::data}, {"a", "", Show::data}, {"acc", "", Show::data}, {"d", "", Show::data},
       {"tile.bm", "", Show::data}, {"tile.bn", "", Show::data}, {"tile.bk", "", Show::data},
       {"tile.stages", "", Show::data}, {"tile.threads", "", Show::data},
       {"requires.m_multiple", "", Show::data}, {"requires.n_multiple", "", Show::data},
       {"requires.k_multiple", "", Show::data}, {"requires.max_n", "", Show::data},
       {"requires.max_k", "", Show::data}, {"requires.max_thin", "", Show::data},
       {"requires.ptr_align_bytes", "", Show::data},
       {"requires.ld_multiple", "", Show::data}, {"requires.d_align_bytes", "", Show::data},
       {"requires.ldd_multiple", "", Show::data}, {"requires.a_mn_major", "", Show::data},
       {"requires.b_mn_major", "", Show::data}, {"requires.scale", "", Show::data},
       {"requires.c_apart", "", Show::data}, {"requires.c_f32", "", Show::data}, {"requires.batch", "", Show::data},
       {"requires.bias_per_row", "", Show::data}, {"requires.bias_per_col", "", Show::data},
       {"requires.activations", "", Show::data},
       {"mechanism.load", "", Show::data}, {"mechanism.mma", "", Show::data},
       {"mechanism.pipeline", "", Show::data}, {"mechanism.order", "", Show::data},
       {"mechanism.epilogue", "", Show::data}, {"symbol", "", Show::data}, {"teaching", "", Show::data},
       {"capabilities", "computes"}, {"kernels", "", Show::data}});
  for (const Variant* p : r.variants) {
    const Variant& v = *p;
    const Mechanism& m = v.mech;
    // A teaching variant (issue 14) says so where the rung is read.
    t.add({v.name, v.family,
           Cell(v.rung, v.rung < 0 ? "peer" : "k" + std::to_string(v.rung) + (v.teaching.empty() ? "" : " teaching")),
           report::text_cell(std::string(to_string(v.a_type)) + "/" + to_string(v.acc_type) + "/" + to_string(v.d_type)),
           report::text_cell(tile_text(v.tile)),
           Cell(v.tile.smem_bytes, v.tile.smem_bytes ? std::to_string(v.tile.smem_bytes / 1024) + " KB" : "-"),
           report::text_cell("sm_" + std::to_string(v.min_sm) + (v.max_sm ? "a only" : "+")),
           report::text_cell(takes(v.req)), describe(v), v.min_sm, v.max_sm, to_string(v.a_type),
           to_string(v.acc_type), to_string(v.d_type), v.tile.bm, v.tile.bn, v.tile.bk, v.tile.stages,
           v.tile.threads, v.req.m_multiple, v.req.n_multiple, v.req.k_multiple, v.req.max_n, v.req.max_k, v.req.max_thin, v.req.ptr_align_bytes,
           v.req.ld_multiple, v.req.d_align(), v.req.ldd_mult(), v.req.a_mn_major, v.req.b_mn_major, v.req.scale,
           v.req.c_apart, v.req.c_f32, v.req.batch, v.req.bias_per_row, v.req.bias_per_col, activations(v.req),
           to_string(m.load), to_string(m.mma), to_string(m.pipeline), to_string(m.order), to_string(m.epilogue),
           v.symbol.empty() ? report::Value(nullptr) : report::Value(v.symbol),
           v.teaching.empty() ? report::Value(nullptr) : report::Value(v.teaching), describe_capabilities(v),
           kernels(v)});
  }
  // The kernels of the variants whose table line has forms (k5), each by its symbol and the problems
  // it runs; every other variant launches one kernel, its symbol (--json).
  report::Table& k = d.section().table(
      "", "the kernels of the k5 lines, each form by its symbol (every other variant: one kernel, --json)",
      {{"", "variant"}, {"", "form"}, {"", "runs", Show::text}, {"", "symbol", Show::text}});
  for (const Variant* p : r.variants)
    if (!p->kernels.empty() && !p->kernels[0].form.empty())
      for (const KernelInstance& x : p->kernels)
        k.add({p->name, x.form, report::text_cell(x.when), report::text_cell(x.symbol)});
  return d;
}

}  // namespace pipegemm
