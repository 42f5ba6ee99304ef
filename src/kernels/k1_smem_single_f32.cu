// k1_smem_single, fp32 FFMA: 128x128x16, 16x16 threads, 8x8 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k1_smem_single/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k1_f32);
using Ops = kernels::common::OperandTraits<float, float, float>;
using Cfg = kernels::k1::SingleBufferConfig<Ops, 128, 128, 16, 2, 2, k1_f32>;
using V = LadderVariant<Cfg, &kernels::k1::k1_smem_single_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k1_smem_single_f32(std::vector<Variant>& out) {
  out.push_back(V::make("k1_smem_single", 1, "single smem buffer: cp.async, wait, sync, compute, sync; 128x128x16, 16x16 threads, 8x8 each; fp32 FFMA", false, "LDGSTS"));
}
}  // namespace pipegemm::detail
