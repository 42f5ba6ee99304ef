// Fences between the generic proxy (ordinary loads/stores, stmatrix) and the async proxy
// (TMA, wgmma operand reads), and the one that publishes mbarrier initialisation cluster-wide.
#pragma once

namespace pipegemm::arch {

// fence.proxy.async.shared::cta: shared-memory writes by this thread (st.shared, stmatrix)
// become visible to later async-proxy reads (a TMA store of that tile). Each writing thread
// fences, then a barrier lets the issuing thread go.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// fence.mbarrier_init.release.cluster: makes mbarrier.init visible to the other CTAs of the
// cluster (and to the copy engine) before the cluster barrier that follows it.
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

}  // namespace pipegemm::arch
