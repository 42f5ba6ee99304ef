"""PyTorch ops on pipegemm: torch.library ops with fake (meta) implementations, so that
torch.compile traces them, and autograd formulas that run the backward GEMMs through pipegemm too
(dA = dD B, dB = dD^T A).

    import pipegemm.torch as pgt
    y = pgt.linear(x, w, bias, activation="gelu")   # GELU(F.linear(x, w, bias)), one fused GEMM
    c = pgt.mm(a, b)                                 # a @ b
    c = pgt.addmm(c0, a, b, beta=0.5, alpha=2.0)     # beta * c0 + alpha * (a @ b)

The ops are torch.ops.pipegemm.mm, .addmm and .linear. BACKEND says which implementation is in
use: "cpp", the C++ ops (_pipegemm_ops.torch-<torch version>.so beside this file, built where torch
was importable at build time: python/README.md), which cost about as much host time as the C++
call they make; or "python", torch.library.custom_op ops in this file, tens of microseconds more
per call. CPP_UNAVAILABLE says why not "cpp" (None when it is). PIPEGEMM_TORCH_BACKEND=python in
the environment picks the Python ops; =cpp makes the import fail when the C++ ops do not load.

Each op runs on the current stream of the tensors' device and raises ValueError (pipegemm's reason)
for CPU tensors and shapes or types it refuses. alpha, beta * input, the bias and the activation run
in the GEMM's epilogue (fp32, before the cast); the backward recomputes the pre-activation.
"""
import math
import os
import warnings
from types import SimpleNamespace
from typing import Iterable, Optional

import torch
from torch import Tensor

from ._pipegemm import gemm_into

__all__ = ["mm", "addmm", "linear", "BACKEND", "CPP_UNAVAILABLE"]


# --- the C++ ops ---------------------------------------------------------------------------------
def _cpp_library() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), f"_pipegemm_ops.torch-{torch.__version__}.so")


def _load_cpp():
    """Loads the C++ ops into torch.ops.pipegemm. Returns (None, False), or (why they are not used,
    whether that deserves a warning: built for another torch, or present but not loadable)."""
    if os.environ.get("PIPEGEMM_TORCH_BACKEND", "") == "python":
        return "PIPEGEMM_TORCH_BACKEND=python", False
    so = _cpp_library()
    here = os.path.dirname(so)
    if not os.path.exists(so):
        other = sorted(f for f in os.listdir(here) if f.startswith("_pipegemm_ops.torch-") and f.endswith(".so"))
        if other:
            return f"{', '.join(other)} in {here}: built for another torch than {torch.__version__} (rebuild)", True
        return (f"no {os.path.basename(so)} in {here} (built only where torch is importable at build time: "
                "pip install --no-build-isolation, python/README.md)"), False
    try:
        torch.ops.load_library(so)
    except (OSError, RuntimeError) as e:
        return f"loading {so} failed: {e}", True
    return None, False


# --- the Python ops (the fallback, and the comparison the C++ ops are measured against) -----------
def _cuda(t: Tensor, op: str, name: str) -> None:
    if not t.is_cuda:
        raise ValueError(f"pipegemm.torch.{op}: {name} is a CPU tensor; pipegemm runs on CUDA tensors")


def _out_dtype(t: Tensor) -> torch.dtype:
    return torch.int32 if t.dtype == torch.int8 else t.dtype


def _strided(t: Tensor) -> Tensor:
    """t as pipegemm takes a matrix: rows (or columns) contiguous and at least a row apart. A torch op
    takes any strides, so the others (an expanded tensor, strides (0, 1) or (0, 0); a slice of a
    transpose) are copied."""
    rows, cols = t.shape
    s0, s1 = t.stride()
    if ((s1 == 1 or cols == 1) and (rows == 1 or s0 >= cols)) or ((s0 == 1 or rows == 1) and (cols == 1 or s1 >= rows)):
        return t
    return t.contiguous()


