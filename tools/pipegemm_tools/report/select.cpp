// The requests every subcommand shares: the type flags (parsed here and nowhere else), the
// problem for a variant, and the variants a selection names.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

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

namespace {

// The semantics of r applied to q (whose shape, leading dimensions and types are set).
Status apply_semantics(const ProblemRequest& r, Problem* q) {
  if (!parse_layout_name(r.layout, &q->a_layout, &q->b_layout))
    return bad("unknown --layout '" + r.layout + "' (TN, NN, NT, TT: BLAS's op letters of A and B)");
  if (r.d_layout == "row") q->d_layout = Layout::RowMajor;
  else if (r.d_layout == "col") q->d_layout = Layout::ColMajor;
  else return bad("unknown --d-layout '" + r.d_layout + "' (row, col)");
  q->alpha = r.alpha;
  q->beta = r.beta;
  if (r.c != "apart" && r.c != "d") return bad("unknown --c '" + r.c + "' (apart: C in its own buffer; d: C = D in place)");
  if (!r.c_dtype.empty() && r.c_dtype != "d") {
    DType t;
    if (!parse_dtype(r.c_dtype, &t)) return bad("unknown --c-dtype '" + r.c_dtype + "' (d: D's type, or f32)");
    q->c_type = t;
  }
  q->ldc = r.ldc;
  q->batch = r.batch;
  if (r.broadcast == "a") q->stride_a = 0;
  else if (r.broadcast == "b") q->stride_b = 0;
  else if (r.broadcast == "c") q->stride_c = 0;
  else if (!r.broadcast.empty() && r.broadcast != "none")
    return bad("unknown --broadcast '" + r.broadcast + "' (a, b or c: that operand's batch stride is 0)");
  if (!parse_bias(r.bias, &q->bias)) return bad("unknown --bias '" + r.bias + "' (none, row, col)");
  if (!r.bias_dtype.empty() && r.bias_dtype != "d") {
    DType t;
    if (!parse_dtype(r.bias_dtype, &t)) return bad("unknown --bias-dtype '" + r.bias_dtype + "' (d: D's type, or f32)");
    q->bias_type = t;
  }
  if (!parse_activation(r.act, &q->activation))
    return bad("unknown --act '" + r.act + "' (none, relu, gelu_tanh, gelu_erf)");
  if (r.c_in_place() && q->reads_c()) {  // C = D: D's leading dimension, type and stride
    if (r.ldc && r.ldc != (r.ldd ? r.ldd : q->normalized().ldd))
      return bad("--c d (C = D in place) reads C with D's leading dimension: drop --ldc (or give ldd's value)");
    if (q->c_type && *q->c_type != q->d_type)
      return bad(std::string("--c d (C = D in place) reads C in D's type (") + to_string(q->d_type) + "): drop --c-dtype");
    if (r.broadcast == "c") return bad("--c d (C = D in place) cannot broadcast C: --broadcast c needs --c apart");
    q->ldc = q->ldd;
    q->c_type.reset();
    q->stride_c = q->stride_d;
  }
  return {};
}

}  // namespace

Status check_semantics(const ProblemRequest& r) {
  Problem q;
  return apply_semantics(r, &q);
}

Status problem_for(const ProblemRequest& r, const Variant& v, Problem* p) {
  Problem q;
  if (!parse_shape(r.shape, &q.m, &q.n, &q.k))
    return bad("bad --shape '" + r.shape + "' (expected MxNxK, e.g. 4096x4096x4096)");
  q.lda = r.lda; q.ldb = r.ldb; q.ldd = r.ldd;
  q.a_type = v.a_type; q.b_type = v.b_type; q.acc_type = v.acc_type; q.d_type = v.d_type;
  Status s = apply_semantics(r, &q);
  if (!s.ok()) return s;
  s = validate_problem(q);
  if (!s.ok()) return bad(s.message);
  *p = q.normalized();
  return {};
}

Operands probe_operands(const Problem& in, int64_t offset, bool c_in_place) {
  const Problem p = in.normalized();
  // Far apart (no overlap), each 256-byte aligned as cudaMalloc's, then `offset` elements on.
  auto at = [offset](int slot, DType t) {
    return reinterpret_cast<void*>(uintptr_t(slot) << 32 | uintptr_t(offset * dtype_bytes(t)));
  };
  Operands x;
  x.a = at(1, p.a_type);
  x.b = at(2, p.b_type);
  x.d = at(3, p.d_type);
  if (p.reads_c()) x.c = c_in_place ? x.d : at(4, *p.c_type);
  if (p.bias != Bias::none) x.bias = at(5, *p.bias_type);
  return x;
}

Problem as_called(const Problem& p, const Operands& x, Operands* y) {
  bool swapped = false;
  Problem q = row_major_d(p.normalized(), &swapped);
  *y = x;
  if (swapped) std::swap(y->a, y->b);
  if (!q.reads_c()) y->c = nullptr;
  if (q.bias == Bias::none) y->bias = nullptr;
  return q;
}

