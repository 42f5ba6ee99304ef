#include "kernels/k5_tensor_map.hpp"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <mutex>
#include <string>

namespace pipegemm::detail {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn(Status* err) {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::string why;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p) {
      why = std::string("cuTensorMapEncodeTiled not available from the driver: ") + cudaGetErrorString(e);
      cudaGetLastError();
      return;
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  if (!fn) *err = Status::error(StatusCode::cuda_error, why);
  return fn;
}

}  // namespace

Status make_tensor_map_sw128(CUtensorMap* out, const void* base, DType dtype, int64_t rows, int64_t cols,
                             int64_t ld, int box_rows, int box_cols, int64_t batches, int64_t batch_stride) {
  const int64_t esize = dtype_bytes(dtype);
  if (reinterpret_cast<uintptr_t>(base) % 16)
    return Status::error(StatusCode::not_supported, "TMA needs a 16-byte aligned base address");
  if ((ld * esize) % 16)
    return Status::error(StatusCode::not_supported,
                         "TMA needs a row pitch that is a multiple of 16 bytes (ld=" + std::to_string(ld) + ")");
  if (batches > 1 && (batch_stride * esize) % 16)
    return Status::error(StatusCode::not_supported, "TMA needs a batch stride that is a multiple of 16 bytes (stride=" +
                                                        std::to_string(batch_stride) + ")");
  CUtensorMapDataType t = dtype == DType::f16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                          : dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                          : dtype == DType::i8   ? CU_TENSOR_MAP_DATA_TYPE_UINT8  // bits moved as they are
                          : dtype == DType::i32  ? CU_TENSOR_MAP_DATA_TYPE_INT32
                                                 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  Status err;
  auto fn = encode_fn(&err);
  if (!fn) return err;
  // Innermost first: (cols, rows[, batches]); strides in bytes for dims 1..rank-1. A rank-3 map
  // with one batch (a broadcast operand) keeps the kernel's coordinates the same.
  const cuuint32_t rank = batches > 0 ? 3 : 2;
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(batches > 0 ? batches : 1)};
  const cuuint64_t strides[2] = {cuuint64_t(ld * esize), cuuint64_t(batches > 1 ? batch_stride * esize : rows * ld * esize)};
  const cuuint32_t box[3] = {cuuint32_t(box_cols), cuuint32_t(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  CUresult r = fn(out, t, rank, const_cast<void*>(base), dims, strides, box, elem_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::error(StatusCode::cuda_error,
                         "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ") for a " +
                             std::to_string(rows) + "x" + std::to_string(cols) + " matrix, ld " + std::to_string(ld) +
                             (batches > 0 ? ", " + std::to_string(batches) + " products " + std::to_string(batch_stride) + " apart" : ""));
  return Status::success();
}

Status make_tensor_map_2d_sw128(CUtensorMap* out, const void* base, DType dtype, int64_t rows, int64_t cols,
                                int64_t ld, int box_rows, int box_cols) {
  return make_tensor_map_sw128(out, base, dtype, rows, cols, ld, box_rows, box_cols, 0, 0);
}

}  // namespace pipegemm::detail
