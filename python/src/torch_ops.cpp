// _pipegemm_ops: pipegemm's torch ops in C++ (issue 15), loaded by pipegemm.torch with
// torch.ops.load_library. The same three ops, schemas and semantics as pipegemm/torch.py's Python
// custom ops (its fallback), without Python on the call path:
//
//   pipegemm::mm(Tensor a, Tensor b) -> Tensor                                   a @ b
//   pipegemm::addmm(Tensor input, Tensor a, Tensor b, float beta, float alpha) -> Tensor
//   pipegemm::linear(Tensor x, Tensor w, Tensor? bias, str activation) -> Tensor  act(x w^T + bias)
//
// CUDA: the GEMM through pipegemm's auto, on the current stream of the tensors' device (a device
// guard for it); alpha, beta * input, the bias and the activation in the epilogue. CPU: refused
// with the same ValueError as the Python ops. Meta: shapes and dtypes only (torch.compile, fake
// tensors; symbolic sizes kept symbolic). Autograd: torch::autograd::Function whose backward
// calls these ops (dA = dD B, dB = dD^T A), the activation's gradient at the pre-activation
// recomputed by pipegemm (the fused epilogue never writes it), as in the Python version. A call
// with nothing to differentiate goes straight below autograd (no graph node is made).
//
// Errors: a refusal (CPU tensor, shapes, dtype, or pipegemm's invalid_argument / not_supported)
// is a c10::ValueError (Python ValueError) carrying the reason, a CUDA failure a c10::Error
// (RuntimeError). This file sees pipegemm through torch_bridge.hpp only (torch's C++ ABI flag).
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/accumulate.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "pipegemm/pipegemm.hpp"
#include "torch_bridge.hpp"

namespace {

using at::Tensor;
using pipegemm::Activation;
using pipegemm::DType;
using pipegemm::Layout;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// ---- checks, with the Python ops' messages -----------------------------------------------------

// Python's repr of a shape tuple: (37, 64), (5,), ().
std::string shape_str(at::IntArrayRef s) {
  std::ostringstream o;
  o << '(';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << (s.size() == 1 ? ",)" : ")");
  return o.str();
}

void need_cuda(const Tensor& t, const char* op, const char* name) {
  TORCH_CHECK_VALUE(t.is_cuda(), "pipegemm.torch.", op, ": ", name, " is a CPU tensor; pipegemm runs on CUDA tensors");
}

void same_device(const Tensor& t, const Tensor& a, const char* op, const char* name, const char* a_name) {
  TORCH_CHECK_VALUE(t.device() == a.device(), "pipegemm.torch.", op, ": ", name, " is on ", t.device(), ", ", a_name,
                    " on ", a.device(), "; pipegemm runs on the tensors' one device");
}

void check_mm(const char* op, const Tensor& a, const Tensor& b) {
  need_cuda(a, op, "mat1");
  need_cuda(b, op, "mat2");
  TORCH_CHECK_VALUE(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0), "pipegemm.torch.", op, ": mat1 ",
                    shape_str(a.sizes()), " and mat2 ", shape_str(b.sizes()), " cannot be multiplied");
}

at::ScalarType out_type(at::ScalarType t) { return t == at::kChar ? at::kInt : t; }

DType dtype_of(const Tensor& t, const char* op, const char* name) {
  switch (t.scalar_type()) {
    case at::kHalf: return DType::f16;
    case at::kBFloat16: return DType::bf16;
    case at::kFloat: return DType::f32;
    case at::kChar: return DType::i8;
    case at::kInt: return DType::i32;
    default: break;
  }
  TORCH_CHECK_VALUE(false, "pipegemm.torch.", op, ": ", name, ": dtype ", t.scalar_type(),
                    " not supported (float16, bfloat16, float32, int8; int32 for the output)");
  return DType::f16;
}

Activation activation_of(c10::string_view s, const char* op) {
  Activation a = Activation::none;
  TORCH_CHECK_VALUE(pipegemm::parse_activation(std::string_view(s.data(), s.size()), &a), "pipegemm.torch.", op,
                    ": activation '", std::string(s.data(), s.size()), "' is not none, relu, gelu_tanh or gelu_erf");
  return a;
}

