"""The installed package without a GPU: it imports, names its variants, and refuses what is not a
CUDA tensor with pipegemm's reason (no launch is attempted)."""
import unittest

import pipegemm


class Package(unittest.TestCase):
    def test_imports_with_the_project_version(self):
        self.assertEqual(pipegemm.__version__, "0.1.0")

    def test_lists_the_registered_variants_and_peers(self):
        names = pipegemm.variants()
        self.assertIn("cublas_f16", names)
        self.assertTrue(any(n.startswith("k5_") for n in names))
        self.assertTrue(any(n.startswith("k0_") for n in names))

    def test_cpu_arrays_are_refused_with_the_reason(self):
        import numpy as np

        a = np.ones((4, 8), dtype=np.float16)
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            pipegemm.gemm(a, a)
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            pipegemm.gemm_into(a, a, np.zeros((4, 4), dtype=np.float16))

    def test_a_non_tensor_is_refused(self):
        with self.assertRaisesRegex(TypeError, "not a DLPack tensor"):
            pipegemm.gemm([[1.0]], [[1.0]])


if __name__ == "__main__":
    unittest.main()
