// _pipegemm: the C++ API for Python. Takes any DLPack tensor (torch, CuPy, JAX, ...), reads its
// type, shape and strides into a pipegemm::Problem, and runs gemm() on the caller's stream and the
// tensors' device. Everything is checked before any launch; a refusal raises ValueError with
// pipegemm's message, a CUDA failure RuntimeError. The Python side (pipegemm/__init__.py)
// allocates outputs and picks the framework's current stream.
#include <cuda_runtime.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace nb = nanobind;
using In = nb::ndarray<nb::ro>;
using Out = nb::ndarray<>;

namespace {

template <class T>
pipegemm::DType dtype_of(const T& t, const char* name) {
  using C = nb::dlpack::dtype_code;
  const nb::dlpack::dtype d = t.dtype();
  if (d.lanes == 1) {
    if (d.code == uint8_t(C::Float) && d.bits == 16) return pipegemm::DType::f16;
    if (d.code == uint8_t(C::Bfloat) && d.bits == 16) return pipegemm::DType::bf16;
    if (d.code == uint8_t(C::Float) && d.bits == 32) return pipegemm::DType::f32;
    if (d.code == uint8_t(C::Int) && d.bits == 8) return pipegemm::DType::i8;
    if (d.code == uint8_t(C::Int) && d.bits == 32) return pipegemm::DType::i32;
  }
  throw nb::value_error((std::string(name) + ": dtype not supported (float16, bfloat16, float32, int8, int32 for D)").c_str());
}

// A 2-D tensor as (rows, cols, layout, leading dimension): RowMajor when its columns are
// contiguous, ColMajor when its rows are; anything else (a transposed slice of a slice) refused.
template <class T>
void matrix_of(const T& t, const char* name, int64_t* rows, int64_t* cols, pipegemm::Layout* layout, int64_t* ld) {
  if (t.ndim() != 2) throw nb::value_error((std::string(name) + ": a 2-D tensor is needed").c_str());
  *rows = int64_t(t.shape(0));
  *cols = int64_t(t.shape(1));
  const int64_t s0 = t.stride(0), s1 = t.stride(1);
  // Rows (or columns) contiguous and apart by at least a row: an expanded tensor (stride 0), whose
  // rows share their elements, is no matrix pipegemm can read (ld 0 would mean "packed").
  if ((s1 == 1 || *cols == 1) && (*rows == 1 || s0 >= *cols)) {
    *layout = pipegemm::Layout::RowMajor;
    *ld = *rows == 1 ? *cols : s0;
  } else if ((s0 == 1 || *rows == 1) && (*cols == 1 || s1 >= *rows)) {
    *layout = pipegemm::Layout::ColMajor;
    *ld = *cols == 1 ? *rows : s1;
  } else {
    throw nb::value_error((std::string(name) + ": neither its rows nor its columns are contiguous and apart (strides " +
                           std::to_string(s0) + ", " + std::to_string(s1) + "); pass a .contiguous() copy")
                              .c_str());
  }
}

pipegemm::DType parse_acc(const std::string& acc, pipegemm::DType a) {
  if (acc.empty()) return a == pipegemm::DType::i8 ? pipegemm::DType::i32 : pipegemm::DType::f32;
  for (pipegemm::DType t : {pipegemm::DType::f16, pipegemm::DType::f32, pipegemm::DType::i32})
    if (acc == pipegemm::to_string(t)) return t;
  throw nb::value_error(("acc: '" + acc + "' is not f16, f32 or i32").c_str());
}

pipegemm::Activation parse_act(const std::string& a) {
  pipegemm::Activation act;
  if (!pipegemm::parse_activation(a, &act))
    throw nb::value_error(("activation: '" + a + "' is not none, relu, gelu_tanh or gelu_erf").c_str());
  return act;
}

// out (M,N) = act(alpha * A (M,K) B (N,K)^T + beta * C + bias). Returns the variant that ran.
std::string gemm_into(In a, In b, Out d, const std::string& variant, const std::string& acc, uintptr_t stream,
                      float alpha, float beta, std::optional<In> c, std::optional<In> bias, bool bias_per_row,
                      const std::string& activation, std::optional<nb::callable> workspace) {
  const In* ins[] = {&a, &b};
  const char* names[] = {"a", "b"};
  for (int i = 0; i < 2; ++i)
    if (ins[i]->device_type() != nb::device::cuda::value)
      throw nb::value_error((std::string(names[i]) + " is not on a CUDA device: pipegemm runs on CUDA tensors").c_str());
  if (d.device_type() != nb::device::cuda::value)
    throw nb::value_error("out is not on a CUDA device: pipegemm runs on CUDA tensors");
  if (a.device_id() != b.device_id() || a.device_id() != d.device_id())
    throw nb::value_error("a, b and out are on different CUDA devices");

  pipegemm::Problem p;
  int64_t ar, ac, br, bc, dr, dc;
  matrix_of(a, "a", &ar, &ac, &p.a_layout, &p.lda);
  matrix_of(b, "b", &br, &bc, &p.b_layout, &p.ldb);
  matrix_of(d, "out", &dr, &dc, &p.d_layout, &p.ldd);
  if (ac != bc || dr != ar || dc != br)
    throw nb::value_error(("shapes: a (" + std::to_string(ar) + ", " + std::to_string(ac) + "), b (" +
                           std::to_string(br) + ", " + std::to_string(bc) + "), out (" + std::to_string(dr) + ", " +
                           std::to_string(dc) + "): D (M,N) = A (M,K) B (N,K)^T needs a (M,K), b (N,K), out (M,N)")
                              .c_str());
  p.m = ar;
  p.n = br;
  p.k = ac;
  p.a_type = dtype_of(a, "a");
  p.b_type = dtype_of(b, "b");
  p.d_type = dtype_of(d, "out");
  p.acc_type = parse_acc(acc, p.a_type);
  p.alpha = alpha;
  p.beta = beta;
  p.activation = parse_act(activation);
  pipegemm::Operands x{a.data(), b.data(), d.data()};
  if (beta != 0.f) {
    if (!c) throw nb::value_error("beta != 0 needs c, an (M,N) tensor");
    if (c->device_type() != nb::device::cuda::value || c->device_id() != a.device_id())
      throw nb::value_error("c is not on the tensors' CUDA device");
    int64_t cr, cc;
    pipegemm::Layout cl;
    matrix_of(*c, "c", &cr, &cc, &cl, &p.ldc);
    if (cr != p.m || cc != p.n) throw nb::value_error("c must be (M,N), the shape of out");
    if (cl != p.d_layout) throw nb::value_error("c must have out's layout (both row- or both column-major)");
    p.c_type = dtype_of(*c, "c");
    x.c = c->data();
  }
  if (bias) {
    if (bias->device_type() != nb::device::cuda::value || bias->device_id() != a.device_id())
      throw nb::value_error("bias is not on the tensors' CUDA device");
    const int64_t want = bias_per_row ? p.m : p.n;
    if (bias->ndim() != 1 || int64_t(bias->shape(0)) != want || (want > 1 && bias->stride(0) != 1))
      throw nb::value_error(("bias must be a contiguous 1-D tensor of " + std::to_string(want) +
                             (bias_per_row ? " (M) values" : " (N) values")).c_str());
    p.bias = bias_per_row ? pipegemm::Bias::per_row : pipegemm::Bias::per_col;
    p.bias_type = dtype_of(*bias, "bias");
    x.bias = bias->data();
  }

  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) throw std::runtime_error("pipegemm: no usable CUDA device");
  const int dev = int(a.device_id());
  if (dev != prev && cudaSetDevice(dev) != cudaSuccess) throw std::runtime_error("pipegemm: cudaSetDevice failed");
  std::string chosen;
  pipegemm::Status s;
  pipegemm::GemmCall call;
  {
    nb::gil_scoped_release release;
    s = pipegemm::GemmCall::make(p, variant.empty() ? "auto" : variant, x, &call);
  }
  // The workspace, when the variant needs one, from the caller's allocator (torch's caching one in
  // pipegemm.torch), held until the call is queued: stream-ordered reuse makes that enough.
  nb::object held;
  if (s.ok() && workspace)
    if (const size_t bytes = call.workspace_bytes(x); bytes > 0) {
      held = (*workspace)(bytes);
      Out w = nb::cast<Out>(held);
      x.workspace = w.data();
      x.workspace_bytes = bytes;
    }
  if (s.ok()) {
    nb::gil_scoped_release release;
    s = call.launch(x, reinterpret_cast<cudaStream_t_>(stream), &chosen);
  }
  if (dev != prev) cudaSetDevice(prev);
  if (s.ok()) return chosen;
  if (s.code == pipegemm::StatusCode::invalid_argument || s.code == pipegemm::StatusCode::not_supported)
    throw nb::value_error(("pipegemm: " + s.message).c_str());
  throw std::runtime_error("pipegemm: " + s.message);
}

