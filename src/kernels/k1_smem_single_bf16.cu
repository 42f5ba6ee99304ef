// k1_smem_single, bf16 in/out, fp32 acc: 128x128x32, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k1_smem_single/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k1_bf16);
using Ops = kernels::common::OperandTraits<cute::bfloat16_t, float, cute::bfloat16_t>;
using Cfg = kernels::k1::SingleBufferConfig<Ops, 128, 128, 32, 2, 2, k1_bf16>;
using V = LadderVariant<Cfg, &kernels::k1::k1_smem_single_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k1_smem_single_bf16(std::vector<Variant>& out) {
  out.push_back(V::make("k1_smem_single", 1, "single smem buffer: cp.async, wait, sync, compute, sync; 128x128x32, 2x2 warps, 64x64 each; bf16 in/out, fp32 acc", false, "LDGSTS"));
}
}  // namespace pipegemm::detail
