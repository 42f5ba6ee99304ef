// The planner against CUDA on the live GPU: for every registered variant that runs here, the
// predicted blocks/SM must equal cudaOccupancyMaxActiveBlocksPerMultiprocessor (registers from
// the kernel, everything else from the plan); and for a probe kernel loaded from PTX, the same
// over a sweep of block sizes and dynamic smem that crosses every smem cliff. The tables it
// prints are the record kept under bench/results/.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "gpu_test.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm_tools/planner.hpp"

using namespace pipegemm;
using namespace pipegemm::plan;

static ArchSpec live_arch() {
  ArchSpec a;
  Status s = arch_from_device(device_info(), &a);
  EXPECT_TRUE(s.ok()) << s.message;
  return a;
}

TEST(GpuPlanner, LiveDeviceMatchesTheTableEntryOfItsArch) {
  REQUIRE_GPU();
  ArchSpec live = live_arch();
  ArchSpec table;
  ASSERT_TRUE(find_arch("sm_" + std::to_string(live.sm), &table).ok());
  std::printf("live %s sm_%d: %d SMs, smem/SM %d, opt-in %d, reserved %d, threads/SM %d, blocks/SM %d, "
              "%.0f MHz, %.0f GB/s\n", live.name.c_str(), live.sm, live.sm_count, live.smem_per_sm,
              live.smem_per_block_optin, live.smem_reserved_per_block, live.max_threads_per_sm,
              live.max_blocks_per_sm, live.sm_clock_mhz, live.dram_gbps);
  EXPECT_EQ(live.smem_per_sm, table.smem_per_sm);
  EXPECT_EQ(live.smem_per_block_optin, table.smem_per_block_optin);
  EXPECT_EQ(live.smem_reserved_per_block, table.smem_reserved_per_block);
  EXPECT_EQ(live.regs_per_sm, table.regs_per_sm);
  EXPECT_EQ(live.max_threads_per_sm, table.max_threads_per_sm);
  EXPECT_EQ(live.max_blocks_per_sm, table.max_blocks_per_sm);
}

TEST(GpuPlanner, PredictedBlocksPerSmEqualCudaForEveryRegisteredVariant) {
  REQUIRE_GPU();
  ArchSpec a = live_arch();
  int checked = 0;
  std::printf("%-28s %7s %8s %5s %6s %6s  %s\n", "variant", "threads", "smem", "regs", "CUDA", "plan", "limited by");
  for (const Variant& v : variants()) {
    if (v.is_peer() || !v.occupancy || v.tile.threads <= 0) continue;
    if (a.sm < v.min_sm || (v.max_sm && a.sm > v.max_sm)) continue;
    int cuda_blocks = -1, regs = 0;
    Status s = v.occupancy(&cuda_blocks, &regs);
    ASSERT_TRUE(s.ok()) << v.name << ": " << s.message;
    KernelDesc k = kernel_from_variant(v);
    // Static __shared__ (e.g. barriers outside the dynamic ring) from the binary when cuobjdump
    // is there; the registry's smem is the dynamic part.
    ResUsage ru;
    std::string why;
    // A static array the registry states (smem_static) is counted once: cuobjdump's reading of it, or
    // the registry's where there is none.
    int static_smem = res_usage_from_cuobjdump(v.symbol, a.sm, &ru, &why) && ru.matches == 1 ? ru.static_smem
                                                                                             : k.static_smem;
    Occupancy o = occupancy(a, v.tile.threads, v.tile.dynamic_smem(), regs, static_smem, k.barriers);
    std::printf("%-28s %7d %8d %5d %6d %6d  %s\n", v.name.c_str(), v.tile.threads, v.tile.smem_bytes, regs,
                cuda_blocks, o.blocks, o.limiter.c_str());
    EXPECT_EQ(o.blocks, cuda_blocks) << v.name << ": threads " << v.tile.threads << ", smem " << v.tile.dynamic_smem()
                                     << " (+" << static_smem << " static), regs " << regs << "; plan limited by "
                                     << o.limiter << (o.error.empty() ? "" : " / " + o.error);
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no registered variant runs on sm_" << a.sm;
}

// A kernel with no smem of its own and few registers, loaded from PTX so that this .cpp needs
// no device compiler: CUDA's answer over block sizes x dynamic smem, against the plan's.
static const char* kProbePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry pg_occupancy_probe(.param .u64 out)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  mov.u32 %r0, %tid.x;
  st.global.u32 [%rd1], %r0;
  ret;
}
)";

TEST(GpuPlanner, SmemAndThreadSweepOfAProbeKernelMatchesCuda) {
  REQUIRE_GPU();
  ArchSpec a = live_arch();
  cudaLibrary_t lib = nullptr;
  ASSERT_EQ(cudaLibraryLoadData(&lib, kProbePtx, nullptr, nullptr, 0, nullptr, nullptr, 0), cudaSuccess)
      << cudaGetErrorString(cudaGetLastError());
  cudaKernel_t kern = nullptr;
  ASSERT_EQ(cudaLibraryGetKernel(&kern, lib, "pg_occupancy_probe"), cudaSuccess);
  const void* fn = reinterpret_cast<const void*>(kern);
  ASSERT_EQ(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, a.smem_per_block_optin), cudaSuccess);
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, fn), cudaSuccess);
  std::printf("probe: %d regs, %zu B static smem\n", attr.numRegs, attr.sharedSizeBytes);
  int mismatches = 0, checked = 0;
  for (int threads : {32, 64, 96, 128, 256, 384, 512, 1024}) {
    for (int n = 1; n <= 32; ++n) {  // around every smem cliff: the edge and one byte past it
      int edge = max_dynamic_smem_for_blocks(a, n, int(attr.sharedSizeBytes));
      for (int smem : {edge, edge + 1, edge / 2}) {
        if (smem < 0 || smem > a.smem_per_block_optin) continue;
        int cuda = -1;
        ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda, fn, threads, size_t(smem)), cudaSuccess);
        Occupancy o = occupancy(a, threads, smem, attr.numRegs, int(attr.sharedSizeBytes));
        ++checked;
        if (o.blocks != cuda && ++mismatches <= 10)
          ADD_FAILURE() << "threads " << threads << " smem " << smem << ": CUDA " << cuda << ", plan " << o.blocks
                        << " (" << o.limiter << ")";
      }
    }
  }
  std::printf("probe sweep: %d configurations, %d mismatches\n", checked, mismatches);
  EXPECT_EQ(mismatches, 0);
  cudaLibraryUnload(lib);
}
