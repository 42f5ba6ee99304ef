// The registry: variants.def, read twice -- once to declare each line's registration function,
// once to call them in table order -- and each variant's description made from its fields. The
// teaching lines' functions are weak: defined in the teaching library (the CLI and the tests link
// it), null in a program that links only pipegemm, which then lists no teaching variant.
#include "pipegemm/introspect/registry.hpp"

#include <string>
#include <vector>

namespace pipegemm {
namespace detail {
#define PIPEGEMM_LINE(name) void PIPEGEMM_REGISTER_FN(name)(std::vector<Variant> & out);
#define PIPEGEMM_TEACHING_LINE(name) __attribute__((weak)) PIPEGEMM_LINE(name)
#include "registry/table_lines.inc"
#undef PIPEGEMM_TEACHING_LINE
#undef PIPEGEMM_LINE
}  // namespace detail

namespace {

std::string types_words(const Variant& v) {
  const std::string in = to_string(v.a_type), acc = to_string(v.acc_type), out = to_string(v.d_type);
  if (v.a_type == DType::f32) return "fp32 FFMA";
  std::string s = in + (v.d_type == v.a_type ? " in/out" : " in, " + out + " out");
  return s + ", " + acc + " acc";
}

std::string tile_words(const Variant& v) {
  const TileConfig& t = v.tile;
  std::string s = std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.bk);
  const Mechanism& m = v.mech;
  if (m.warp_specialized) {
    s += ", 1 producer + " + std::to_string(m.consumers) + " consumer warpgroups" + (m.pingpong ? " (ping-pong)" : "");
    // A cooperative consumer of more than one wgmma's 64 rows issues one wgmma per m64 block.
    if (m.mma == MmaKind::wgmma && !m.pingpong && m.consumers > 0 && t.mma_m > 0 && t.bm / m.consumers > t.mma_m)
      s += " of " + std::to_string(t.bm / m.consumers) + " rows (" + std::to_string(t.bm / m.consumers / t.mma_m) +
           " m" + std::to_string(t.mma_m) + "n" + std::to_string(t.mma_n) + " blocks each)";
  }
  else if (m.mma == MmaKind::ffma)
    s += ", 16x16 threads, " + std::to_string(t.bm / 16) + "x" + std::to_string(t.bn / 16) + " each";
  else if (m.swap_ab)
    s += ", " + std::to_string(m.warps_m) + " warps splitting BK (" + std::to_string(t.bk / m.warps_m) + " each)";
  else if (m.warps_m > 0)
    s += ", " + std::to_string(m.warps_m) + "x" + std::to_string(m.warps_n) + " warps, " +
         std::to_string(t.bm / m.warps_m) + "x" + std::to_string(t.bn / m.warps_n) + " each";
  return s;
}

}  // namespace

