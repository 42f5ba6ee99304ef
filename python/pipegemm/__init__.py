"""pipegemm: software-pipelined tiled GEMM on NVIDIA tensor cores.

    import pipegemm
    d = pipegemm.gemm(a, b)           # D (M,N) = A (M,K) @ B (N,K)^T, the variant chosen by "auto"
    d = pipegemm.gemm(x, w, bias=b, activation="gelu_tanh")   # a fused nn.Linear + GELU

a and b are CUDA tensors of any DLPack framework (torch, CuPy, JAX, ...), row- or column-major;
the output is allocated with a's framework (torch, CuPy) unless `out` is given. The call runs on
the framework's current stream and the tensors' device. PyTorch ops (torch.compile, autograd):
`pipegemm.torch`.

Deployment (docs/deployment.md): every call is safe inside a CUDA graph capture and never measures;
measuring happens ahead of time:

    pipegemm.prepare([dict(m=16, n=4096, k=4096, dtype="bf16")])   # or pipegemm.torch.prepare(model)
    pipegemm.save_choices("choices.json")    # next process: pipegemm.load_choices("choices.json")
"""
from ._pipegemm import __version__, clear_choices, gemm_into, load_choices, save_choices, variants
from ._pipegemm import prepare as _prepare

__all__ = ["gemm", "gemm_into", "variants", "prepare", "save_choices", "load_choices", "clear_choices",
           "__version__"]

_CUDA = 2  # DLPack kDLCUDA


def _framework(t):
    mod = type(t).__module__.split(".")[0]
    return mod


def _on_cuda(t, name):
    dev = getattr(t, "__dlpack_device__", None)
    if dev is None:
        raise TypeError(f"pipegemm.gemm: {name} is not a DLPack tensor (torch, CuPy, JAX, ...)")
    kind, _ = dev()
    if int(kind) != _CUDA:
        raise ValueError(f"pipegemm.gemm: {name} is not on a CUDA device: pipegemm runs on CUDA tensors")


def _out_dtype_name(t):
    s = str(t.dtype).replace("torch.", "")
    return {"int8": "int32"}.get(s, s)


def _empty(a, m, n, dtype):
    fw = _framework(a)
    if fw == "torch":
        import torch

        dt = dtype if dtype is not None else (torch.int32 if a.dtype == torch.int8 else a.dtype)
        return torch.empty((m, n), dtype=dt, device=a.device)
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(a.device.id):
            return cupy.empty((m, n), dtype=dtype if dtype is not None else _out_dtype_name(a))
    raise TypeError(f"pipegemm.gemm: cannot allocate an output for a {fw} tensor; pass out=")


def _stream(a):
    fw = _framework(a)
    if fw == "torch":
        import torch

        return torch.cuda.current_stream(a.device).cuda_stream
    if fw == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def gemm(a, b, out=None, *, variant="auto", acc=None, out_dtype=None, stream=None, alpha=1.0, beta=0.0, c=None,
         bias=None, bias_per_row=False, activation="none"):
    """D (M,N) = activation(alpha * a (M,K) @ b (N,K)^T + beta * c + bias), in fp32 before the cast.

    variant: "auto" (pipegemm's choice by measured speed) or a registered name (`variants()`).
    acc: accumulation type "f32" (default for floating inputs), "f16", or "i32" (int8 inputs).
    out_dtype: the output's dtype when pipegemm allocates it (default: a's; int8 -> int32).
    stream: a CUDA stream handle (int); default the framework's current stream.
    c: an (M,N) tensor in out's layout (read when beta != 0; may be out itself: in place).
    bias: N values added to every row (bias_per_row: M values added to every column).
    activation: "none", "relu", "gelu_tanh" (PyTorch's approximate="tanh"), "gelu_erf" (its default).
    Returns the output tensor. Raises ValueError (with pipegemm's reason) for anything refused.
    """
    _on_cuda(a, "a")
    _on_cuda(b, "b")
    if out is None:
        out = _empty(a, a.shape[0], b.shape[0], out_dtype)
    else:
        _on_cuda(out, "out")
    gemm_into(a, b, out, variant=variant, acc=acc or "", stream=_stream(a) if stream is None else int(stream),
              alpha=float(alpha), beta=float(beta), c=c, bias=bias, bias_per_row=bool(bias_per_row),
              activation=activation)
    return out


def prepare(problems, *, force=False, reps=20, rounds=3, prune=3.0, c_in_place=False, stream=None):
    """Times auto's candidates -- pipegemm's kernels, cublasGemmEx and each of cuBLASLt's heuristic
    algorithms -- for each problem on the current CUDA device, and keeps the fastest for the problem's
    shape bucket, so calls afterwards (a new batch size in the same bucket too) run it without
    measuring. problems: dicts with m, n, k and optionally dtype ("f16", "bf16", "f32", "i8"),
    out_dtype, layout ("TN": x (M,K) @ w (N,K)^T, F.linear's), alpha, beta (C apart from D unless
    c_in_place), bias (bool), activation, batch.
    Not inside a CUDA graph capture. Returns a dict per problem (shape, bucket, best, best_us,
    timed, cached, error)."""
    if stream is None:
        try:
            import torch

            stream = torch.cuda.current_stream().cuda_stream if torch.cuda.is_available() else 0
        except ImportError:
            stream = 0
    return _prepare(list(problems), force=bool(force), reps=int(reps), rounds=int(rounds), prune=float(prune),
                    c_in_place=bool(c_in_place), stream=int(stream))
