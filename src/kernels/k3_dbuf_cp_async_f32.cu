// k3_dbuf_cp_async, fp32 FFMA: 128x128x16, 16x16 threads, 8x8 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k3_dbuf_cp_async/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k3_f32);
using Ops = kernels::common::OperandTraits<float, float, float>;
using Cfg = kernels::k3::DoubleBufferCpAsyncConfig<Ops, 128, 128, 16, 2, 2, k3_f32>;
using V = LadderVariant<Cfg, &kernels::k3::k3_dbuf_cp_async_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k3_dbuf_cp_async_f32(std::vector<Variant>& out) {
  out.push_back(V::make("k3_dbuf_cp_async", 3, "double buffer with cp.async: commit next k_tile, compute, wait, sync; 128x128x16, 16x16 threads, 8x8 each; fp32 FFMA", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
