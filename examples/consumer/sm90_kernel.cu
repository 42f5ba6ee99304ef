// A Hopper GEMM kernel composed from the installed collectives (pipegemm/sm90/), as a consumer's
// own translation unit composes one: FP16 in and out, 128x256x64 tiles, 4 stages, clusters along M
// with B multicast, the tile stored by TMA, cooperative consumers, the raster tile order. Taking
// the kernel's address instantiates it; the launch needs tensor maps for A, B and D
// (cuTensorMapEncodeTiled) -- the library's k5 launcher shows one.
#include "pipegemm/sm90/kernel.cuh"

namespace sm90 = pipegemm::sm90;

struct MyLine;  // the tag that names the instantiation in the machine code
using MyGemm = sm90::Sm90Gemm<sm90::MainloopTmaWgmma<__half, sm90::Tile<128, 256, 64>, 4, sm90::MulticastB>,
                              sm90::EpilogueTmaStore<__half, 2>, sm90::Cooperative, sm90::RasterScheduler,
                              sm90::KernelName<MyLine, sm90::FormLong>>;

void* my_gemm_kernel() { return reinterpret_cast<void*>(&sm90::k5_ws_tma_wgmma_kernel<MyGemm>); }
