// k2_dbuf_ldg, int8 in, int32 acc/out: 128x128x64, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k2_dbuf_ldg/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k2_i8);
using Ops = kernels::common::OperandTraits<int8_t, int32_t, int32_t>;
using Cfg = kernels::k2::DoubleBufferLdgConfig<Ops, 128, 128, 64, 2, 2, k2_i8>;
using V = LadderVariant<Cfg, &kernels::k2::k2_dbuf_ldg_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k2_dbuf_ldg_i8(std::vector<Variant>& out) {
  out.push_back(V::make("k2_dbuf_ldg", 2, "double buffer staged through registers: LDG next k_tile, compute, STS, sync; 128x128x64, 2x2 warps, 64x64 each; int8 in, int32 acc/out", true, "LDG"));
}
}  // namespace pipegemm::detail
