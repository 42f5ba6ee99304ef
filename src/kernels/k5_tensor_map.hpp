// Host side of TMA: building a 2-D CUtensorMap. The driver's cuTensorMapEncodeTiled is
// reached through the runtime's driver entry point, so nothing links libcuda.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

// A row-major (rows, cols) matrix of `dtype` at `base` with a leading dimension of `ld`
// elements, copied in boxes of (box_rows, box_cols) with the 128-byte swizzle (box_cols *
// element size must be 128 bytes or less). Out-of-bounds elements of a box load as zeros and
// are skipped on store. Refuses (not_supported) a base or row pitch that is not 16-byte aligned.
Status make_tensor_map_2d_sw128(CUtensorMap* out, const void* base, DType dtype, int64_t rows, int64_t cols,
                                int64_t ld, int box_rows, int box_cols);

}  // namespace pipegemm::detail
