// mma.sync m16n8k16 with fp32 accumulators for a 16-bit CUDA input type (__half or
// __nv_bfloat16): CuTe's atom, whose fma(d0..d3, a0..a3, b0, b1, c0..c3) takes the PTX fragment
// layout. The thin (skinny) and short-K (shortk) kernels issue it by hand.
#pragma once

#include <cuda_fp16.h>

#include <cute/arch/mma_sm80.hpp>
#include <type_traits>

namespace pipegemm::kernels::common {

template <class TIn>
using Hmma16816F32 = std::conditional_t<std::is_same_v<TIn, __half>, cute::SM80_16x8x16_F32F16F16F32_TN,
                                        cute::SM80_16x8x16_F32BF16BF16F32_TN>;

}  // namespace pipegemm::kernels::common
