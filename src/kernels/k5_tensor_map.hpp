// Host side of TMA: building a 2-D (or batched 3-D) CUtensorMap. The driver's cuTensorMapEncodeTiled is
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
// The same with a third (outermost) dimension of `batches` matrices `batch_stride` elements
// apart (boxes of one matrix): batches >= 1 makes a rank-3 map (1: a broadcast operand, every
// product reads matrix 0), 0 the rank-2 map above.
Status make_tensor_map_sw128(CUtensorMap* out, const void* base, DType dtype, int64_t rows, int64_t cols,
                             int64_t ld, int box_rows, int box_cols, int64_t batches, int64_t batch_stride);

}  // namespace pipegemm::detail