// ---- the GEMM ------------------------------------------------------------------------------------

// A 2-D tensor as pipegemm reads it (python/src/module.cpp's rule): RowMajor when its columns are
// contiguous, ColMajor when its rows are (a transpose: passed as is, no copy), rows or columns at
// least a row apart. Anything else (an expanded tensor, whose rows share elements; a slice of a
// transpose) is copied, as pipegemm/torch.py's _strided does: a torch op takes any strides.
struct Matrix {
  Tensor t;
  Layout layout = Layout::RowMajor;
  int64_t ld = 0;
};

bool as_matrix(const Tensor& t, Layout* layout, int64_t* ld) {
  const int64_t rows = t.size(0), cols = t.size(1), s0 = t.stride(0), s1 = t.stride(1);
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= cols)) {
    *layout = Layout::RowMajor;
    *ld = rows == 1 ? cols : s0;
    return true;
  }
  if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= rows)) {
    *layout = Layout::ColMajor;
    *ld = cols == 1 ? rows : s1;
    return true;
  }
  return false;
}

Matrix matrix(const Tensor& t) {
  Matrix m{t};
  if (!as_matrix(t, &m.layout, &m.ld)) {
    m.t = t.contiguous();
    as_matrix(m.t, &m.layout, &m.ld);
  }
  return m;
}

// activation(alpha * a (M,K) @ b (N,K)^T + beta * c + bias) through pipegemm's auto, fused; the
// output (M,N) row-major, a's type (int8: int32). c: (M,N) row-major, read when beta != 0.
Tensor tn(const char* op, const char* a_name, const char* b_name, const Tensor& a_in, const Tensor& b_in,
          double alpha, double beta, const Tensor* c, const Tensor* bias, Activation act) {
  same_device(b_in, a_in, op, b_name, a_name);
  const c10::cuda::CUDAGuard guard(a_in.device());
  const Matrix a = matrix(a_in), b = matrix(b_in);
  pipegemm::Problem p;
  p.m = a.t.size(0);
  p.n = b.t.size(0);
  p.k = a.t.size(1);
  p.a_layout = a.layout;
  p.lda = a.ld;
  p.b_layout = b.layout;
  p.ldb = b.ld;
  p.a_type = dtype_of(a.t, op, a_name);
  p.b_type = dtype_of(b.t, op, b_name);
  p.acc_type = p.a_type == DType::i8 ? DType::i32 : DType::f32;
  p.alpha = float(alpha);
  p.beta = float(beta);
  p.activation = act;
  Tensor out = at::empty({p.m, p.n}, a.t.options().dtype(out_type(a.t.scalar_type())));
  p.d_type = dtype_of(out, op, "the output");
  p.d_layout = Layout::RowMajor;
  p.ldd = p.n;
  pipegemm::Operands x{a.t.data_ptr(), b.t.data_ptr(), out.data_ptr()};
  if (p.beta != 0.f) {
    TORCH_CHECK_VALUE(c != nullptr, "pipegemm.torch.", op, ": beta != 0 needs an input");
    same_device(*c, a_in, op, "input", a_name);
    Layout cl = Layout::RowMajor;
    int64_t ldc = 0;
    TORCH_CHECK_VALUE(c->dim() == 2 && c->size(0) == p.m && c->size(1) == p.n && as_matrix(*c, &cl, &ldc) &&
                          cl == Layout::RowMajor,
                      "pipegemm.torch.", op, ": C must be a row-major (M,N) matrix");
    p.ldc = ldc;
    p.c_type = dtype_of(*c, op, "input");
    x.c = c->data_ptr();
  }
  if (bias != nullptr) {
    same_device(*bias, a_in, op, "bias", a_name);
    TORCH_CHECK_VALUE(bias->dim() == 1 && bias->size(0) == p.n && (p.n <= 1 || bias->stride(0) == 1), "pipegemm.torch.",
                      op, ": the bias must be a contiguous 1-D tensor of ", p.n, " (N) values");
    p.bias = pipegemm::Bias::per_col;
    p.bias_type = dtype_of(*bias, op, "bias");
    x.bias = bias->data_ptr();
  }
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(a_in.device().index()).stream();
  const char* why = "";
  // The workspace, when the kernel needs one, from torch's caching allocator: freed into the
  // stream's pool after the call, graph-safe inside torch.cuda.graph (its private pool).
  struct Workspace {
    at::TensorOptions options;
    Tensor held;
  } ws{a.t.options().dtype(at::kByte), Tensor()};
  const auto take = [](size_t bytes, void* ctx) -> void* {
    auto* w = static_cast<Workspace*>(ctx);
    w->held = at::empty({int64_t(bytes)}, w->options);
    return w->held.data_ptr();
  };
  const int code = pipegemm_torch::run_gemm(p, x, stream, take, &ws, &why);
  if (code == 0) return out;
  TORCH_CHECK_VALUE(code != int(pipegemm::StatusCode::invalid_argument) && code != int(pipegemm::StatusCode::not_supported),
                    "pipegemm: ", why);
  TORCH_CHECK(false, "pipegemm: ", why);
  return out;
}

