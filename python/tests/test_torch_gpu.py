"""pipegemm and pipegemm.torch on a GPU: results against torch over random shapes, gradients,
opcheck, torch.compile of a small MLP; and deployment (Deployment, docs/deployment.md): capture
under torch.cuda.graph replayed on new inputs, an MLP under torch.compile(mode="reduce-overhead")
with changing batch sizes, zero sizes, prepare / save_choices / load_choices. Skips with the
reason without torch or a CUDA device.

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
        bad = int((~(err <= bound)).sum())  # NaN never passes
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



# Deployment: pipegemm.torch.linear as a serving stack runs it. A 16-bit output is compared with a
# float64 reference of the same inputs, every element, bounded relative to the output's magnitude:
# |y - ref| <= tol * max |ref|, tol twice BF16's unit roundoff (2^-8) and four times FP16's (2^-11;
# the fused GELU's tanh.approx adds up to ~2^-12 |x|). NaN never passes.
DEPLOY_TOL = {} if torch is None else {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -9}


def reference_linear(x, w, bias=None, activation=None):
    """F.linear (+ F.gelu(approximate="tanh")) of the same inputs, in float64."""
    f = torch.nn.functional
    y = f.linear(x.double(), w.double(), None if bias is None else bias.double())
    return f.gelu(y, approximate="tanh") if activation == "gelu_tanh" else y


@unittest.skipUnless(HAVE_GPU, WHY)
class Deployment(unittest.TestCase):
    """The ops pipegemm.torch uses (its BACKEND), deployed: inside CUDA graphs, under
    torch.compile(mode="reduce-overhead"), at zero sizes, with choices made ahead of time."""

    M = (1, 3, 8, 16, 64)  # decode batch sizes
    # (N, K) weights: small, an MLP's, K off 16 bytes (1030 BF16/FP16 elements), a Llama-3-8B qkv.
    WEIGHTS = ((384, 256), (4096, 1024), (770, 1030), (6144, 4096))

    @classmethod
    def setUpClass(cls):
        import pipegemm.torch as pgt

        cls.pgt = pgt

    def setUp(self):
        torch.manual_seed(0)

    def assert_close(self, got, want, dtype, what):
        self.assertEqual(tuple(got.shape), tuple(want.shape), what)
        self.assertEqual(got.dtype, dtype, what)
        if want.numel() == 0:
            return
        scale = float(want.abs().max())
        err = (got.double() - want).abs()
        bound = DEPLOY_TOL[dtype] * max(scale, 1e-6)
        bad = int((~(err <= bound)).sum())
        worst = float(err.nan_to_num(nan=float("inf")).max())
        self.assertEqual(bad, 0, f"{what}: {bad} of {err.numel()} elements off (max err {worst:.3g}, "
                                 f"bound {bound:.3g} = {DEPLOY_TOL[dtype]:.3g} * max |ref| {scale:.3g})")

    def test_linear_replays_under_torch_cuda_graph_on_new_inputs(self):
        # Each case its own graph. At M = 3 and 16 the op runs eagerly on a side stream first (torch's
        # recipe); at the other batch sizes the first call of the problem in the process is the
        # captured one: a choice not made yet is made inside the capture, without measuring. Before each replay the
        # static output is poisoned with NaN and the static input (then also the weight and bias)
        # gets new random values: the replay must read them and write every element.
        pgt = self.pgt
        for dtype in (torch.bfloat16, torch.float16):
            for n, k in self.WEIGHTS:
                w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
                b = torch.randn(n, device="cuda", dtype=dtype)
                for m in self.M:
                    for act in (None, "gelu_tanh"):
                        bias = b if act else None
                        what = f"{dtype} {m}x{n}x{k} {'bias+gelu_tanh' if act else 'plain'}"
                        with self.subTest(what):
                            x = torch.randn(m, k, device="cuda", dtype=dtype)
                            if m in (3, 16):  # warm-up on a side stream before the capture
                                s = torch.cuda.Stream()
                                s.wait_stream(torch.cuda.current_stream())
                                with torch.cuda.stream(s):
                                    pgt.linear(x, w, bias, activation=act)
                                torch.cuda.current_stream().wait_stream(s)
                            g = torch.cuda.CUDAGraph()
                            with torch.cuda.graph(g):
                                y = pgt.linear(x, w, bias, activation=act)
                            for replay in range(2):
                                x.copy_(torch.randn(m, k, device="cuda", dtype=dtype))
                                if replay == 1:
                                    w.copy_(torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5)
                                    b.copy_(torch.randn(n, device="cuda", dtype=dtype))
                                y.fill_(float("nan"))
                                g.replay()
                                torch.cuda.synchronize()
                                self.assert_close(y, reference_linear(x, w, bias, act), dtype, f"{what}, replay {replay}")
                            del g, y

    def test_mlp_under_reduce_overhead_with_changing_batch_sizes(self):
        # Linear -> GELU(tanh) -> Linear, the GELU fused into the first GEMM's epilogue. Inductor's
        # CUDA graph trees warm up each batch size, record it on its second call and replay it
        # after: the sizes below do each of the three for several batch sizes (and M stops being
        # static after the second one). Each output is compared with eager torch right away (the
        # next replay overwrites it); a CUDA graph skipped by inductor fails the test.
        from torch._dynamo.utils import counters

        pgt, f = self.pgt, torch.nn.functional
        dtype = torch.bfloat16
        w1 = torch.randn(1024, 256, device="cuda", dtype=dtype) / 16
        b1 = torch.randn(1024, device="cuda", dtype=dtype)
        w2 = torch.randn(256, 1024, device="cuda", dtype=dtype) / 32
        b2 = torch.randn(256, device="cuda", dtype=dtype)

        def mlp(x):
            return pgt.linear(pgt.linear(x, w1, b1, activation="gelu_tanh"), w2, b2)

        def eager(x):
            return f.linear(f.gelu(f.linear(x, w1, b1), approximate="tanh"), w2, b2)

        torch._dynamo.reset()
        skips = counters["inductor"]["cudagraph_skips"]
        compiled = torch.compile(mlp, mode="reduce-overhead", fullgraph=True)
        mark_step = getattr(torch.compiler, "cudagraph_mark_step_begin", None)
        with torch.no_grad():
            for i, m in enumerate((4, 16, 4, 33, 16, 4, 33, 16)):
                x = torch.randn(m, 256, device="cuda", dtype=dtype)
                if mark_step is not None:
                    mark_step()
                got = compiled(x)
                want = eager(x).double()
                torch.cuda.synchronize()
                # Both sides round the hidden layer to BF16 (2^-8): twice the single GEMM's bound.
                self.assertEqual(tuple(got.shape), (m, 256))
                err = (got.double() - want).abs()
                bound = 2 * DEPLOY_TOL[dtype] * float(want.abs().max())
                bad = int((~(err <= bound)).sum())
                self.assertEqual(bad, 0, f"call {i} (M = {m}): {bad} elements off, max err "
                                         f"{float(err.nan_to_num(nan=float('inf')).max()):.3g}, bound {bound:.3g}")
        self.assertEqual(counters["inductor"]["cudagraph_skips"] - skips, 0,
                         "inductor skipped CUDA graphs (see the perf hints logged above)")
        torch._dynamo.reset()

    def test_zero_sizes_behave_as_torch(self):
        # M = 0 (an expert that got no tokens) and N = 0: an empty output of the right shape; K = 0:
        # the bias broadcast to every row (zeros without a bias), through the activation.
        pgt, f = self.pgt, torch.nn.functional
        for dtype in (torch.bfloat16, torch.float16):
            w = torch.randn(48, 64, device="cuda", dtype=dtype)
            b = torch.randn(48, device="cuda", dtype=dtype)
            for shape in ((0, 64), (2, 0, 64)):  # M = 0, also below leading dimensions
                x = torch.randn(*shape, device="cuda", dtype=dtype)
                for bias, act in ((None, None), (b, None), (b, "gelu_tanh")):
                    got = pgt.linear(x, w, bias, activation=act)
                    self.assertEqual(tuple(got.shape), (*shape[:-1], 48))
                    self.assertEqual(got.dtype, dtype)
                    self.assertEqual(tuple(f.linear(x, w, bias).shape), tuple(got.shape))
            x = torch.randn(5, 64, device="cuda", dtype=dtype)
            got = pgt.linear(x, torch.empty(0, 64, device="cuda", dtype=dtype))  # N = 0
            self.assertEqual(tuple(got.shape), (5, 0))
            x0, w0 = torch.randn(5, 0, device="cuda", dtype=dtype), torch.randn(48, 0, device="cuda", dtype=dtype)
            for bias, act in ((None, None), (b, None), (b, "gelu_tanh"), (None, "gelu_tanh")):
                what = f"{dtype} K = 0, {'bias' if bias is not None else 'no bias'}, {act or 'no activation'}"
                got = pgt.linear(x0, w0, bias, activation=act)
                want = f.linear(x0, w0, bias)  # torch: the bias broadcast, or zeros
                if act == "gelu_tanh":
                    want = f.gelu(want, approximate="tanh")
                torch.cuda.synchronize()
                self.assert_close(got, want.double(), dtype, what)
                if bias is None:
                    self.assertTrue(bool((got == 0).all()), f"{what}: not all zeros")
            x3 = torch.randn(2, 3, 0, device="cuda", dtype=dtype)
            got = pgt.linear(x3, w0, b, activation="gelu_tanh")
            self.assert_close(got, f.gelu(b.double(), approximate="tanh").expand(2, 3, 48), dtype, f"{dtype} K = 0, 3-D")

    def test_prepare_save_clear_load(self):
        # pipegemm.torch.prepare over a model's nn.Linear layers at two batch sizes: one result per
        # (layer, batch size), each with the variant kept; the choices saved, forgotten, loaded
        # back: the calls then run what prepare kept and still match F.linear.
        import os
        import tempfile

        pgt, f = self.pgt, torch.nn.functional
        dtype = torch.bfloat16
        model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 128))
        model = model.to(device="cuda", dtype=dtype)
        layers = [mod for mod in model if isinstance(mod, torch.nn.Linear)]
        self.addCleanup(pipegemm.clear_choices)
        results = pgt.prepare(model, batch_sizes=(1, 8))
        self.assertEqual(len(results), 2 * len(layers), results)
        problems = pgt.linear_problems(model, batch_sizes=(1, 8))
        self.assertEqual([(p["m"], p["n"], p["k"]) for p in problems],
                         [(m, lin.out_features, lin.in_features) for lin in layers for m in (1, 8)])
        best = {}
        for p, r in zip(problems, results):
            self.assertIsInstance(r, dict)
            if r.get("error"):
                self.fail(f"prepare {p}: {r['error']}")
            self.assertTrue(r.get("best"), f"prepare {p}: no variant kept: {r}")
            best[(p["m"], p["n"], p["k"])] = r["best"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "choices.json")
            pipegemm.save_choices(path)
            self.assertGreater(os.path.getsize(path), 0)
            pipegemm.clear_choices()
            pipegemm.load_choices(path)
        for lin in layers:
            for m in (1, 8, 5):
                x = torch.randn(m, lin.in_features, device="cuda", dtype=dtype)
                what = f"{m}x{lin.out_features}x{lin.in_features}"
                with torch.no_grad():
                    got = pgt.linear(x, lin.weight, lin.bias)
                    want = f.linear(x.double(), lin.weight.double(), lin.bias.double())
                torch.cuda.synchronize()
                self.assert_close(got, want, dtype, what)
                key = (m, lin.out_features, lin.in_features)
                if key in best:  # the loaded choice runs (the same problem through pipegemm.gemm_into)
                    out = torch.empty(m, lin.out_features, device="cuda", dtype=dtype)
                    chosen = pipegemm.gemm_into(x, lin.weight.detach(), out, stream=torch.cuda.current_stream().cuda_stream,
                                                bias=lin.bias.detach())
                    self.assertEqual(chosen, best[key], f"{what}: the loaded choice is not the one run")

if __name__ == "__main__":
    unittest.main()
