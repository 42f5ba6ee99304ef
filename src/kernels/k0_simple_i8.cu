// k0_simple, int8 in, int32 acc, int32 or fp32 out: 128x128x32, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k0_simple/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k0_i8);
using Ops = kernels::common::OperandTraits<int8_t, int32_t, int32_t>;
using Cfg = kernels::k0::SimpleConfig<Ops, 128, 128, 32, 2, 2, k0_i8>;
using V = LadderVariant<Cfg, &kernels::k0::k0_simple_kernel<Cfg>, LoadPath::elements, GridOrder::rows_by_cols>;
// int8 -> fp32 out: no cuBLAS peer computes it, so k0 is what serves shapes the vector rung refuses.
PIPEGEMM_VARIANT_NAME(k0_i8_f32out);
using OpsF32 = kernels::common::OperandTraits<int8_t, int32_t, float>;
using CfgF32 = kernels::k0::SimpleConfig<OpsF32, 128, 128, 32, 2, 2, k0_i8_f32out>;
using VF32 = LadderVariant<CfgF32, &kernels::k0::k0_simple_kernel<CfgF32>, LoadPath::elements, GridOrder::rows_by_cols>;
}  // namespace
void append_k0_simple_i8(std::vector<Variant>& out) {
  out.push_back(V::make("k0_simple", 0, "no smem: global -> registers element by element, tiled MMA; 128x128x32, 2x2 warps, 64x64 each; int8 in, int32 acc/out", false, "LDG"));
  out.push_back(VF32::make("k0_simple", 0, "no smem: global -> registers element by element, tiled MMA; 128x128x32, 2x2 warps, 64x64 each; int8 in, int32 acc, fp32 out", false, "LDG"));
}
}  // namespace pipegemm::detail
