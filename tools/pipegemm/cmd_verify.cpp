// pipegemm verify: every selected variant against the CPU reference, every element compared.
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "cli.hpp"
#include "pipegemm/bench.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/npy.hpp"

namespace pipegemm::cli {
namespace {

// Loads --a/--b (if given): fixes the shape and input type, returns the host inputs.
bool load_npy_inputs(ProblemOpts& o, HostInputs* in, DType* type, std::string* err) {
  NpyMatrix a, b;
  Status s = read_npy(o.a_npy, &a);
  if (s.ok()) s = read_npy(o.b_npy, &b, &a.type);
  if (!s.ok()) { *err = s.message; return false; }
  if (a.cols != b.cols) {
    *err = "A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " and B is " + std::to_string(b.rows) +
           "x" + std::to_string(b.cols) + ": B must be (N,K) with the same K as A (M,K)";
    return false;
  }
  if (a.rows == 0 || a.cols == 0 || b.rows == 0) { *err = "empty matrix in --a/--b"; return false; }
  o.shape = std::to_string(a.rows) + "x" + std::to_string(b.rows) + "x" + std::to_string(a.cols);
  o.lda = o.ldb = o.ldd = 0;
  *type = a.type;
  in->A = std::move(a.data);
  in->B = std::move(b.data);
  in->seed = 0;
  return true;
}

}  // namespace

int run_verify(VerifyOpts& o) {
  std::string err;
  HostInputs file_in;
  const bool from_files = !o.prob.a_npy.empty() || !o.prob.b_npy.empty();
  if (from_files) {
    if (o.prob.a_npy.empty() || o.prob.b_npy.empty()) return fail_usage("--a and --b go together");
    DType t;
    if (!load_npy_inputs(o.prob, &file_in, &t, &err)) return fail_usage(err);
    if (!o.prob.dtype.empty()) {
      DType want;
      if (parse_dtype(o.prob.dtype, &want) && want != t)
        return fail_usage(std::string("--dtype ") + o.prob.dtype + " but the files hold " + to_string(t));
    }
    o.prob.dtype = to_string(t);
  }
  if (!o.prob.d_npy.empty()) {
    if (o.sel.kernels.empty()) o.sel.kernels = {"auto"};
    if (o.sel.kernels.size() != 1 || o.sel.kernels[0] == "all")
      return fail_usage("--out needs exactly one --kernel (or 'auto')");
    o.sel.peers = false;  // D comes from that one variant
  }
  // "auto" is resolved below, once the device is known.
  const bool want_auto = o.sel.kernels.size() == 1 && o.sel.kernels[0] == "auto";
  std::vector<const Variant*> vs;
  if (!want_auto && !select_variants(o.sel, o.prob, &vs, &err)) return fail_usage(err);
  DType in, acc, out;
  if (!requested_types(o.prob, &in, &acc, &out, &err)) return fail_usage(err);
  // Validate the shape before looking for a GPU, so bad input is refused everywhere alike.
  {
    Problem probe;
    Variant shape_only;  // default f16/f32/f16: checks sizes and strides, types come per variant
    if (!problem_for(o.prob, shape_only, &probe, &err)) return fail_usage(err);
  }
  const DeviceInfo& dev = device_info();
  if (!dev.present) return no_gpu("verify");
  if (dev.sm < 80) return fail_usage("device " + dev.name + " is sm_" + std::to_string(dev.sm) + "; pipegemm needs sm_80+");
  if (want_auto) {
    Variant probe_types;
    probe_types.a_type = probe_types.b_type = in;
    probe_types.acc_type = acc;
    probe_types.d_type = out;
    Problem p;
    if (!problem_for(o.prob, probe_types, &p, &err)) return fail_usage(err);
    std::string why;
    const Variant* v = choose_variant(p, dev.sm, nullptr, nullptr, nullptr, &why);
    if (!v) return fail_usage("no variant accepts this problem:\n" + why);
    vs = {v};
  }

  if (o.seed == 0) o.seed = std::random_device{}() | uint64_t(std::random_device{}()) << 32;
  // One session (inputs + reference) per type signature.
  std::map<std::tuple<int, int, int>, std::unique_ptr<VerifySession>> sessions;
  nlohmann::json jr = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  int failures = 0;
  const bool named = !(o.sel.kernels.empty() || o.sel.kernels[0] == "all");
  for (const Variant* v : vs) {
    Problem p;
    if (!problem_for(o.prob, *v, &p, &err)) return fail_usage(err);
    auto key = std::make_tuple(int(v->a_type), int(v->acc_type), int(v->d_type));
    auto& sess = sessions[key];
    VerifyOutcome out;
    out.variant = v->name;
    if (!sess) {
      HostInputs in = from_files ? file_in : make_random_inputs(p, o.seed);
      out.status = VerifySession::create(p, std::move(in), &sess);
    }
    if (sess) out = sess->verify(*v);
    const bool refused = out.status.code == StatusCode::not_supported;
    const bool ran = out.status.ok() || out.status.code == StatusCode::verification_failed;
    const bool explicitly_named = named && std::find(o.sel.kernels.begin(), o.sel.kernels.end(), v->name) != o.sel.kernels.end();
    std::string verdict = out.status.ok() ? "PASS" : refused ? "refused" : ran ? "FAIL" : "ERROR";
    if (!out.status.ok() && (!refused || explicitly_named)) ++failures;
    std::string detail;
    if (ran) {
      const CompareResult& r = out.result;
      detail = "max abs " + fmt(r.max_abs_err, 5) + " at (" + std::to_string(r.worst_row) + "," +
               std::to_string(r.worst_col) + ") got " + fmt(r.worst_got, 4) + " ref " + fmt(r.worst_ref, 4);
      if (!out.status.ok()) detail = std::to_string(r.failures) + " bad; " + detail;
    } else {
      detail = out.status.message;
    }
    rows.push_back({v->name, p.shape_string(), verdict, detail});
    nlohmann::json j = {{"variant", v->name}, {"shape", p.shape_string()}, {"verdict", verdict},
                        {"message", out.status.message}};
    if (ran) {
      const CompareResult& r = out.result;
      j["checked"] = r.checked; j["failures"] = r.failures; j["non_finite"] = r.non_finite;
      j["max_abs_err"] = r.max_abs_err; j["max_rel_err"] = r.max_rel_err;
      j["worst"] = {{"row", r.worst_row}, {"col", r.worst_col}, {"got", r.worst_got}, {"ref", r.worst_ref}};
      j["tolerance"] = {{"abs", sess->tolerance().abs}, {"rel", sess->tolerance().rel}, {"rule", sess->tolerance().rule}};
    }
    jr.push_back(j);
    if (!o.prob.d_npy.empty() && ran && sess) {
      NpyMatrix d;
      d.type = p.d_type; d.rows = p.m; d.cols = p.n;
      d.data = sess->last_output();
      Status ws = write_npy(o.prob.d_npy, d);
      if (!ws.ok()) { std::cerr << "pipegemm: " << ws.message << "\n"; ++failures; }
    }
  }
  if (o.json) {
    std::cout << nlohmann::json({{"device", dev.name}, {"seed", o.seed}, {"results", jr}}).dump(2) << "\n";
  } else {
    std::cout << "verify on " << dev.name << " (sm_" << dev.sm << "), inputs "
              << (from_files ? "from " + o.prob.a_npy + ", " + o.prob.b_npy : "uniform [-1,1] / int8 full range, seed " + std::to_string(o.seed))
              << "\n";
    for (auto& [k, s] : sessions)
      if (s) std::cout << "  tolerance [" << to_string(DType(std::get<0>(k))) << "/" << to_string(DType(std::get<1>(k)))
                       << "/" << to_string(DType(std::get<2>(k))) << "]: " << s->tolerance().rule << "\n";
    std::cout << table({"variant", "shape", "verdict", "detail"}, rows);
    std::cout << (failures ? "FAILED: " + std::to_string(failures) + " variant(s)\n" : "all verified variants PASS\n");
  }
  return failures ? kFail : kOk;
}

void add_verify(CLI::App& app, int* rc) {
  auto o = std::make_shared<VerifyOpts>();
  auto* cmd = app.add_subcommand("verify", "check variants against the CPU reference (every element)");
  add_problem_options(cmd, &o->prob, "512x512x512", true);
  add_selection_options(cmd, &o->sel);
  cmd->add_option("--seed", o->seed, "random seed (default: fresh each run, printed)");
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->callback([o, rc] { *rc = run_verify(*o); });
}

}  // namespace pipegemm::cli