// ---- the kernels of the CUDA (and CPU: refused) key ------------------------------------------------

Tensor mm_kernel(const Tensor& a, const Tensor& b) {
  check_mm("mm", a, b);
  return tn("mm", "mat1", "mat2", a, b.t(), 1.0, 0.0, nullptr, nullptr, Activation::none);
}

Tensor addmm_kernel(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  check_mm("addmm", a, b);
  need_cuda(input, "addmm", "input");
  const int64_t m = a.size(0), n = b.size(1);
  const at::ScalarType dt = out_type(a.scalar_type());
  if (beta == 1.0 && input.dim() == 1 && input.size(0) == n && input.scalar_type() == dt) {
    const Tensor bias = input.contiguous();  // nn.Linear's bias, fused
    return tn("addmm", "mat1", "mat2", a, b.t(), alpha, 0.0, nullptr, &bias, Activation::none);
  }
  if (beta == 0.0) return tn("addmm", "mat1", "mat2", a, b.t(), alpha, 0.0, nullptr, nullptr, Activation::none);
  Tensor c = input.expand({m, n});
  if (c.stride(-1) != 1 || c.stride(0) < n || c.scalar_type() != dt) c = c.to(dt).contiguous();  // broadcast rows, another type
  return tn("addmm", "mat1", "mat2", a, b.t(), alpha, beta, &c, nullptr, Activation::none);  // beta * C in the epilogue
}

Tensor linear_kernel(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, c10::string_view activation) {
  need_cuda(x, "linear", "input");
  need_cuda(w, "linear", "weight");
  TORCH_CHECK_VALUE(w.dim() == 2 && x.dim() >= 1 && x.size(-1) == w.size(1), "pipegemm.torch.linear: input ",
                    shape_str(x.sizes()), " and weight ", shape_str(w.sizes()), " do not match");
  const Activation act = activation_of(activation, "linear");
  Tensor b;
  if (bias.has_value() && bias->defined()) {
    need_cuda(*bias, "linear", "bias");
    const at::ScalarType dt = out_type(x.scalar_type());
    b = (bias->scalar_type() == dt ? *bias : bias->to(dt)).contiguous();
  }
  // (rows, K) with rows the product of x's leading dimensions: reshape({-1, K}) cannot infer it at K = 0.
  const int64_t rows = c10::multiply_integers(x.sizes().begin(), x.sizes().end() - 1);
  const Tensor out = tn("linear", "input", "weight", x.reshape({rows, x.size(-1)}), w, 1.0, 0.0, nullptr,
                        b.defined() ? &b : nullptr, act);
  at::DimVector shape(x.sizes().begin(), x.sizes().end());
  shape.back() = w.size(0);
  return out.view(shape);
}

// ---- Meta: the fake implementations (shapes, dtypes; symbolic sizes stay symbolic) ----------------

