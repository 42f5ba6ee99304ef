// PIPEGEMM_HOST_DEVICE: a helper the kernels run and the CPU tests call as plain C++ (the tile
// order, the stream-K plan, the pack copy's chunks). Forced inline on the device, as CuTe's
// CUTE_HOST_DEVICE was for k4: a few integer ops recomputed per tile, never a call.
#pragma once

#if defined(__CUDACC__)
#define PIPEGEMM_HOST_DEVICE __forceinline__ __host__ __device__
#else
#define PIPEGEMM_HOST_DEVICE inline
#endif