def _tn(a: Tensor, b_nk: Tensor, *, alpha: float = 1.0, beta: float = 0.0, c: Optional[Tensor] = None,
        bias: Optional[Tensor] = None, activation: str = "none") -> Tensor:
    """activation(alpha * a (M,K) @ b_nk (N,K)^T + beta * c + bias) through pipegemm's auto, fused."""
    out = torch.empty((a.shape[0], b_nk.shape[0]), dtype=_out_dtype(a), device=a.device)
    # detach(): DLPack refuses tensors that require grad; autograd is the op's own (below).
    # The workspace, when the kernel needs one, from torch's caching allocator (graph-safe).
    gemm_into(_strided(a.detach()), _strided(b_nk.detach()), out, stream=torch.cuda.current_stream(a.device).cuda_stream,
              alpha=alpha, beta=beta, c=None if c is None else c.detach(), bias=None if bias is None else bias.detach(),
              activation=activation, workspace=lambda n: torch.empty(n, dtype=torch.uint8, device=a.device))
    return out


def _check_mm(op: str, a: Tensor, b: Tensor) -> None:
    _cuda(a, op, "mat1")
    _cuda(b, op, "mat2")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"pipegemm.torch.{op}: mat1 {tuple(a.shape)} and mat2 {tuple(b.shape)} cannot be multiplied")


_TORCH_ACT = {
    "none": lambda y: y,
    "relu": torch.relu,
    "gelu_erf": torch.nn.functional.gelu,
    "gelu_tanh": lambda y: torch.nn.functional.gelu(y, approximate="tanh"),
}

_PYTHON_OPS = {}


