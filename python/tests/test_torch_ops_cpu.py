"""pipegemm.torch's C++ ops (_pipegemm_ops) without a GPU: which backend is in use, the schemas
against the Python ops', CPU tensors refused with ValueError, the Meta (fake) kernels, and -- with
a float64 CPU reference standing in for the CUDA kernel (registered for the test's duration) --
the C++ autograd formulas (gradcheck, gradgradcheck), opcheck and torch.compile's tracing. Skips
with the reason without torch or without the C++ ops."""
import os
import shutil
import subprocess
import unittest

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def _pgt():
    import pipegemm.torch as pgt

    return pgt


@unittest.skipUnless(torch is not None, "torch is not installed")
class Backend(unittest.TestCase):
    def test_the_cpp_ops_are_used_where_they_are_built(self):
        pgt = _pgt()
        self.assertIn(pgt.BACKEND, ("cpp", "python"))
        if os.environ.get("PIPEGEMM_TORCH_BACKEND") == "python":
            self.assertEqual(pgt.BACKEND, "python")
        elif os.path.exists(pgt._cpp_library()):
            self.assertEqual(pgt.BACKEND, "cpp", pgt.CPP_UNAVAILABLE)
        if pgt.BACKEND == "cpp":
            self.assertIsNone(pgt.CPP_UNAVAILABLE)
        else:
            self.assertTrue(pgt.CPP_UNAVAILABLE)

    def test_the_cpp_library_exports_nothing_and_links_torch(self):
        # As the extension (tests/package/python_test.cmake): no symbol of its own, nor of a static
        # libstdc++, may interpose on torch's. libstdc++ is linked shared where the toolchain does so;
        # the GPU machines' image links it statically whatever the link line says, which
        # is safe only because nothing is exported -- the check that matters, made first.
        so = _pgt()._cpp_library()
        if not os.path.exists(so):
            self.skipTest(f"no {os.path.basename(so)}")
        if not (shutil.which("nm") and shutil.which("readelf")):
            self.skipTest("no nm / readelf")
        nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True).stdout
        syms = [line.split()[-1] for line in nm.splitlines() if line.strip()]
        extra = [s for s in syms if s not in ("_edata", "_end", "__bss_start", "_init", "_fini")]
        self.assertEqual(extra, [], "exported symbols")
        needed = subprocess.run(["readelf", "-d", so], capture_output=True, text=True, check=True).stdout
        for lib in ("libc10.so", "libc10_cuda.so", "libtorch_cpu.so"):
            self.assertIn(lib, needed)


def _cpp_or_skip():
    if torch is None:
        raise unittest.SkipTest("torch is not installed")
    pgt = _pgt()
    if pgt.BACKEND != "cpp":
        raise unittest.SkipTest(f"the C++ ops are not in use: {pgt.CPP_UNAVAILABLE}")
    return pgt


class CppOps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pgt = _cpp_or_skip()

    def test_schemas_are_the_python_ops(self):
        py = self.pgt._python_ops("pipegemm_py")
        for name in ("mm", "addmm", "linear"):
            cpp = getattr(torch.ops.pipegemm, name).default
            self.assertEqual(str(cpp._schema), str(getattr(py, name)._schema).replace("pipegemm_py::", "pipegemm::"))
            self.assertIn(torch.Tag.pt2_compliant_tag, cpp.tags)

    def test_cpu_tensors_are_refused_with_value_error(self):
        a = torch.randn(4, 4)
        with self.assertRaisesRegex(ValueError, "pipegemm.torch.mm: mat1 is a CPU tensor"):
            self.pgt.mm(a, a)
        with self.assertRaisesRegex(ValueError, "addmm: mat1 is a CPU tensor"):
            self.pgt.addmm(a, a, a)
        with self.assertRaisesRegex(ValueError, "linear: input is a CPU tensor"):
            self.pgt.linear(a, a, activation="relu")
        with self.assertRaisesRegex(ValueError, "CPU tensor"):
            self.pgt.mm(a.requires_grad_(), a)  # through the autograd kernel too

    def test_meta_kernels_give_shapes_and_dtypes(self):
        m = dict(device="meta")
        a, b = torch.empty(7, 5, **m, dtype=torch.float16), torch.empty(5, 3, **m, dtype=torch.float16)
        self.assertEqual(self.pgt.mm(a, b).shape, (7, 3))
        self.assertEqual(self.pgt.mm(a.to(torch.int8), b.to(torch.int8)).dtype, torch.int32)
        self.assertEqual(self.pgt.addmm(torch.empty(3, **m), a, b).shape, (7, 3))
        x = torch.empty(2, 4, 5, **m, dtype=torch.bfloat16)
        y = self.pgt.linear(x, torch.empty(6, 5, **m, dtype=torch.bfloat16), None, "gelu")
        self.assertEqual((y.shape, y.dtype, y.device.type), ((2, 4, 6), torch.bfloat16, "meta"))
        self.assertTrue(y.is_contiguous())


