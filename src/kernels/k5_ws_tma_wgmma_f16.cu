#include "kernels/k5_ws_tma_wgmma.cuh"

namespace pipegemm::detail {
using K5Cfg_f16 = kernels::k5::K5Config<__half, __half>;  // 128x256x64, 4 stages, 2 epilogue buffers
// K <= 512: the tile's D is stored chunk by chunk under the next tile's wgmma (measured 111% of
// cuBLAS on 4096x4096x256 against 104% for the 3-stage/4-buffer short-K config).
using K5Cfg_f16_deferred = kernels::k5::K5Config<__half, __half, 128, 256, 64, 4, 2, true>;
void append_k5_f16(std::vector<Variant>& out) {
  out.push_back(K5Variant<K5Cfg_f16, K5Cfg_f16_deferred, 2>::make(
      "k5_ws_tma_wgmma_f16",
      "TMA+wgmma, 1 producer + 2 consumer warpgroups, persistent, 2-CTA clusters multicasting B when K >= 2048, fp16 in/out"));
  out.push_back(K5Variant<K5Cfg_f16, K5Cfg_f16_deferred, 1>::make(
      "k5_ws_tma_wgmma_f16_nocluster",
      "the same kernels launched without clusters (each CTA loads its own B), fp16 in/out"));
}
}  // namespace pipegemm::detail