// One problem of prepare(): a dict of m, n, k and, optionally, dtype ("f16", "bf16", "f32", "i8"),
// out_dtype, layout ("TN", "NN", "NT", "TT"), bias (per column), activation, batch.
pipegemm::Problem problem_of(const nb::dict& d) {
  auto get = [&](const char* key) { return d.contains(key) ? nb::object(d[key]) : nb::object(); };
  auto str = [&](const char* key, const char* dflt) {
    nb::object o = get(key);
    return o.is_valid() && !o.is_none() ? nb::cast<std::string>(o) : std::string(dflt);
  };
  pipegemm::Problem p;
  for (const char* key : {"m", "n", "k"})
    if (!get(key).is_valid()) throw nb::value_error((std::string("prepare: a problem needs '") + key + "'").c_str());
  p.m = nb::cast<int64_t>(get("m"));
  p.n = nb::cast<int64_t>(get("n"));
  p.k = nb::cast<int64_t>(get("k"));
  if (get("batch").is_valid()) p.batch = nb::cast<int64_t>(get("batch"));
  const std::string dt = str("dtype", "bf16");
  if (!pipegemm::parse_dtype(dt, &p.a_type)) throw nb::value_error(("prepare: dtype '" + dt + "'").c_str());
  p.b_type = p.a_type;
  p.acc_type = parse_acc(str("acc", ""), p.a_type);
  const std::string out = str("out_dtype", p.a_type == pipegemm::DType::i8 ? "i32" : dt.c_str());
  if (!pipegemm::parse_dtype(out, &p.d_type)) throw nb::value_error(("prepare: out_dtype '" + out + "'").c_str());
  const std::string layout = str("layout", "TN");
  if (!pipegemm::parse_layout_name(layout, &p.a_layout, &p.b_layout))
    throw nb::value_error(("prepare: layout '" + layout + "' is not TN, NN, NT or TT").c_str());
  nb::object bias = get("bias");
  if (bias.is_valid() && nb::cast<bool>(bias)) p.bias = pipegemm::Bias::per_col;
  if (nb::object alpha = get("alpha"); alpha.is_valid()) p.alpha = nb::cast<float>(alpha);
  if (nb::object beta = get("beta"); beta.is_valid()) p.beta = nb::cast<float>(beta);
  p.activation = parse_act(str("activation", "none"));
  return p;
}

