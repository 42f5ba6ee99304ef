"""What python/CMakeLists.txt needs to build the C++ torch ops (_pipegemm_ops) against the torch
this Python imports, printed as CMake `set()` lines: version, include and library folders, the C++
ABI flag. Exits 1 with the reason on stderr when torch does not import or has no CUDA."""
import os
import sys

try:
    import torch
except Exception as e:  # noqa: BLE001 (any failure to import is "no torch" to the build)
    sys.exit(f"torch does not import ({type(e).__name__}: {e})")

if torch.version.cuda is None:
    sys.exit(f"torch {torch.__version__} is built without CUDA")


def cmake_list(paths):
    return ";".join(p.replace("\\", "/") for p in paths)


print(f'set(PIPEGEMM_TORCH_VERSION "{torch.__version__}")')
print(f'set(PIPEGEMM_TORCH_CUDA "{torch.version.cuda}")')
# torch.utils.cpp_extension's include_paths() and library_paths(), without importing it (it probes
# for a CUDA runtime and warns when the build machine has none).
root = os.path.dirname(os.path.abspath(torch.__file__))
include = [os.path.join(root, "include"), os.path.join(root, "include", "torch", "csrc", "api", "include")]
print(f'set(PIPEGEMM_TORCH_INCLUDE_DIRS "{cmake_list(include)}")')
print(f'set(PIPEGEMM_TORCH_LIBRARY_DIR "{cmake_list([os.path.join(root, "lib")])}")')
print(f"set(PIPEGEMM_TORCH_CXX11_ABI {int(torch._C._GLIBCXX_USE_CXX11_ABI)})")
