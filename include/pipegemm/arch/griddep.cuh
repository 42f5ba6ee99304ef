// griddepcontrol (sm_90): programmatic dependent launch. A grid launched with it
// (cudaLaunchAttributeProgrammaticStreamSerialization) may start while the grid before it in the
// stream still runs; both instructions are no-ops for a grid launched without it, and compiled
// out below sm_90 (the kernels built for sm_80 too call them alike).
#pragma once

namespace pipegemm::arch {

// Waits until the grids this one depends on have completed and their memory is visible: before
// this, a kernel touches no global memory that an earlier kernel may read or write.
__device__ __forceinline__ void griddep_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next grid in the stream launch (it still waits for this one in its griddep_wait).
__device__ __forceinline__ void griddep_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace pipegemm::arch
