// The requests every subcommand shares: the type flags (parsed here and nowhere else), the
// problem for a variant, and the variants a selection names.
#include <algorithm>

#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

Status one_type(const std::string& s, const char* flag, const char* allowed, DType* t, bool* given) {
  if (s.empty()) return {};
  if (!parse_dtype(s, t)) return bad(std::string("unknown ") + flag + " '" + s + "' (" + allowed + ")");
  *given = true;
  return {};
}

}  // namespace

bool Types::accepts(const Variant& v) const {
  return (!in_given || v.a_type == in) && (!acc_given || v.acc_type == acc) && (!out_given || v.d_type == out);
}

Status parse_types(const TypeRequest& r, Types* out) {
  Types t;
  Status s = one_type(r.in, "--dtype", "f16, bf16, i8, f32", &t.in, &t.in_given);
  if (!s.ok()) return s;
  if (t.in == DType::i32) return bad("--dtype i32 is an accumulator type, not an input (f16, bf16, i8, f32)");
  t.acc = t.in == DType::i8 ? DType::i32 : DType::f32;
  t.out = t.in == DType::i8 ? DType::i32 : t.in;
  s = one_type(r.acc, "--acc", "f16, f32, i32", &t.acc, &t.acc_given);
  if (s.ok()) s = one_type(r.out, "--out-dtype", "f16, bf16, f32, i32", &t.out, &t.out_given);
  if (s.ok()) *out = t;
  return s;
}

Status problem_for(const ProblemRequest& r, const Variant& v, Problem* p) {
  Problem q;
  if (!parse_shape(r.shape, &q.m, &q.n, &q.k))
    return bad("bad --shape '" + r.shape + "' (expected MxNxK, e.g. 4096x4096x4096)");
  q.lda = r.lda; q.ldb = r.ldb; q.ldd = r.ldd;
  q.a_type = v.a_type; q.b_type = v.b_type; q.acc_type = v.acc_type; q.d_type = v.d_type;
  Status s = validate_problem(q);
  if (!s.ok()) return bad(s.message);
  *p = q.normalized();
  return {};
}

Status select_variants(const Selection& s, const Types& t, std::vector<const Variant*>* out) {
  out->clear();
  const bool all = s.kernels.empty() || (s.kernels.size() == 1 && s.kernels[0] == "all");
  if (all) {
    for (const Variant& v : variants())
      if (t.accepts(v) && (s.family.empty() || v.family == s.family) && (s.peers || !v.is_peer())) out->push_back(&v);
  } else {
    for (const std::string& name : s.kernels) {
      const Variant* v = find_variant(name);
      if (!v) return bad("unknown kernel '" + name + "' (see `pipegemm list`)");
      out->push_back(v);
    }
    if (s.peers) {  // each chosen kernel's cuBLAS peers (cublas_*, cublaslt_*), once, ahead of them
      std::vector<const Variant*> extra;
      for (const Variant* v : *out)
        for (const Variant* p : peers_for(*v))
          if (std::find(out->begin(), out->end(), p) == out->end() &&
              std::find(extra.begin(), extra.end(), p) == extra.end())
            extra.push_back(p);
      out->insert(out->begin(), extra.begin(), extra.end());
    }
  }
  if (out->empty()) return bad("no registered variant matches the selection");
  return {};
}

// The problem of request r with types t, before any variant ("auto" resolves on the device).
Status typed_problem(const ProblemRequest& r, const Types& t, Problem* p) {
  Variant v;  // only its types are read
  v.a_type = v.b_type = t.in;
  v.acc_type = t.acc;
  v.d_type = t.out;
  return problem_for(r, v, p);
}

Status request_shapes(const ProblemRequest& r, const std::string& suite, std::vector<ShapeRequest>* out) {
  out->clear();
  std::vector<SuiteShape> shapes(1);  // a plain --shape: problem_for parses it (and says what is wrong)
  const bool sweep = !suite.empty() || is_shape_range(r.shape);
  Status s = !suite.empty() ? load_suite(suite, &shapes) : sweep ? expand_shape_ranges(r.shape, &shapes) : Status{};
  if (!s.ok()) return s;
  for (const SuiteShape& sh : shapes) {
    ShapeRequest x;
    x.problem = r;
    if (sweep) x.problem.shape = sh.shape();
    if (!sh.dtype.empty()) x.problem.types.in = sh.dtype;
    x.where = sh.line ? suite + ":" + std::to_string(sh.line) + ": " : "";
    Problem p;
    if (!(s = parse_types(x.problem.types, &x.types)).ok() || !(s = typed_problem(x.problem, x.types, &p)).ok())
      return bad(x.where + s.message);
    out->push_back(std::move(x));
  }
  return {};
}

}  // namespace pipegemm
