// k2_dbuf_ldg, fp32 FFMA: 128x128x16, 16x16 threads, 8x8 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k2_dbuf_ldg/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k2_f32);
using Ops = kernels::common::OperandTraits<float, float, float>;
using Cfg = kernels::k2::DoubleBufferLdgConfig<Ops, 128, 128, 16, 2, 2, k2_f32>;
using V = LadderVariant<Cfg, &kernels::k2::k2_dbuf_ldg_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k2_dbuf_ldg_f32(std::vector<Variant>& out) {
  out.push_back(V::make("k2_dbuf_ldg", 2, "double buffer staged through registers: LDG next k_tile, compute, STS, sync; 128x128x16, 16x16 threads, 8x8 each; fp32 FFMA", true, "LDG"));
}
}  // namespace pipegemm::detail
