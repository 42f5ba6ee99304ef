// Operands filled on the GPU: bench's and fuzz's buffers, prepare()'s scratch problems.
//
// fill_uniform: fresh random operands without the host -- uniform [-1, 1) for floating types,
// int8 over its full range (int32: the same values, a C of an int32 D), a hash of (seed, index)
// per element (never all zeros). The LLM suite's weights (up to 470 M elements) took seconds each to draw on one host thread.

#pragma once

#include <cstddef>
#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

Status fill_uniform(void* data, size_t elements, DType t, uint64_t seed, cudaStream_t_ stream = nullptr);

}  // namespace pipegemm::detail
