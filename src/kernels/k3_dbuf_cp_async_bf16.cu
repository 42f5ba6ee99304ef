// k3_dbuf_cp_async, bf16 in/out, fp32 acc: 128x128x32, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k3_dbuf_cp_async/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k3_bf16);
using Ops = kernels::common::OperandTraits<cute::bfloat16_t, float, cute::bfloat16_t>;
using Cfg = kernels::k3::DoubleBufferCpAsyncConfig<Ops, 128, 128, 32, 2, 2, k3_bf16>;
using V = LadderVariant<Cfg, &kernels::k3::k3_dbuf_cp_async_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k3_dbuf_cp_async_bf16(std::vector<Variant>& out) {
  out.push_back(V::make("k3_dbuf_cp_async", 3, "double buffer with cp.async: commit next k_tile, compute, wait, sync; 128x128x32, 2x2 warps, 64x64 each; bf16 in/out, fp32 acc", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
