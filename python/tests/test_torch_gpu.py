"""pipegemm and pipegemm.torch on a GPU: results against torch over random shapes, gradients,
opcheck, torch.compile of a small MLP. Skips with the reason without torch or a CUDA device."""
import random
import unittest

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

import pipegemm

HAVE_GPU = torch is not None and torch.cuda.is_available()
WHY = "torch is not installed" if torch is None else "no CUDA device"


def tolerance(dtype, k):
    # pipegemm's per-type rule (README, Correctness): abs 1e-2 + rel 1e-2 for fp16/bf16 inputs with
    # fp32 accumulation; the output's own rounding on top (bf16: 2^-8 relative).
    if dtype == torch.float32:
        return 1e-3, 1e-3
    return 1e-2, (1e-2 if dtype == torch.float16 else 1.6e-2)


@unittest.skipUnless(HAVE_GPU, WHY)
class TorchGpu(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        random.seed(0)

    def check(self, got, want, dtype, k):
        atol, rtol = tolerance(dtype, k)
        err = (got.float() - want.float()).abs()
        bound = atol + rtol * want.float().abs()
        bad = int((err > bound).sum())
        self.assertEqual(bad, 0, f"{bad} elements off, max err {float(err.max()):.3g}")

    def test_gemm_matches_matmul_over_random_shapes(self):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            for _ in range(40):
                m, n, k = (int(2 ** random.uniform(0, 11)) for _ in range(3))
                a = torch.rand(m, k, device="cuda", dtype=dtype) * 2 - 1
                b = torch.rand(n, k, device="cuda", dtype=dtype) * 2 - 1
                want = a.double() @ b.double().t()
                self.check(pipegemm.gemm(a, b), want, dtype, k)

    def test_ops_match_torch(self):
        import pipegemm.torch as pgt

        for dtype in (torch.float16, torch.bfloat16):
            a = torch.randn(37, 64, device="cuda", dtype=dtype)
            b = torch.randn(64, 29, device="cuda", dtype=dtype)
            c = torch.randn(37, 29, device="cuda", dtype=dtype)
            w = torch.randn(29, 64, device="cuda", dtype=dtype)
            bias = torch.randn(29, device="cuda", dtype=dtype)
            self.check(pgt.mm(a, b), a.double() @ b.double(), dtype, 64)
            self.check(pgt.addmm(c, a, b, beta=0.5, alpha=2.0), 0.5 * c.double() + 2.0 * (a.double() @ b.double()), dtype, 64)
            want = torch.nn.functional.gelu((a.double() @ w.double().t()) + bias.double())
            self.check(pgt.linear(a, w, bias, activation="gelu"), want, dtype, 64)

    def test_ops_take_any_strides(self):
        import pipegemm.torch as pgt

        # An expanded row (strides (0, 1)), an expanded scalar (0, 0), a transposed slice (neither
        # dimension contiguous): a torch op takes them all.
        a = torch.randn(1, 48, device="cuda", dtype=torch.float16).expand(33, 48)
        g = torch.ones((), device="cuda", dtype=torch.float16).expand(48, 20)
        s = torch.randn(40, 96, device="cuda", dtype=torch.float16).t()[::2, ::2]  # (48, 20)
        for b in (g, s):
            self.check(pgt.mm(a, b), a.double() @ b.double(), torch.float16, 48)
        # pipegemm.gemm itself takes matrices, not views whose rows share elements: a refusal, never
        # a read past the 48 elements the expanded row holds.
        with self.assertRaisesRegex(ValueError, "contiguous and apart"):
            pipegemm.gemm(a, torch.randn(20, 48, device="cuda", dtype=torch.float16))

    def test_fused_epilogues_match_torch(self):
        import pipegemm.torch as pgt

        f = torch.nn.functional
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            x = torch.randn(45, 96, device="cuda", dtype=dtype)
            w = torch.randn(70, 96, device="cuda", dtype=dtype) / 4
            bias = torch.randn(70, device="cuda", dtype=dtype)
            z = x.double() @ w.double().t() + bias.double()
            for act, ref in (("relu", torch.relu(z)), ("gelu", f.gelu(z)), ("gelu_tanh", f.gelu(z, approximate="tanh"))):
                self.check(pgt.linear(x, w, bias, activation=act), ref, dtype, 96)
            c = torch.randn(45, 70, device="cuda", dtype=dtype)
            self.check(pipegemm.gemm(x, w, alpha=0.5, beta=-2.0, c=c), 0.5 * (x.double() @ w.double().t()) - 2.0 * c.double(), dtype, 96)
            self.check(pgt.addmm(bias, x, w.t()), z, dtype, 96)  # a 1-D input: the fused bias
            rows = torch.randn(45, device="cuda", dtype=dtype)
            self.check(pipegemm.gemm(x, w, bias=rows, bias_per_row=True), x.double() @ w.double().t() + rows.double()[:, None], dtype, 96)

    def test_gradients_match_torch(self):
        import pipegemm.torch as pgt

        x = torch.randn(8, 5, 16, device="cuda", dtype=torch.float32, requires_grad=True)
        w = torch.randn(12, 16, device="cuda", dtype=torch.float32, requires_grad=True)
        bias = torch.randn(12, device="cuda", dtype=torch.float32, requires_grad=True)
        pgt.linear(x, w, bias, activation="relu").square().sum().backward()
        got = [t.grad.clone() for t in (x, w, bias)]
        for t in (x, w, bias):
            t.grad = None
        torch.relu(torch.nn.functional.linear(x, w, bias)).square().sum().backward()
        for g, t in zip(got, (x, w, bias)):
            torch.testing.assert_close(g, t.grad, atol=1e-3, rtol=1e-3)
        for act, fn in (("gelu", torch.nn.functional.gelu), ("gelu_tanh", lambda y: torch.nn.functional.gelu(y, approximate="tanh"))):
            for t in (x, w, bias):
                t.grad = None
            pgt.linear(x, w, bias, activation=act).square().sum().backward()
            got = [t.grad.clone() for t in (x, w, bias)]
            for t in (x, w, bias):
                t.grad = None
            fn(torch.nn.functional.linear(x, w, bias)).square().sum().backward()
            for g, t in zip(got, (x, w, bias)):
                torch.testing.assert_close(g, t.grad, atol=2e-3, rtol=2e-3)

    def test_opcheck(self):
        import pipegemm.torch  # noqa: F401 (registers the ops)

        a = torch.randn(16, 32, device="cuda", dtype=torch.float32, requires_grad=True)
        b = torch.randn(32, 24, device="cuda", dtype=torch.float32, requires_grad=True)
        c = torch.randn(16, 24, device="cuda", dtype=torch.float32, requires_grad=True)
        w = torch.randn(24, 32, device="cuda", dtype=torch.float32, requires_grad=True)
        bias = torch.randn(24, device="cuda", dtype=torch.float32, requires_grad=True)
        torch.library.opcheck(torch.ops.pipegemm.mm.default, (a, b))
        torch.library.opcheck(torch.ops.pipegemm.addmm.default, (c, a, b, 0.5, 2.0))
        torch.library.opcheck(torch.ops.pipegemm.addmm.default, (bias, a, w.t(), 1.0, 1.0))  # the fused-bias path
        for act in ("none", "relu", "gelu_tanh", "gelu_erf"):
            torch.library.opcheck(torch.ops.pipegemm.linear.default, (a, w, bias, act))

    def test_compiled_mlp_matches_eager(self):
        import pipegemm.torch as pgt

        w1 = torch.randn(64, 32, device="cuda", dtype=torch.float16) / 8
        w2 = torch.randn(16, 64, device="cuda", dtype=torch.float16) / 8

        def mlp(x):
            return pgt.linear(pgt.linear(x, w1, activation="gelu_tanh"), w2)

        x = torch.randn(48, 32, device="cuda", dtype=torch.float16)
        eager = mlp(x)
        compiled = torch.compile(mlp, fullgraph=True)(x)
        torch.testing.assert_close(compiled, eager, atol=2e-2, rtol=2e-2)

    def test_cpu_tensors_are_refused(self):
        import pipegemm.torch as pgt

        a = torch.randn(4, 4)
        with self.assertRaisesRegex(ValueError, "CPU tensor"):
            pgt.mm(a, a)
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            pipegemm.gemm(a, a)


if __name__ == "__main__":
    unittest.main()
