"""PyTorch ops on pipegemm: torch.library custom ops with fake (meta) implementations, so that
torch.compile traces them, and autograd formulas that run the backward GEMMs through pipegemm too
(dA = dD B, dB = dD^T A).

    import pipegemm.torch as pgt
    y = pgt.linear(x, w, bias, activation="gelu")   # GELU(F.linear(x, w, bias)), one fused GEMM
    c = pgt.mm(a, b)                                 # a @ b
    c = pgt.addmm(c0, a, b, beta=0.5, alpha=2.0)     # beta * c0 + alpha * (a @ b)

Each op runs on the current stream of the tensors' device and raises ValueError (pipegemm's reason)
for CPU tensors and shapes or types it refuses. alpha, beta * input, the bias and the activation run
in the GEMM's epilogue (fp32, before the cast); the backward recomputes the pre-activation.
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
    gemm_into(_strided(a.detach()), _strided(b_nk.detach()), out, stream=torch.cuda.current_stream(a.device).cuda_stream,
              alpha=alpha, beta=beta, c=None if c is None else c.detach(), bias=None if bias is None else bias.detach(),
              activation=activation)
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


# --- linear: activation(x (..., K) @ w (N,K)^T + bias) -- the TN GEMM, bias and activation fused ---
_TORCH_ACT = {
    "none": lambda y: y,
    "relu": torch.relu,
    "gelu_erf": torch.nn.functional.gelu,
    "gelu_tanh": lambda y: torch.nn.functional.gelu(y, approximate="tanh"),
}


@torch.library.custom_op("pipegemm::linear", mutates_args=())
def _linear(x: Tensor, w: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
    _cuda(x, "linear", "input")
    _cuda(w, "linear", "weight")
    if w.dim() != 2 or x.shape[-1] != w.shape[1]:
        raise ValueError(f"pipegemm.torch.linear: input {tuple(x.shape)} and weight {tuple(w.shape)} do not match")
    if bias is not None:
        _cuda(bias, "linear", "bias")
        if bias.dtype != _out_dtype(x):
            bias = bias.to(_out_dtype(x))
    out = _tn(x.reshape(-1, x.shape[-1]), w, bias=bias, activation=activation)
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
    g2 = grad.reshape(-1, grad.shape[-1])
    gx = _mm(g2, w).reshape(x.shape) if ctx.needs_input_grad[0] else None
    gw = _mm(g2.t(), x.reshape(-1, x.shape[-1])) if ctx.needs_input_grad[1] else None
    gb = g2.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return gx, gw, gb, None


_linear.register_autograd(_linear_backward, setup_context=_linear_setup)

_ACTIVATIONS = {None: "none", "none": "none", "relu": "relu", "gelu": "gelu_erf", "gelu_erf": "gelu_erf",
                "gelu_tanh": "gelu_tanh"}


def mm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b through pipegemm (torch.mm's semantics for 2-D CUDA tensors)."""
    return _mm(a, b)


def addmm(input: Tensor, a: Tensor, b: Tensor, *, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """beta * input + alpha * (a @ b) (torch.addmm's semantics)."""
    return _addmm(input, a, b, float(beta), float(alpha))


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: Optional[str] = None) -> Tensor:
    """activation(F.linear(x, weight, bias)), bias and activation fused into the GEMM's epilogue;
    activation: None, "relu", "gelu" (= "gelu_erf", PyTorch's default), "gelu_tanh"."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"pipegemm.torch.linear: activation {activation!r} is not one of none, relu, gelu, gelu_tanh")
    return _linear(x, weight, bias, _ACTIVATIONS[activation])