Choice choose_auto_for(const Problem& p, const DeviceInfo& dev, const Operands& x) {
  Operands y;
  const Problem q = as_called(p, x, &y);
  return choose_auto(q, dev, y, *tune_tables());
}

std::vector<const Variant*> accepting_for(const Problem& p, int sm, const Operands& x) {
  Operands y;
  const Problem q = as_called(p, x, &y);
  return accepting_variants(q, sm, y);
}

std::string broadcast_of(const Problem& in) {
  const Problem p = in.normalized();
  if (p.batch <= 1) return "";
  if (p.stride_a == 0) return "a";
  if (p.stride_b == 0) return "b";
  if (p.reads_c() && p.stride_c == 0) return "c";
  return "";
}

std::string c_binding(const Problem& p, bool c_in_place) {
  return !p.reads_c() ? "none" : c_in_place ? "d" : "apart";
}

std::string semantics_text(const Problem& in, bool c_in_place) {
  const Problem p = in.normalized();
  std::vector<std::string> parts;
  auto num = [](float v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", double(v));
    return std::string(b);
  };
  if (p.a_layout != Layout::RowMajor || p.b_layout != Layout::RowMajor) parts.push_back(layout_name(p.a_layout, p.b_layout));
  if (p.d_layout == Layout::ColMajor) parts.push_back("D col");
  if (p.alpha != 1.f) parts.push_back("alpha " + num(p.alpha));
  if (p.reads_c())
    parts.push_back("beta " + num(p.beta) + (c_in_place ? " (C = D)" : *p.c_type != p.d_type ? std::string(" (C apart, ") + to_string(*p.c_type) + ")" : " (C apart)"));
  if (p.batch > 1) {
    const std::string b = broadcast_of(p);
    std::string up = b;
    for (char& ch : up) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    parts.push_back("batch " + std::to_string(p.batch) + (b.empty() ? "" : " (" + up + " broadcast)"));
  }
  if (p.bias != Bias::none)
    parts.push_back(std::string("bias ") + to_string(p.bias) + (*p.bias_type != p.d_type ? std::string(" ") + to_string(*p.bias_type) : ""));
  if (p.activation != Activation::none) parts.push_back(to_string(p.activation));
  std::string out;
  for (const std::string& x : parts) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::vector<report::Column> semantic_columns() {
  using report::Show;
  return {{"layout", "", Show::data},    {"alpha", "", Show::data},     {"beta", "", Show::data},
          {"c", "", Show::data},         {"c_type", "", Show::data},    {"ldc", "", Show::data},
          {"batch", "", Show::data},     {"broadcast", "", Show::data}, {"bias", "", Show::data},
          {"bias_type", "", Show::data}, {"activation", "", Show::data}};
}

std::vector<report::Cell> semantic_cells(const Problem& in, bool c_in_place) {
  using report::Cell;
  const Problem p = in.normalized();
  const bool c = p.reads_c(), bias = p.bias != Bias::none;
  return {layout_name(p.a_layout, p.b_layout),
          double(p.alpha),
          double(p.beta),
          c_binding(p, c_in_place),
          c ? Cell(to_string(*p.c_type)) : Cell(nullptr),
          c ? Cell(p.ldc) : Cell(nullptr),
          p.batch,
          broadcast_of(p),
          to_string(p.bias),
          bias ? Cell(to_string(*p.bias_type)) : Cell(nullptr),
          to_string(p.activation)};
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

Status apply_suite_flags(const std::vector<std::pair<std::string, std::string>>& flags, ProblemRequest* r) {
  for (const auto& [flag, value] : flags) {
    auto number = [&](auto* out) {
      std::istringstream in(value);
      in >> *out;
      return !in.fail() && in.eof() ? Status{} : bad(flag + " needs a number, got '" + value + "'");
    };
    Status s;
    if (flag == "--layout") r->layout = value;
    else if (flag == "--d-layout") r->d_layout = value;
    else if (flag == "--alpha") s = number(&r->alpha);
    else if (flag == "--beta") s = number(&r->beta);
    else if (flag == "--c") r->c = value;
    else if (flag == "--c-dtype") r->c_dtype = value;
    else if (flag == "--ldc") s = number(&r->ldc);
    else if (flag == "--batch") s = number(&r->batch);
    else if (flag == "--broadcast") r->broadcast = value;
    else if (flag == "--bias") r->bias = value;
    else if (flag == "--bias-dtype") r->bias_dtype = value;
    else if (flag == "--act") r->act = value;
    else s = bad("unknown flag '" + flag + "'");
    if (!s.ok()) return s;
  }
  return check_semantics(*r);
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
    if (!(s = apply_suite_flags(sh.flags, &x.problem)).ok()) return bad(x.where + s.message);
    Problem p;
    if (!(s = parse_types(x.problem.types, &x.types)).ok() || !(s = typed_problem(x.problem, x.types, &p)).ok())
      return bad(x.where + s.message);
    out->push_back(std::move(x));
  }
  return {};
}

}  // namespace pipegemm
