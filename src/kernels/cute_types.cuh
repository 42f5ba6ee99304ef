// A table types token (registry/table.hpp) as the CuTe kernels take it: element types and the
// operand traits of the ladder.
#pragma once

#include <cstdint>

#include "pipegemm/kernels/common/operand_traits.cuh"
#include "registry/table.hpp"

namespace pipegemm::detail {

// The element type of a table types token, as the CuTe kernels take it.
template <DType> struct CuteElement;
template <> struct CuteElement<DType::f16> { using T = cute::half_t; };
template <> struct CuteElement<DType::bf16> { using T = cute::bfloat16_t; };
template <> struct CuteElement<DType::i8> { using T = int8_t; };
template <> struct CuteElement<DType::i32> { using T = int32_t; };
template <> struct CuteElement<DType::f32> { using T = float; };
template <class Types>
using LadderOps = kernels::common::OperandTraits<typename CuteElement<Types::a>::T,
                                                 typename CuteElement<Types::acc>::T,
                                                 typename CuteElement<Types::d>::T>;

}  // namespace pipegemm::detail
