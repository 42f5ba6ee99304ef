#include "kernels/k5_ws_tma_wgmma.cuh"

namespace pipegemm::detail {
using K5Cfg_f16_f32out = kernels::k5::K5Config<__half, float>;  // 128x256x64, 4 stages, 2 epilogue buffers
using K5Cfg_f16_f32out_short_k = kernels::k5::K5Config<__half, float, 128, 256, 64, 3, 4>;  // K <= 512: 3 stages, 4 buffers
void append_k5_f16_f32out(std::vector<Variant>& out) {
  out.push_back(K5Variant<K5Cfg_f16_f32out, K5Cfg_f16_f32out_short_k, 2>::make(
      "k5_ws_tma_wgmma_f16_f32out",
      "TMA+wgmma, 1 producer + 2 consumer warpgroups, persistent, 2-CTA clusters multicasting B when K >= 2048, fp16 in, fp32 out"));
}
}  // namespace pipegemm::detail
