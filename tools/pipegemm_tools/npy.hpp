// Minimal .npy (NumPy format 1.0 / 2.0 / 3.0) reader and writer for 2-D C-order matrices.
// Types: <f2 (fp16), <f4 (fp32), |i1 (int8), <i4 (int32); bf16 is written as <u2 bit patterns
// (NumPy has no bfloat16) and read from <u2, ml_dtypes' <V2 or |V2 only when the caller asks for
// bf16 (a 'bfloat16' descr always).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

struct NpyMatrix {
  DType type = DType::f16;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> data;  // rows * cols elements, C order
};

// Reads `path`. If `want` is given, the file's dtype must match it (bf16 accepts <u2, <V2, |V2).
// Errors (missing file, bad magic, truncated data, Fortran order, not 2-D, wrong dtype) come
// back as io_error / invalid_argument with a message naming the file.
Status read_npy(const std::string& path, NpyMatrix* out, const DType* want = nullptr);
Status write_npy(const std::string& path, const NpyMatrix& m);

// Parse-only entry point for tests: `bytes` is a whole file's content.
Status parse_npy(const std::string& name, const std::vector<uint8_t>& bytes, NpyMatrix* out,
                 const DType* want = nullptr);

}  // namespace pipegemm
