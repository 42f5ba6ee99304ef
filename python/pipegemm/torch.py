"""PyTorch ops on pipegemm: torch.library custom ops with fake (meta) implementations, so that
torch.compile traces them, and autograd formulas that run the backward GEMMs through pipegemm too
(dA = dD B, dB = dD^T A).

    import pipegemm.torch as pgt
    y = pgt.linear(x, w, bias, activation="gelu")   # F.linear(x, w, bias), then the activation
    c = pgt.mm(a, b)                                 # a @ b
    c = pgt.addmm(c0, a, b, beta=0.5, alpha=2.0)     # beta * c0 + alpha * (a @ b)

Each op runs on the current stream of the tensors' device and raises ValueError (pipegemm's reason)
for CPU tensors and shapes or types it refuses. Bias and beta are applied after the GEMM in torch
until the kernels' fused epilogues land (issue 13); the activation is torch's.
"""
from typing import Optional

import torch
from torch import Tensor

from ._pipegemm import gemm_into

__all__ = ["mm", "addmm", "linear"]


def _cuda(t: Tensor, op: str, name: str) -> None:
    if not t.is_cuda:
        raise ValueError(f"pipegemm.torch.{op}: {name} is a CPU tensor; pipegemm runs on CUDA tensors")


def _out_dtype(t: Tensor) -> torch.dtype:
    return torch.int32 if t.dtype == torch.int8 else t.dtype


def _strided(t: Tensor) -> Tensor:
    """t as pipegemm takes a matrix: rows or columns contiguous. A torch op takes any strides, so
    the others (an expanded gradient has strides (0, 0), a slice of a transpose neither) are copied."""
    rows, cols = t.shape
    if (t.stride(1) == 1 or cols == 1) or (t.stride(0) == 1 or rows == 1):
        return t
    return t.contiguous()


def _tn(a: Tensor, b_nk: Tensor) -> Tensor:
    """a (M,K) @ b_nk (N,K)^T through pipegemm's auto."""
    out = torch.empty((a.shape[0], b_nk.shape[0]), dtype=_out_dtype(a), device=a.device)
    # detach(): DLPack refuses tensors that require grad; autograd is the op's own (below).
    gemm_into(_strided(a.detach()), _strided(b_nk.detach()), out, stream=torch.cuda.current_stream(a.device).cuda_stream)
    return out


def _check_mm(op: str, a: Tensor, b: Tensor) -> None:
    _cuda(a, op, "mat1")
    _cuda(b, op, "mat2")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"pipegemm.torch.{op}: mat1 {tuple(a.shape)} and mat2 {tuple(b.shape)} cannot be multiplied")


# --- mm: a (M,K) @ b (K,N) ---------------------------------------------------------------------
@torch.library.custom_op("pipegemm::mm", mutates_args=())
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


# --- addmm: beta * input + alpha * (a @ b) -----------------------------------------------------
@torch.library.custom_op("pipegemm::addmm", mutates_args=())
def _addmm(input: Tensor, a: Tensor, b: Tensor, beta: float, alpha: float) -> Tensor:
    _check_mm("addmm", a, b)
    _cuda(input, "addmm", "input")
    out = _tn(a, b.t())
    if alpha != 1.0:
        out.mul_(alpha)
    if beta != 0.0:
        out.add_(input.expand_as(out), alpha=beta)
    return out


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


# --- linear: x (..., K) @ w (N,K)^T + bias -- the TN GEMM itself -------------------------------
@torch.library.custom_op("pipegemm::linear", mutates_args=())
def _linear(x: Tensor, w: Tensor, bias: Optional[Tensor]) -> Tensor:
    _cuda(x, "linear", "input")
    _cuda(w, "linear", "weight")
    if w.dim() != 2 or x.shape[-1] != w.shape[1]:
        raise ValueError(f"pipegemm.torch.linear: input {tuple(x.shape)} and weight {tuple(w.shape)} do not match")
    out = _tn(x.reshape(-1, x.shape[-1]), w)
    if bias is not None:
        _cuda(bias, "linear", "bias")
        out.add_(bias)
    return out.reshape(*x.shape[:-1], w.shape[0])


@_linear.register_fake
def _(x: Tensor, w: Tensor, bias: Optional[Tensor]) -> Tensor:
    return x.new_empty((*x.shape[:-1], w.shape[0]), dtype=_out_dtype(x))


def _linear_setup(ctx, inputs, output):
    x, w, bias = inputs
    ctx.save_for_backward(x, w)
    ctx.has_bias = bias is not None


def _linear_backward(ctx, grad):
    x, w = ctx.saved_tensors
    g2 = grad.reshape(-1, grad.shape[-1])
    gx = _mm(g2, w).reshape(x.shape) if ctx.needs_input_grad[0] else None
    gw = _mm(g2.t(), x.reshape(-1, x.shape[-1])) if ctx.needs_input_grad[1] else None
    gb = g2.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return gx, gw, gb


_linear.register_autograd(_linear_backward, setup_context=_linear_setup)

_ACTIVATIONS = {
    None: lambda y: y,
    "none": lambda y: y,
    "relu": torch.relu,
    "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda y: torch.nn.functional.gelu(y, approximate="tanh"),
}


def mm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b through pipegemm (torch.mm's semantics for 2-D CUDA tensors)."""
    return _mm(a, b)


def addmm(input: Tensor, a: Tensor, b: Tensor, *, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """beta * input + alpha * (a @ b) (torch.addmm's semantics)."""
    return _addmm(input, a, b, float(beta), float(alpha))


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: Optional[str] = None) -> Tensor:
    """activation(F.linear(x, weight, bias)); activation: None, "relu", "gelu" (erf), "gelu_tanh"."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"pipegemm.torch.linear: activation {activation!r} is not one of none, relu, gelu, gelu_tanh")
    return _ACTIVATIONS[activation](_linear(x, weight, bias))
