// k0_simple, fp32 FFMA: 128x128x4, 16x16 threads, 8x8 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k0_simple/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k0_f32);
using Ops = kernels::common::OperandTraits<float, float, float>;
using Cfg = kernels::k0::SimpleConfig<Ops, 128, 128, 4, 2, 2, k0_f32>;
using V = LadderVariant<Cfg, &kernels::k0::k0_simple_kernel<Cfg>, LoadPath::elements, GridOrder::rows_by_cols>;
}  // namespace
void append_k0_simple_f32(std::vector<Variant>& out) {
  out.push_back(V::make("k0_simple", 0, "no smem: global -> registers element by element, tiled MMA; 128x128x4, 16x16 threads, 8x8 each; fp32 FFMA", false, "LDG"));
}
}  // namespace pipegemm::detail