std::string describe(const Variant& v) {
  if (v.family == "cublaslt")
    return "cuBLASLt, " + types_words(v) + ": the heuristic's top 8 (32 MiB workspace) and cublasGemmEx where it "
           "computes the problem, timed on first use, the fastest kept; no reduced-precision split-K reductions";
  if (v.is_peer()) {
    const char* compute = v.acc_type == DType::f16 ? "CUBLAS_COMPUTE_16F"
                          : v.acc_type == DType::i32 ? "CUBLAS_COMPUTE_32I"
                          : v.a_type == DType::f32 ? "CUBLAS_COMPUTE_32F (FFMA, no TF32)"
                                                   : "CUBLAS_COMPUTE_32F";
    return "cublasGemmEx, " + types_words(v) + ", " + compute;
  }
  const Mechanism& m = v.mech;
  std::vector<std::string> parts;
  const std::string stages = std::to_string(v.tile.stages) + "-stage ";
  switch (m.pipeline) {
    case PipelineKind::none: parts.push_back("no smem: global -> registers element by element"); break;
    case PipelineKind::single: parts.push_back("single smem buffer: cp.async, wait, sync, compute, sync"); break;
    case PipelineKind::ldg_register:
      parts.push_back("double buffer staged through registers: LDG next k_tile, compute, STS, sync");
      break;
    case PipelineKind::cp_async_ring:
      parts.push_back(v.tile.stages == 2 ? "double buffer with cp.async: commit next k_tile, compute, wait, sync"
                                         : stages + "cp.async ring");
      break;
    case PipelineKind::mbarrier_ring: parts.push_back(stages + "TMA ring with full/empty mbarriers"); break;
    case PipelineKind::register_prefetch:
      parts.push_back("no smem: each warp LDGs its next k_tile into the other of two register buffers under this "
                      "one's MMAs");
      break;
    case PipelineKind::library: break;
  }
  if (m.swap_ab)
    parts.push_back("roles by size: at most " + std::to_string(v.req.max_thin) +
                    " rows of the thin operand on the MMA's 16-row side (padded), the large one streamed on its "
                    "8-wide side (D^T = B A^T when N is the thin side)");
  if (m.mma == MmaKind::wgmma) parts.push_back("wgmma");
  if (m.warp_specialized) parts.push_back("warp-specialized");
  if (m.order == TileOrder::persistent) parts.push_back("persistent");
  if (m.split_k > 1)
    parts.push_back("split-K over up to " + std::to_string(m.split_k) +
                    " CTAs when tiles leave SMs idle, fp32 partials summed in split order by the last");
  if (m.max_cluster > 1 && m.cluster_n)
    parts.push_back(std::to_string(m.max_cluster) + "-CTA clusters along N multicasting A when K >= 2048");
  else if (m.max_cluster > 1)
    parts.push_back(std::to_string(m.max_cluster) + "-CTA clusters multicasting B when K >= 2048");
  else if (m.warp_specialized)
    parts.push_back("no clusters (each CTA loads its own B)");
  if (m.ldmatrix && m.s2r_prefetch) parts.push_back("next-k_block ldmatrix prefetch");
  else if (m.s2r_prefetch) parts.push_back("next-k_block smem prefetch");
  if (m.a_reuse) parts.push_back("A-reusing MMA order");
  if (m.epilogue == EpilogueKind::smem_staged) parts.push_back("smem epilogue");
  if (m.epilogue == EpilogueKind::stmatrix_tma) parts.push_back("stmatrix + TMA-store epilogue");
  if (m.stagger > 0)
    parts.push_back("consumer 1 " + std::to_string(m.stagger) + " k_tiles behind consumer 0 when K > 512 (each's epilogue under the other's MMAs)");
  if (m.packed) parts.push_back("operands not in whole 16-byte rows copied through an aligned workspace");
  if (m.b_resident) parts.push_back("B loaded once and kept in shared memory for every tile");
  if (m.stream_k) parts.push_back("stream-K: the last wave's k_tiles shared by every CTA, partials summed in k order");
  if (m.raster_group > 0 && !m.warp_specialized)
    parts.push_back("swizzled CTA order (group " + std::to_string(m.raster_group) + ")");
  std::string s = v.teaching.empty() ? "" : "TEACHING, built to break one thing: " + v.teaching + " -- ";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  const char* auto_words = v.auto_candidate ? ""
                           : v.auto_tuned_only ? (v.auto_guess_when ? "; auto's where a tune entry timed it fastest, "
                                                                      "and a guess in its measured regime"
                                                                    : "; auto's where a tune entry timed it fastest")
                                               : "; by name only (not auto's)";
  return s + "; " + tile_words(v) + "; " + types_words(v) + auto_words;
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
#define PIPEGEMM_LINE(name) detail::PIPEGEMM_REGISTER_FN(name)(v);
#define PIPEGEMM_TEACHING_LINE(name) \
  if (detail::PIPEGEMM_REGISTER_FN(name)) PIPEGEMM_LINE(name)
#include "registry/table_lines.inc"
#undef PIPEGEMM_TEACHING_LINE
#undef PIPEGEMM_LINE
    for (Variant& x : v) {
      x.description = describe(x);
      // A family of one kernel per variant: that kernel, for every problem the variant takes.
      if (x.kernels.empty() && !x.symbol.empty()) x.kernels.push_back({"", x.symbol, false, false, false, 0, 0, "every problem it takes"});
    }
    return v;
  }();
  return all;
}

const Variant* find_variant(std::string_view name) {
  for (const Variant& v : variants())
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace pipegemm
