// The epilogue alone, for K = 0 (gemm.cpp's zero-size problems): D = act(beta C + bias) over a
// normalized problem with a row-major D (row_major_d). M, N or batch = 0: nothing is launched.
#pragma once

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {
Status launch_epilogue_only(const Problem& p, const Operands& x, cudaStream_t_ s);
}  // namespace pipegemm::detail
