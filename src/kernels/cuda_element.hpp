// A table types token (registry/table.hpp) as the CUDA-native kernels take it (k5, skinny):
// cuda_fp16 / cuda_bf16 element types, where the CuTe kernels take cute's (cute_types.cuh).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

template <DType> struct CudaElement;
template <> struct CudaElement<DType::f16> { using T = __half; };
template <> struct CudaElement<DType::bf16> { using T = __nv_bfloat16; };
template <> struct CudaElement<DType::f32> { using T = float; };
template <> struct CudaElement<DType::i8> { using T = int8_t; };
template <> struct CudaElement<DType::i32> { using T = int32_t; };

}  // namespace pipegemm::detail