Tensor mm_meta(const Tensor& a, const Tensor& b) {
  TORCH_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "pipegemm.torch.mm: mat1 and mat2 must be 2-D");
  return at::empty_symint({a.sym_size(0), b.sym_size(1)}, a.options().dtype(out_type(a.scalar_type())));
}

Tensor addmm_meta(const Tensor&, const Tensor& a, const Tensor& b, double, double) {
  TORCH_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "pipegemm.torch.addmm: mat1 and mat2 must be 2-D");
  return at::empty_symint({a.sym_size(0), b.sym_size(1)}, a.options().dtype(out_type(a.scalar_type())));
}

Tensor linear_meta(const Tensor& x, const Tensor& w, const std::optional<Tensor>&, c10::string_view) {
  TORCH_CHECK_VALUE(x.dim() >= 1 && w.dim() == 2, "pipegemm.torch.linear: input ", x.dim(), "-D and weight ", w.dim(),
                    "-D do not match");
  c10::SymDimVector shape(x.sym_sizes().begin(), x.sym_sizes().end());
  shape.back() = w.sym_size(0);
  return at::empty_symint(shape, x.options().dtype(out_type(x.scalar_type())));
}

// ---- Autograd ------------------------------------------------------------------------------------

using MmSig = Tensor(const Tensor&, const Tensor&);
using AddmmSig = Tensor(const Tensor&, const Tensor&, const Tensor&, double, double);
using LinearSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, c10::string_view);

template <class Sig>
c10::TypedOperatorHandle<Sig> find_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}
const c10::TypedOperatorHandle<MmSig>& mm_op() {
  static const auto op = find_op<MmSig>("pipegemm::mm");
  return op;
}
const c10::TypedOperatorHandle<AddmmSig>& addmm_op() {
  static const auto op = find_op<AddmmSig>("pipegemm::addmm");
  return op;
}
const c10::TypedOperatorHandle<LinearSig>& linear_op() {
  static const auto op = find_op<LinearSig>("pipegemm::linear");
  return op;
}

// Whether a call must go through autograd: an input that requires grad (grad mode on), or one
// with a forward-mode tangent (refused there by the Function: no jvp, as in the Python ops).
bool tracked(const Tensor& t) {
  return t.defined() && ((c10::GradMode::is_enabled() && t.requires_grad()) || t._fw_grad(/*level=*/0).defined());
}

struct MmFunction : torch::autograd::Function<MmFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({a, b});
    return mm_op().call(a, b);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const Tensor& g = grads[0];
    Tensor ga, gb;
    if (ctx->needs_input_grad(0)) ga = mm_op().call(g, s[1].t());
    if (ctx->needs_input_grad(1)) gb = mm_op().call(s[0].t(), g);
    return {ga, gb};
  }
};

struct AddmmFunction : torch::autograd::Function<AddmmFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& a, const Tensor& b, double beta,
                        double alpha) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({a, b});
    ctx->saved_data["beta"] = beta;
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["input_shape"] = input.sym_sizes();
    return addmm_op().call(input, a, b, beta, alpha);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const Tensor& g = grads[0];
    const double beta = ctx->saved_data["beta"].toDouble(), alpha = ctx->saved_data["alpha"].toDouble();
    Tensor gi, ga, gb;
    if (ctx->needs_input_grad(0)) gi = (g * beta).sum_to_size_symint(ctx->saved_data["input_shape"].toSymIntVector());
    if (ctx->needs_input_grad(1)) ga = mm_op().call(g, s[1].t()) * alpha;
    if (ctx->needs_input_grad(2)) gb = mm_op().call(s[0].t(), g) * alpha;
    return {gi, ga, gb, Tensor(), Tensor()};
  }
};

