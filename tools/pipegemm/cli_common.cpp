#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm::cli {

void add_problem_options(CLI::App* app, ProblemOpts* o, const std::string& default_shape, bool with_npy) {
  o->shape = default_shape;
  app->add_option("-s,--shape", o->shape, "problem size MxNxK (D = A(M,K) * B(N,K)^T)")->capture_default_str();
  app->add_option("--dtype", o->dtype, "only variants with this input type: f16, bf16, i8, f32");
  app->add_option("--acc", o->acc, "only variants with this accumulation type: f16, f32, i32");
  app->add_option("--out-dtype", o->out_dtype, "only variants with this output type");
  app->add_option("--lda", o->lda, "leading dimension of A in elements (default K)");
  app->add_option("--ldb", o->ldb, "leading dimension of B in elements (default K)");
  app->add_option("--ldd", o->ldd, "leading dimension of D in elements (default N)");
  if (with_npy) {
    app->add_option("--a", o->a_npy, "A (M,K) from a .npy file (C order)");
    app->add_option("--b", o->b_npy, "B (N,K) from a .npy file (C order)");
    app->add_option("--out", o->d_npy, "write D (M,N) of the (single) selected variant to a .npy file");
  }
}

void add_selection_options(CLI::App* app, Selection* s) {
  app->add_option("-k,--kernel", s->kernels, "variant name(s) from `pipegemm list`, or 'all' / 'auto'");
  app->add_option("--family", s->family, "only this family (e.g. k4_multistage, cublas)");
  app->add_flag("!--no-peers", s->peers, "leave out the matching cuBLAS entries");
}

static bool dtype_opt(const std::string& s, DType* t, const char* what, std::string* err) {
  if (s.empty()) return true;
  if (!parse_dtype(s, t)) {
    *err = std::string("unknown ") + what + " '" + s + "' (f16, bf16, f32, i8, i32)";
    return false;
  }
  return true;
}

bool requested_types(const ProblemOpts& o, DType* in, DType* acc, DType* out, std::string* err) {
  *in = DType::f16;
  if (!dtype_opt(o.dtype, in, "--dtype", err)) return false;
  *acc = *in == DType::i8 ? DType::i32 : DType::f32;
  *out = *in == DType::i8 ? DType::i32 : *in;
  return dtype_opt(o.acc, acc, "--acc", err) && dtype_opt(o.out_dtype, out, "--out-dtype", err);
}

bool select_variants(const Selection& s, const ProblemOpts& o, std::vector<const Variant*>* out,
                     std::string* err) {
  DType in = DType::f16, acc = DType::f32, od = DType::f16;
  if (!dtype_opt(o.dtype, &in, "--dtype", err) || !dtype_opt(o.acc, &acc, "--acc", err) ||
      !dtype_opt(o.out_dtype, &od, "--out-dtype", err))
    return false;
  auto type_ok = [&](const Variant& v) {
    return (o.dtype.empty() || v.a_type == in) && (o.acc.empty() || v.acc_type == acc) &&
           (o.out_dtype.empty() || v.d_type == od);
  };
  out->clear();
  bool all = s.kernels.empty() || (s.kernels.size() == 1 && s.kernels[0] == "all");
  if (all) {
    for (const Variant& v : variants())
      if (type_ok(v) && (s.family.empty() || v.family == s.family) && (s.peers || !v.is_peer()))
        out->push_back(&v);
  } else {
    for (const std::string& name : s.kernels) {
      const Variant* v = find_variant(name);
      if (!v) {
        *err = "unknown kernel '" + name + "' (see `pipegemm list`)";
        return false;
      }
      out->push_back(v);
    }
    if (s.peers) {  // add each chosen kernel's cuBLAS peer once
      std::vector<const Variant*> extra;
      for (const Variant* v : *out) {
        const Variant* p = peer_for(*v);
        if (p && std::find(out->begin(), out->end(), p) == out->end() &&
            std::find(extra.begin(), extra.end(), p) == extra.end())
          extra.push_back(p);
      }
      out->insert(out->begin(), extra.begin(), extra.end());
    }
  }
  if (out->empty()) {
    *err = "no registered variant matches the selection";
    return false;
  }
  return true;
}

bool problem_for(const ProblemOpts& o, const Variant& v, Problem* p, std::string* err) {
  Problem q;
  if (!parse_shape(o.shape, &q.m, &q.n, &q.k)) {
    *err = "bad --shape '" + o.shape + "' (expected MxNxK, e.g. 4096x4096x4096)";
    return false;
  }
  q.lda = o.lda; q.ldb = o.ldb; q.ldd = o.ldd;
  q.a_type = v.a_type; q.b_type = v.b_type; q.acc_type = v.acc_type; q.d_type = v.d_type;
  Status s = validate_problem(q);
  if (!s.ok()) {
    *err = s.message;
    return false;
  }
  *p = q.normalized();
  return true;
}

std::string fmt(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size());
  for (size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < w.size(); ++i) {
      std::string c = i < r.size() ? r[i] : "";
      os << (i ? "  " : "") << c << std::string(w[i] - c.size(), ' ');
    }
    os << "\n";
  };
  line(header);
  std::vector<std::string> dash;
  for (size_t x : w) dash.push_back(std::string(x, '-'));
  line(dash);
  for (auto& r : rows) line(r);
  return os.str();
}

int fail_usage(const std::string& msg) {
  std::cerr << "pipegemm: error: " << msg << "\n";
  return kUsage;
}

int no_gpu(const std::string& what) {
  std::cerr << "pipegemm " << what << " needs a CUDA GPU (sm_80 or newer): "
            << device_info().why_absent << "\n";
  return kNoGpu;
}

}  // namespace pipegemm::cli