def _python_ops(namespace: str = "pipegemm") -> SimpleNamespace:
    """The Python custom ops <namespace>::mm, ::addmm, ::linear (defined once per namespace), as
    their OpOverloads. pipegemm.torch uses namespace "pipegemm" when the C++ ops are not loaded;
    another namespace gives the same ops beside the C++ ones (tests, python/bench_overhead.py)."""
    if namespace in _PYTHON_OPS:
        return _PYTHON_OPS[namespace]

    # --- mm: a (M,K) @ b (K,N) -------------------------------------------------------------------
    @torch.library.custom_op(f"{namespace}::mm", mutates_args=())
    def _mm(a: Tensor, b: Tensor) -> Tensor:
        _check_mm("mm", a, b)
        return _tn(a, b.t())

    @_mm.register_fake
    def _(a: Tensor, b: Tensor) -> Tensor:
        return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(a))

    def _mm_setup(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def _mm_backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = _mm(grad, b.t()) if ctx.needs_input_grad[0] else None
        gb = _mm(a.t(), grad) if ctx.needs_input_grad[1] else None
        return ga, gb

    _mm.register_autograd(_mm_backward, setup_context=_mm_setup)

    # --- addmm: beta * input + alpha * (a @ b) ---------------------------------------------------
    @torch.library.custom_op(f"{namespace}::addmm", mutates_args=())
    def _addmm(input: Tensor, a: Tensor, b: Tensor, beta: float, alpha: float) -> Tensor:
        _check_mm("addmm", a, b)
        _cuda(input, "addmm", "input")
        m, n = a.shape[0], b.shape[1]
        if beta == 1.0 and input.dim() == 1 and input.shape[0] == n and input.dtype == _out_dtype(a):
            return _tn(a, b.t(), alpha=alpha, bias=input.contiguous())  # nn.Linear's bias, fused
        if beta == 0.0:
            return _tn(a, b.t(), alpha=alpha)
        c = input.expand(m, n)
        if c.stride(-1) != 1 or c.stride(0) < n or c.dtype != _out_dtype(a):  # broadcast rows, another type
            c = c.to(_out_dtype(a)).contiguous()
        return _tn(a, b.t(), alpha=alpha, beta=beta, c=c)  # beta * C in the epilogue

    @_addmm.register_fake
    def _(input: Tensor, a: Tensor, b: Tensor, beta: float, alpha: float) -> Tensor:
        return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(a))

    def _addmm_setup(ctx, inputs, output):
        input, a, b, beta, alpha = inputs
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha, ctx.input_shape = beta, alpha, input.shape

    def _addmm_backward(ctx, grad):
        a, b = ctx.saved_tensors
        gi = (grad * ctx.beta).sum_to_size(ctx.input_shape) if ctx.needs_input_grad[0] else None
        ga = _mm(grad, b.t()) * ctx.alpha if ctx.needs_input_grad[1] else None
        gb = _mm(a.t(), grad) * ctx.alpha if ctx.needs_input_grad[2] else None
        return gi, ga, gb, None, None

    _addmm.register_autograd(_addmm_backward, setup_context=_addmm_setup)

    # --- linear: activation(x (..., K) @ w (N,K)^T + bias) -- the TN GEMM, bias and activation fused
    @torch.library.custom_op(f"{namespace}::linear", mutates_args=())
    def _linear(x: Tensor, w: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
        _cuda(x, "linear", "input")
        _cuda(w, "linear", "weight")
        if w.dim() != 2 or x.shape[-1] != w.shape[1]:
            raise ValueError(f"pipegemm.torch.linear: input {tuple(x.shape)} and weight {tuple(w.shape)} do not match")
        if bias is not None:
            _cuda(bias, "linear", "bias")
            if bias.dtype != _out_dtype(x):
                bias = bias.to(_out_dtype(x))
        rows = math.prod(x.shape[:-1])  # reshape(-1, K) cannot infer it at K = 0
        out = _tn(x.reshape(rows, x.shape[-1]), w, bias=bias, activation=activation)
        return out.reshape(*x.shape[:-1], w.shape[0])

    @_linear.register_fake
    def _(x: Tensor, w: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
        return x.new_empty((*x.shape[:-1], w.shape[0]), dtype=_out_dtype(x))

    def _linear_setup(ctx, inputs, output):
        x, w, bias, activation = inputs
        ctx.save_for_backward(x, w, bias)
        ctx.has_bias = bias is not None
        ctx.activation = activation

    def _linear_backward(ctx, grad):
        x, w, bias = ctx.saved_tensors
        if ctx.activation != "none":
            # The activation's gradient at the pre-activation z = x w^T + bias, recomputed by pipegemm
            # (not kept from the forward: the fused epilogue never writes z).
            z = _linear(x.detach(), w.detach(), None if bias is None else bias.detach(), "none")
            with torch.enable_grad():
                zz = z.detach().requires_grad_()
                (grad,) = torch.autograd.grad(_TORCH_ACT[ctx.activation](zz), zz, grad)
        rows = math.prod(x.shape[:-1])
        g2 = grad.reshape(rows, grad.shape[-1])
        gx = _mm(g2, w).reshape(x.shape) if ctx.needs_input_grad[0] else None
        gw = _mm(g2.t(), x.reshape(rows, x.shape[-1])) if ctx.needs_input_grad[1] else None
        gb = g2.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return gx, gw, gb, None

    _linear.register_autograd(_linear_backward, setup_context=_linear_setup)

    ns = getattr(torch.ops, namespace)
    ops = SimpleNamespace(namespace=namespace, mm=ns.mm.default, addmm=ns.addmm.default, linear=ns.linear.default)
    _PYTHON_OPS[namespace] = ops
    return ops


# --- which ops ----------------------------------------------------------------------------------
CPP_UNAVAILABLE, _loud = _load_cpp()
if CPP_UNAVAILABLE is None:
    BACKEND = "cpp"
    _OPS = SimpleNamespace(namespace="pipegemm", mm=torch.ops.pipegemm.mm.default,
                           addmm=torch.ops.pipegemm.addmm.default, linear=torch.ops.pipegemm.linear.default)
else:
    if os.environ.get("PIPEGEMM_TORCH_BACKEND", "") == "cpp":
        raise ImportError(f"pipegemm.torch: PIPEGEMM_TORCH_BACKEND=cpp, but the C++ ops are not loaded: {CPP_UNAVAILABLE}")
    if _loud:
        warnings.warn(f"pipegemm.torch: using the Python ops: {CPP_UNAVAILABLE}", RuntimeWarning, stacklevel=2)
    BACKEND = "python"
    _OPS = _python_ops("pipegemm")

# --- the functions --------------------------------------------------------------------------------
_ACTIVATIONS = {None: "none", "none": "none", "relu": "relu", "gelu": "gelu_erf", "gelu_erf": "gelu_erf",
                "gelu_tanh": "gelu_tanh"}


def _activation(activation: Optional[str]) -> str:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"pipegemm.torch.linear: activation {activation!r} is not one of none, relu, gelu, gelu_tanh")
    return _ACTIVATIONS[activation]


def mm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b through pipegemm (torch.mm's semantics for 2-D CUDA tensors)."""
    return _OPS.mm(a, b)


def addmm(input: Tensor, a: Tensor, b: Tensor, *, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """beta * input + alpha * (a @ b) (torch.addmm's semantics)."""
    return _OPS.addmm(input, a, b, float(beta), float(alpha))


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: Optional[str] = None) -> Tensor:
    """activation(F.linear(x, weight, bias)), bias and activation fused into the GEMM's epilogue;
    activation: None, "relu", "gelu" (= "gelu_erf", PyTorch's default), "gelu_tanh"."""
    return _OPS.linear(x, weight, bias, _activation(activation))


def _frontend(ops: SimpleNamespace) -> SimpleNamespace:
    """mm, addmm and linear (this module's signatures) over another set of ops, e.g.
    _frontend(_python_ops("pipegemm_py")): the Python ops beside the C++ ones, to compare."""
    return SimpleNamespace(
        namespace=ops.namespace, ops=ops,
        mm=lambda a, b: ops.mm(a, b),
        addmm=lambda input, a, b, *, beta=1.0, alpha=1.0: ops.addmm(input, a, b, float(beta), float(alpha)),
        linear=lambda x, weight, bias=None, activation=None: ops.linear(x, weight, bias, _activation(activation)))


# --- choices ahead of time (docs/deployment.md) -------------------------------------------------
_TORCH_TO_PG = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.int8: "i8"}


def linear_problems(model_or_shapes, batch_sizes: Iterable[int] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
                    dtype: Optional[torch.dtype] = None, activation: Optional[str] = None) -> list:
    """The GEMMs pipegemm.torch.linear runs for a model's nn.Linear layers (or for (N, K) / (N, K, bias)
    weight shapes) at each batch size (tokens): dicts for pipegemm.prepare."""
    layers = []
    if isinstance(model_or_shapes, torch.nn.Module):
        for mod in model_or_shapes.modules():
            if isinstance(mod, torch.nn.Linear):
                layers.append((mod.out_features, mod.in_features, mod.bias is not None, dtype or mod.weight.dtype))
    else:
        for s in model_or_shapes:
            n, k = int(s[0]), int(s[1])
            layers.append((n, k, bool(s[2]) if len(s) > 2 else False, dtype or torch.bfloat16))
    seen, out = set(), []
    for n, k, bias, dt in layers:
        if dt not in _TORCH_TO_PG:
            raise ValueError(f"pipegemm.torch.linear_problems: dtype {dt} is not float16, bfloat16, float32 or int8")
        for m in batch_sizes:
            key = (int(m), n, k, bias, dt)
            if key in seen:
                continue
            seen.add(key)
            out.append(dict(m=int(m), n=n, k=k, dtype=_TORCH_TO_PG[dt], bias=bias, activation=_activation(activation)))
    return out


def prepare(model_or_shapes, batch_sizes: Iterable[int] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
            dtype: Optional[torch.dtype] = None, activation: Optional[str] = None, force: bool = False,
            reps: int = 20, rounds: int = 3) -> list:
    """Times pipegemm's candidates (cuBLASLt's algorithms included) for every nn.Linear of a model, or
    every (N, K[, bias]) weight shape, at these batch sizes, on the current CUDA device -- before any
    CUDA graph capture. Calls afterwards, in this process, run what was fastest; pipegemm.save_choices()
    keeps the choices for the next process (pipegemm.load_choices()). Returns one dict per problem."""
    from . import prepare as _prepare
    return _prepare(linear_problems(model_or_shapes, batch_sizes, dtype, activation), force=force, reps=reps,
                    rounds=rounds)