struct LinearFunction : torch::autograd::Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias,
                        c10::string_view activation) {
    at::AutoDispatchBelowADInplaceOrView below;
    const bool has_bias = bias.has_value() && bias->defined();
    ctx->save_for_backward({x, w, has_bias ? *bias : Tensor()});
    ctx->saved_data["has_bias"] = has_bias;
    ctx->saved_data["activation"] = static_cast<int64_t>(activation_of(activation, "linear"));
    return linear_op().call(x, w, bias, activation);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    const Tensor &x = s[0], &w = s[1], &bias = s[2];
    const bool has_bias = ctx->saved_data["has_bias"].toBool();
    const auto act = static_cast<Activation>(ctx->saved_data["activation"].toInt());
    Tensor g = grads[0];
    if (act != Activation::none) {
      // The activation's gradient at the pre-activation z = x w^T + bias, recomputed by pipegemm
      // (not kept from the forward: the fused epilogue never writes z), as the Python ops do.
      Tensor z;
      {
        at::NoGradGuard no_grad;
        z = linear_op().call(x, w, has_bias ? std::optional<Tensor>(bias) : std::nullopt, "none");
      }
      if (act == Activation::relu)
        g = at::threshold_backward(g, z, 0);
      else
        g = at::gelu_backward(g, z, act == Activation::gelu_tanh ? "tanh" : "none");
    }
    const Tensor g2 = g.reshape_symint({-1, g.sym_size(-1)});
    Tensor gx, gw, gb;
    if (ctx->needs_input_grad(0)) gx = mm_op().call(g2, w).reshape_symint(x.sym_sizes());
    if (ctx->needs_input_grad(1)) gw = mm_op().call(g2.t(), x.reshape_symint({-1, x.sym_size(-1)}));
    if (has_bias && ctx->needs_input_grad(2)) gb = g2.sum(0);
    return {gx, gw, gb, Tensor()};
  }
};

Tensor mm_autograd(const Tensor& a, const Tensor& b) {
  if (tracked(a) || tracked(b)) return MmFunction::apply(a, b);
  at::AutoDispatchBelowADInplaceOrView below;
  return mm_op().call(a, b);
}

Tensor addmm_autograd(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  if (tracked(input) || tracked(a) || tracked(b)) return AddmmFunction::apply(input, a, b, beta, alpha);
  at::AutoDispatchBelowADInplaceOrView below;
  return addmm_op().call(input, a, b, beta, alpha);
}

Tensor linear_autograd(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, c10::string_view activation) {
  if (tracked(x) || tracked(w) || (bias.has_value() && tracked(*bias))) return LinearFunction::apply(x, w, bias, activation);
  at::AutoDispatchBelowADInplaceOrView below;
  return linear_op().call(x, w, bias, activation);
}

}  // namespace

TORCH_LIBRARY(pipegemm, m) {
  // The schemas torch.library.custom_op gives the Python ops (pipegemm/torch.py), and its tag.
  const std::vector<at::Tag> tags = {at::Tag::pt2_compliant_tag};
  m.def("mm(Tensor a, Tensor b) -> Tensor", tags);
  m.def("addmm(Tensor input, Tensor a, Tensor b, float beta, float alpha) -> Tensor", tags);
  m.def("linear(Tensor x, Tensor w, Tensor? bias, str activation) -> Tensor", tags);
}

TORCH_LIBRARY_IMPL(pipegemm, CUDA, m) {
  m.impl("mm", &mm_kernel);
  m.impl("addmm", &addmm_kernel);
  m.impl("linear", &linear_kernel);
}

// CPU tensors reach the same kernels, which refuse them with the Python ops' ValueError (not the
// dispatcher's NotImplementedError).
TORCH_LIBRARY_IMPL(pipegemm, CPU, m) {
  m.impl("mm", &mm_kernel);
  m.impl("addmm", &addmm_kernel);
  m.impl("linear", &linear_kernel);
}

TORCH_LIBRARY_IMPL(pipegemm, Meta, m) {
  m.impl("mm", &mm_meta);
  m.impl("addmm", &addmm_meta);
  m.impl("linear", &linear_meta);
}

TORCH_LIBRARY_IMPL(pipegemm, Autograd, m) {
  m.impl("mm", &mm_autograd);
  m.impl("addmm", &addmm_autograd);
  m.impl("linear", &linear_autograd);
}
