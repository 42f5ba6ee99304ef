// Launcher and registry entry shared by every rung of the ladder (k0..k4). A rung's .cu file
// names its configs and calls make(); this header turns a config into a complete Variant:
// types, tile, requirements (the vector width rule), SASS expectations, launch, occupancy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/launch_util.cuh"
#include "pipegemm/device.hpp"
#include "pipegemm/kernels/common/operand_traits.cuh"
#include "pipegemm/kernels/common/smem_tiles.cuh"

namespace pipegemm::detail {

// Declares the tag type that names one registered variant (see SmemTileConfig::Name).
#define PIPEGEMM_VARIANT_NAME(id) \
  struct id {                     \
    static constexpr const char* kName = #id; \
  }

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, cute::half_t>) return DType::f16;
  else if constexpr (std::is_same_v<T, cute::bfloat16_t>) return DType::bf16;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::i8;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::i32;
  else return DType::f32;
}

// How a rung reads global memory, which decides what it can take.
enum class LoadPath {
  elements,   // k0: one element per load: any alignment, any K, any leading dimension
  vectors16,  // k1..k4: 16-byte vectors (LDG.128 / LDGSTS.128): 16-byte pointers, leading
              // dimensions and K in whole vectors; M and N any (predicated)
};

// Grid order: 2-D (x = N tiles, y = M tiles), 1-D swizzled (raster_tile in the kernel), or
// persistent: 1-D, one CTA per SM (at most one per tile), each walking tiles in raster order.
enum class GridOrder { rows_by_cols, swizzled, persistent };

template <class Cfg, auto Kernel, LoadPath kLoad, GridOrder kGrid>
struct LadderVariant {
  using Ops = typename Cfg::Ops;
  using TA = typename Ops::TA;
  using TD = typename Ops::TD;

  static Status launch(const Problem& p, const void* A, const void* B, void* D, cudaStream_t_ s) {
    if constexpr (kGrid == GridOrder::persistent)
      static_assert(Cfg::kPersistent, "a persistent grid needs a kernel that walks tiles (k4 with PERSISTENT)");
    Status st = prepare_smem(Kernel, Cfg::kSmemBytes);
    if (!st.ok()) return st;
    const unsigned num_m = unsigned((p.m + Cfg::BM - 1) / Cfg::BM);
    const unsigned num_n = unsigned((p.n + Cfg::BN - 1) / Cfg::BN);
    const dim3 grid = kGrid == GridOrder::persistent ? dim3(std::min(num_m * num_n, unsigned(device_info().sm_count)))
                      : kGrid == GridOrder::swizzled ? dim3(num_m * num_n)
                                                     : dim3(num_n, num_m);
    Kernel<<<grid, Cfg::kNumThreads, Cfg::kSmemBytes, s>>>(
        static_cast<TD*>(D), static_cast<const TA*>(A), static_cast<const TA*>(B), int(p.m), int(p.n),
        int(p.k), int(p.lda), int(p.ldb), int(p.ldd));
    return after_launch(Cfg::Name::kName);
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(Kernel, Cfg::kNumThreads, Cfg::kSmemBytes, blocks, regs);
  }

  // MMA instructions per k_tile per warp (HMMA m16n8k16 / IMMA m16n8k32) or per thread (FFMA).
  static constexpr int mma_count() {
    if constexpr (Ops::kTensorCore)
      return mma_per_k_tile(Cfg::BM, Cfg::BN, Cfg::BK, Cfg::kNumThreads / 32, 16, 8, Ops::kMmaK);
    else
      return mma_per_k_tile(Cfg::BM, Cfg::BN, Cfg::BK, Cfg::kNumThreads, 1, 1, 1);
  }

  static Variant make(std::string family, int rung, std::string desc, bool overlap, const char* load_ops) {
    Variant v;
    v.name = Cfg::Name::kName;
    v.family = std::move(family);
    v.rung = rung;
    v.description = std::move(desc);
    v.min_sm = Cfg::kSmemBytes > kernels::common::kSmemPerBlockOptinSm80 ? 90 : 80;
    v.a_type = v.b_type = dtype_of<TA>();
    v.d_type = dtype_of<TD>();
    v.acc_type = dtype_of<typename Ops::TAcc>();
    v.tile = {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, Cfg::kNumThreads, Cfg::kSmemBytes, Ops::kMmaK, false};
    if constexpr (kLoad == LoadPath::vectors16) {
      // One 16-byte vector = kVec elements: A and B pointers 16-byte aligned, lda, ldb and K
      // whole vectors. M, N: any (predicated). D: element stores (k1..k3), or 16-byte stores
      // where D's rows allow and element stores elsewhere (k4), so any ldd and a D aligned to
      // its element.
      v.req.k_multiple = Ops::kVec;
      v.req.ld_multiple = Ops::kVec;
      v.req.ptr_align_bytes = 16;
      v.req.ldd_multiple = 1;
      v.req.d_align_bytes = int(sizeof(TD));
    } else {
      // Element loads and stores: natural alignment of the widest element touched.
      v.req.ptr_align_bytes = int(std::max(sizeof(TA), sizeof(TD)));
    }
    v.sass = {std::string(Cfg::Name::kName) + "E", load_ops, Ops::kTensorCore ? (sizeof(TA) == 1 ? "IMMA" : "HMMA") : "FFMA",
              overlap, mma_count()};
    v.launch = &launch;
    v.occupancy = &occupancy;
    return v;
  }
};

}  // namespace pipegemm::detail
