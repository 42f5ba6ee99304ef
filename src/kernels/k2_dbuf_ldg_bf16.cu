// k2_dbuf_ldg, bf16 in/out, fp32 acc: 128x128x32, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k2_dbuf_ldg/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k2_bf16);
using Ops = kernels::common::OperandTraits<cute::bfloat16_t, float, cute::bfloat16_t>;
using Cfg = kernels::k2::DoubleBufferLdgConfig<Ops, 128, 128, 32, 2, 2, k2_bf16>;
using V = LadderVariant<Cfg, &kernels::k2::k2_dbuf_ldg_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k2_dbuf_ldg_bf16(std::vector<Variant>& out) {
  out.push_back(V::make("k2_dbuf_ldg", 2, "double buffer staged through registers: LDG next k_tile, compute, STS, sync; 128x128x32, 2x2 warps, 64x64 each; bf16 in/out, fp32 acc", true, "LDG"));
}
}  // namespace pipegemm::detail
