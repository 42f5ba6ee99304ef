// k5's registry entries, in the order the automatic choice prefers among equals (first wins).
#include <vector>

#include "pipegemm/registry.hpp"
#include "registry/families.hpp"

namespace pipegemm::detail {
void append_k5_f16(std::vector<Variant>& out);
void append_k5_f16_f32out(std::vector<Variant>& out);
void append_k5_bf16(std::vector<Variant>& out);
void append_k5_bf16_f32out(std::vector<Variant>& out);

void append_k5_ws_tma_wgmma(std::vector<Variant>& out) {
  append_k5_f16(out);
  append_k5_f16_f32out(out);
  append_k5_bf16(out);
  append_k5_bf16_f32out(out);
}
}  // namespace pipegemm::detail