std::vector<nb::dict> prepare(const std::vector<nb::dict>& problems, bool force, int reps, int rounds, double prune,
                              bool c_in_place, uintptr_t stream) {
  std::vector<pipegemm::Problem> ps;
  for (const nb::dict& d : problems) ps.push_back(problem_of(d));
  pipegemm::PrepareOptions opt;
  opt.force = force;
  opt.reps = reps;
  opt.rounds = rounds;
  opt.prune = prune;
  opt.c_in_place = c_in_place;
  opt.stream = reinterpret_cast<cudaStream_t_>(stream);
  std::vector<pipegemm::PrepareResult> rs;
  pipegemm::Status s;
  {
    nb::gil_scoped_release release;
    s = pipegemm::prepare(ps, opt, &rs);
  }
  if (s.code == pipegemm::StatusCode::no_device) throw std::runtime_error("pipegemm.prepare: " + s.message);
  std::vector<nb::dict> out;
  for (const pipegemm::PrepareResult& r : rs) {
    nb::dict d;
    d["shape"] = r.shape;
    d["bucket"] = r.bucket;
    d["best"] = r.best;
    d["best_us"] = r.best_us;
    d["timed"] = r.timed;
    d["cached"] = r.cached;
    d["error"] = r.status.ok() ? std::string() : r.status.message;
    out.push_back(std::move(d));
  }
  return out;
}

void check(const pipegemm::Status& s, const char* what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.message);
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const pipegemm::Variant& v : pipegemm::variants()) out.push_back(v.name);
  return out;
}

}  // namespace

NB_MODULE(_pipegemm, m) {
  m.doc() = "pipegemm's C++ API (use the pipegemm package, not this module)";
  m.attr("__version__") = PIPEGEMM_PY_VERSION;
  m.def("gemm_into", &gemm_into, nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("variant") = "auto",
        nb::arg("acc") = "", nb::arg("stream") = 0, nb::kw_only(), nb::arg("alpha") = 1.0f, nb::arg("beta") = 0.0f,
        nb::arg("c") = nb::none(), nb::arg("bias") = nb::none(), nb::arg("bias_per_row") = false,
        nb::arg("activation") = "none", nb::arg("workspace") = nb::none(),
        "out (M,N) = activation(alpha * a (M,K) @ b (N,K)^T + beta * c + bias) on the tensors' device and the given "
        "stream; bias: N values (per column; bias_per_row: M values); workspace: a callable bytes -> a CUDA tensor of "
        "at least that many bytes, asked only when the variant needs scratch; returns the variant run");
  m.def("variants", &variant_names, "the registered variant names (kernels and cuBLAS peers)");
  m.def("prepare", &prepare, nb::arg("problems"), nb::kw_only(), nb::arg("force") = false, nb::arg("reps") = 20,
        nb::arg("rounds") = 3, nb::arg("prune") = 3.0, nb::arg("c_in_place") = false, nb::arg("stream") = 0,
        "time auto's candidates for each problem (dicts: m, n, k, dtype, out_dtype, layout, alpha, beta, bias, "
        "activation, batch) on the current device; calls afterwards run the fastest (pipegemm.prepare)");
  m.def("save_choices", [](const std::string& path) { check(pipegemm::save_choices(path), "pipegemm.save_choices"); },
        nb::arg("path"), "prepare()'s choices to a tune table file");
  m.def("load_choices", [](const std::string& path) { check(pipegemm::load_choices(path), "pipegemm.load_choices"); },
        nb::arg("path"), "a tune table file (saved choices or `pipegemm tune`) that auto consults first");
  m.def("clear_choices", &pipegemm::clear_choices, "forget prepare()'s and the loaded choices");
}
