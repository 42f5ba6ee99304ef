// k3_dbuf_cp_async, int8 in, int32 acc/out: 128x128x64, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k3_dbuf_cp_async/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k3_i8);
using Ops = kernels::common::OperandTraits<int8_t, int32_t, int32_t>;
using Cfg = kernels::k3::DoubleBufferCpAsyncConfig<Ops, 128, 128, 64, 2, 2, k3_i8>;
using V = LadderVariant<Cfg, &kernels::k3::k3_dbuf_cp_async_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k3_dbuf_cp_async_i8(std::vector<Variant>& out) {
  out.push_back(V::make("k3_dbuf_cp_async", 3, "double buffer with cp.async: commit next k_tile, compute, wait, sync; 128x128x64, 2x2 warps, 64x64 each; int8 in, int32 acc/out", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
