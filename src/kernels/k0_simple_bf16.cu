// k0_simple, bf16 in/out, fp32 acc: 128x128x16, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k0_simple/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k0_bf16);
using Ops = kernels::common::OperandTraits<cute::bfloat16_t, float, cute::bfloat16_t>;
using Cfg = kernels::k0::SimpleConfig<Ops, 128, 128, 16, 2, 2, k0_bf16>;
using V = LadderVariant<Cfg, &kernels::k0::k0_simple_kernel<Cfg>, LoadPath::elements, GridOrder::rows_by_cols>;
}  // namespace
void append_k0_simple_bf16(std::vector<Variant>& out) {
  out.push_back(V::make("k0_simple", 0, "no smem: global -> registers element by element, tiled MMA; 128x128x16, 2x2 warps, 64x64 each; bf16 in/out, fp32 acc", false, "LDG"));
}
}  // namespace pipegemm::detail
