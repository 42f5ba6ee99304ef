"""pipegemm and pipegemm.torch on a GPU: results against torch over random shapes, gradients,
opcheck, torch.compile of a small MLP. Skips with the reason without torch or a CUDA device.

The op tests run for the ops pipegemm.torch uses (TorchOps: the C++ ops where they are built,
pipegemm.torch.BACKEND == "cpp", else the Python ones) and, beside C++ ones, for the Python ops
too, defined under another namespace (TorchPythonOps: torch.ops.pipegemm_py.*)."""
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


class Checks(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        random.seed(0)

    def check(self, got, want, dtype, k):
        atol, rtol = tolerance(dtype, k)
        err = (got.float() - want.float()).abs()
        bound = atol + rtol * want.float().abs()
        bad = int((err > bound).sum())
        self.assertEqual(bad, 0, f"{bad} elements off, max err {float(err.max()):.3g}")


@unittest.skipUnless(HAVE_GPU, WHY)
class Gemm(Checks):
    def test_gemm_matches_matmul_over_random_shapes(self):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            for _ in range(40):
                m, n, k = (int(2 ** random.uniform(0, 11)) for _ in range(3))
                a = torch.rand(m, k, device="cuda", dtype=dtype) * 2 - 1
                b = torch.rand(n, k, device="cuda", dtype=dtype) * 2 - 1
                want = a.double() @ b.double().t()
                self.check(pipegemm.gemm(a, b), want, dtype, k)

    def test_gemm_refuses_views_whose_rows_share_elements(self):
        # pipegemm.gemm takes matrices, not views whose rows share elements: a refusal, never a read
        # past the 48 elements the expanded row holds (the ops copy such views: below).
        a = torch.randn(1, 48, device="cuda", dtype=torch.float16).expand(33, 48)
        with self.assertRaisesRegex(ValueError, "contiguous and apart"):
            pipegemm.gemm(a, torch.randn(20, 48, device="cuda", dtype=torch.float16))

    def test_gemm_epilogues_match_torch(self):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            x = torch.randn(45, 96, device="cuda", dtype=dtype)
            w = torch.randn(70, 96, device="cuda", dtype=dtype) / 4
            c = torch.randn(45, 70, device="cuda", dtype=dtype)
            self.check(pipegemm.gemm(x, w, alpha=0.5, beta=-2.0, c=c), 0.5 * (x.double() @ w.double().t()) - 2.0 * c.double(), dtype, 96)
            rows = torch.randn(45, device="cuda", dtype=dtype)
            self.check(pipegemm.gemm(x, w, bias=rows, bias_per_row=True), x.double() @ w.double().t() + rows.double()[:, None], dtype, 96)

    def test_cpu_tensors_are_refused(self):
        a = torch.randn(4, 4)
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            pipegemm.gemm(a, a)


class OpTests:
    """The torch ops' tests, over self.ops (mm, addmm, linear with pipegemm.torch's signatures) and
    self.ns (the torch.ops namespace of the ops under test)."""

    def test_ops_match_torch(self):
        for dtype in (torch.float16, torch.bfloat16):
            a = torch.randn(37, 64, device="cuda", dtype=dtype)
            b = torch.randn(64, 29, device="cuda", dtype=dtype)
            c = torch.randn(37, 29, device="cuda", dtype=dtype)
            w = torch.randn(29, 64, device="cuda", dtype=dtype)
            bias = torch.randn(29, device="cuda", dtype=dtype)
            self.check(self.ops.mm(a, b), a.double() @ b.double(), dtype, 64)
            self.check(self.ops.addmm(c, a, b, beta=0.5, alpha=2.0), 0.5 * c.double() + 2.0 * (a.double() @ b.double()), dtype, 64)
            want = torch.nn.functional.gelu((a.double() @ w.double().t()) + bias.double())
            self.check(self.ops.linear(a, w, bias, activation="gelu"), want, dtype, 64)
            x3 = torch.randn(3, 5, 64, device="cuda", dtype=dtype)  # leading dimensions kept
            got = self.ops.linear(x3, w, bias)
            self.assertEqual(got.shape, (3, 5, 29))
            self.check(got, x3.double() @ w.double().t() + bias.double(), dtype, 64)

    def test_ops_take_any_strides(self):
        # An expanded row (strides (0, 1)), an expanded scalar (0, 0), a transposed slice (neither
        # dimension contiguous), a transpose (column-major: no copy needed): a torch op takes them all.
        a = torch.randn(1, 48, device="cuda", dtype=torch.float16).expand(33, 48)
        g = torch.ones((), device="cuda", dtype=torch.float16).expand(48, 20)
        s = torch.randn(40, 96, device="cuda", dtype=torch.float16).t()[::2, ::2]  # (48, 20)
        t = torch.randn(20, 48, device="cuda", dtype=torch.float16).t()  # (48, 20), column-major
        for b in (g, s, t):
            self.check(self.ops.mm(a, b), a.double() @ b.double(), torch.float16, 48)
        at = torch.randn(48, 33, device="cuda", dtype=torch.float16).t()  # (33, 48), column-major
        self.check(self.ops.mm(at, t), at.double() @ t.double(), torch.float16, 48)
        w = torch.randn(48, 20, device="cuda", dtype=torch.float16).t()  # a weight (20, 48) column-major
        self.check(self.ops.linear(at, w), at.double() @ w.double().t(), torch.float16, 48)

    def test_fused_epilogues_match_torch(self):
        f = torch.nn.functional
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            x = torch.randn(45, 96, device="cuda", dtype=dtype)
            w = torch.randn(70, 96, device="cuda", dtype=dtype) / 4
            bias = torch.randn(70, device="cuda", dtype=dtype)
            z = x.double() @ w.double().t() + bias.double()
            for act, ref in (("relu", torch.relu(z)), ("gelu", f.gelu(z)), ("gelu_tanh", f.gelu(z, approximate="tanh"))):
                self.check(self.ops.linear(x, w, bias, activation=act), ref, dtype, 96)
            self.check(self.ops.addmm(bias, x, w.t()), z, dtype, 96)  # a 1-D input: the fused bias
            row = torch.randn(1, 70, device="cuda", dtype=dtype)  # broadcast rows: copied into a C
            self.check(self.ops.addmm(row, x, w.t(), beta=2.0), 2.0 * row.double() + x.double() @ w.double().t(), dtype, 96)
            self.check(self.ops.addmm(row, x, w.t(), beta=0.0, alpha=0.5), 0.5 * (x.double() @ w.double().t()), dtype, 96)

    def test_gradients_match_torch(self):
        x = torch.randn(8, 5, 16, device="cuda", dtype=torch.float32, requires_grad=True)
        w = torch.randn(12, 16, device="cuda", dtype=torch.float32, requires_grad=True)
        bias = torch.randn(12, device="cuda", dtype=torch.float32, requires_grad=True)
        for act, fn in (("relu", torch.relu), ("gelu", torch.nn.functional.gelu),
                        ("gelu_tanh", lambda y: torch.nn.functional.gelu(y, approximate="tanh")), (None, lambda y: y)):
            for t in (x, w, bias):
                t.grad = None
            self.ops.linear(x, w, bias, activation=act).square().sum().backward()
            got = [t.grad.clone() for t in (x, w, bias)]
            for t in (x, w, bias):
                t.grad = None
            fn(torch.nn.functional.linear(x, w, bias)).square().sum().backward()
            for g, t in zip(got, (x, w, bias)):
                torch.testing.assert_close(g, t.grad, atol=2e-3, rtol=2e-3, msg=lambda m: f"{act}: {m}")
        a = torch.randn(16, 32, device="cuda", requires_grad=True)
        b = torch.randn(32, 24, device="cuda", requires_grad=True)
        c = torch.randn(1, 24, device="cuda", requires_grad=True)
        got = torch.autograd.grad(self.ops.addmm(c, a, b, beta=0.5, alpha=2.0).square().sum(), (c, a, b))
        want = torch.autograd.grad(torch.addmm(c, a, b, beta=0.5, alpha=2.0).square().sum(), (c, a, b))
        for g, r in zip(got, want):
            torch.testing.assert_close(g, r, atol=2e-3, rtol=2e-3)
        self.assertIsNone(self.ops.mm(a.detach(), b.detach()).grad_fn)
        with torch.no_grad():
            self.assertIsNone(self.ops.mm(a, b).grad_fn)

    def test_opcheck(self):
        ns = getattr(torch.ops, self.ns)
        a = torch.randn(16, 32, device="cuda", dtype=torch.float32, requires_grad=True)
        b = torch.randn(32, 24, device="cuda", dtype=torch.float32, requires_grad=True)
        c = torch.randn(16, 24, device="cuda", dtype=torch.float32, requires_grad=True)
        w = torch.randn(24, 32, device="cuda", dtype=torch.float32, requires_grad=True)
        bias = torch.randn(24, device="cuda", dtype=torch.float32, requires_grad=True)
        torch.library.opcheck(ns.mm.default, (a, b))
        torch.library.opcheck(ns.addmm.default, (c, a, b, 0.5, 2.0))
        torch.library.opcheck(ns.addmm.default, (bias, a, w.t(), 1.0, 1.0))  # the fused-bias path
        for act in ("none", "relu", "gelu_tanh", "gelu_erf"):
            torch.library.opcheck(ns.linear.default, (a, w, bias, act))
        torch.library.opcheck(ns.linear.default, (a.reshape(4, 4, 32), w, None, "relu"))

    def test_compiled_mlp_matches_eager(self):
        w1 = torch.randn(64, 32, device="cuda", dtype=torch.float16) / 8
        w2 = torch.randn(16, 64, device="cuda", dtype=torch.float16) / 8

        def mlp(x):
            return self.ops.linear(self.ops.linear(x, w1, activation="gelu_tanh"), w2)

        x = torch.randn(48, 32, device="cuda", dtype=torch.float16)
        eager = mlp(x)
        torch._dynamo.reset()
        compiled = torch.compile(mlp, fullgraph=True)(x)
        torch.testing.assert_close(compiled, eager, atol=2e-2, rtol=2e-2)

    def test_cpu_tensors_are_refused(self):
        a = torch.randn(4, 4)
        with self.assertRaisesRegex(ValueError, "CPU tensor"):
            self.ops.mm(a, a)
        with self.assertRaisesRegex(ValueError, "CPU tensor"):
            self.ops.linear(torch.randn(4, 4, device="cuda"), a)

    def test_refusals_are_value_errors(self):
        a = torch.randn(4, 8, device="cuda")
        with self.assertRaisesRegex(ValueError, "cannot be multiplied"):
            self.ops.mm(a, a)
        with self.assertRaisesRegex(ValueError, "do not match"):
            self.ops.linear(a, a.t())
        with self.assertRaisesRegex(ValueError, "dtype"):
            self.ops.mm(a.double(), a.t().double())


@unittest.skipUnless(HAVE_GPU, WHY)
class TorchOps(OpTests, Checks):
    """The ops pipegemm.torch uses (its BACKEND)."""

    @classmethod
    def setUpClass(cls):
        import pipegemm.torch as pgt

        cls.ops, cls.ns = pgt, "pipegemm"


@unittest.skipUnless(HAVE_GPU, WHY)
class TorchPythonOps(OpTests, Checks):
    """The Python ops beside the C++ ones (when pipegemm.torch uses those)."""

    @classmethod
    def setUpClass(cls):
        import pipegemm.torch as pgt

        if pgt.BACKEND != "cpp":
            raise unittest.SkipTest("pipegemm.torch uses the Python ops: TorchOps tests them")
        cls.ops = pgt._frontend(pgt._python_ops("pipegemm_py"))
        cls.ns = cls.ops.namespace


if __name__ == "__main__":
    unittest.main()