class CppOpsOnCpuReference(unittest.TestCase):
    """The C++ Autograd and Meta kernels over a CPU reference of the forward (what pipegemm's CUDA
    kernel computes, in the inputs' dtype): registered over the C++ CPU kernel (which refuses) for
    this class only."""

    @classmethod
    def setUpClass(cls):
        cls.pgt = _cpp_or_skip()
        f = torch.nn.functional
        act = {"none": lambda z: z, "relu": torch.relu, "gelu_erf": f.gelu, "gelu": lambda z: f.gelu(z, approximate="tanh"),
               "gelu_tanh": lambda z: f.gelu(z, approximate="tanh")}
        cls.lib = torch.library.Library("pipegemm", "IMPL")
        cls.lib.impl("mm", lambda a, b: a @ b, "CPU")
        cls.lib.impl("addmm", lambda i, a, b, beta, alpha: beta * i + alpha * (a @ b) if beta != 0 else alpha * (a @ b), "CPU")
        cls.lib.impl("linear", lambda x, w, bias, a: act[a](f.linear(x, w, bias)), "CPU")

    @classmethod
    def tearDownClass(cls):
        cls.lib._destroy()

    def args(self, *shapes):
        return [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]

    def test_gradcheck(self):
        torch.manual_seed(0)
        ops = torch.ops.pipegemm
        a, b = self.args((5, 4), (4, 3))
        self.assertTrue(torch.autograd.gradcheck(ops.mm, (a, b)))
        self.assertTrue(torch.autograd.gradgradcheck(ops.mm, (a, b)))
        for inp in self.args((5, 3), (1, 3), (3,)):
            for beta, alpha in ((0.5, 2.0), (1.0, 1.0), (0.0, -1.5)):
                self.assertTrue(torch.autograd.gradcheck(lambda i, x, y: ops.addmm(i, x, y, beta, alpha), (inp, a, b)))
        x, w, bias = self.args((2, 3, 4), (6, 4), (6,))
        for act in ("none", "relu", "gelu_erf", "gelu_tanh"):
            self.assertTrue(torch.autograd.gradcheck(lambda *t: ops.linear(*t, act), (x, w, bias)), act)
            self.assertTrue(torch.autograd.gradcheck(lambda *t: ops.linear(*t, None, act), (x, w)), act)
        # Only some inputs differentiable: the others get no gradient and no GEMM.
        y = ops.linear(x.detach(), w, None, "relu")
        (gw,) = torch.autograd.grad(y.sum(), (w,))
        self.assertEqual(gw.shape, w.shape)

    def test_graph_only_when_needed(self):
        a, b = self.args((5, 4), (4, 3))
        self.assertIsNotNone(self.pgt.mm(a, b).grad_fn)
        self.assertIsNone(self.pgt.mm(a.detach(), b.detach()).grad_fn)
        with torch.no_grad():
            self.assertIsNone(self.pgt.mm(a, b).grad_fn)

    def test_opcheck(self):
        a, b, c, w, bias = self.args((16, 32), (32, 24), (16, 24), (24, 32), (24,))
        ops = torch.ops.pipegemm
        torch.library.opcheck(ops.mm.default, (a, b))
        torch.library.opcheck(ops.addmm.default, (c, a, b, 0.5, 2.0))
        torch.library.opcheck(ops.addmm.default, (bias, a, w.t(), 1.0, 1.0))
        for act in ("none", "relu", "gelu_tanh", "gelu_erf"):
            torch.library.opcheck(ops.linear.default, (a, w, bias, act))
        torch.library.opcheck(ops.linear.default, (a.reshape(4, 4, 32), w, None, "relu"))

    def test_compile_traces_forward_and_backward(self):
        w1, w2 = self.args((64, 32), (16, 64))
        b1 = torch.randn(64, dtype=torch.float64, requires_grad=True)

        def mlp(x):
            return self.pgt.linear(self.pgt.linear(x, w1, b1, activation="gelu_tanh"), w2).square().sum()

        for dynamic in (False, True):
            torch._dynamo.reset()
            compiled = torch.compile(mlp, backend="aot_eager", fullgraph=True, dynamic=dynamic)
            for rows in (8, 12):
                x = torch.randn(rows, 32, dtype=torch.float64, requires_grad=True)
                want = torch.autograd.grad(mlp(x), (x, w1, b1, w2))
                got = torch.autograd.grad(compiled(x), (x, w1, b1, w2))
                for g, r in zip(got, want):
                    torch.testing.assert_close(g, r)


if __name__ == "__main__":
    unittest.main()
