// The named barriers of a Hopper GEMM CTA (barrier 0 is __syncthreads'), in one place so that the
// collectives that share them cannot collide.
#pragma once

namespace pipegemm::sm90 {

// 1 + c: consumer warpgroup c's 128 threads (its epilogue's chunk buffers, its bias staging).
constexpr int kConsumerBarrier = 1;
// The 256 consumer threads: a short cooperative tile's bias, stream-K's ring handed to the partials.
constexpr int kBiasBarrier = 3;
// Ping-pong: kTurnBarrier + c hands the ring to consumer c (ids 4, 5).
constexpr int kTurnBarrier = 4;
// Staggered cooperative consumers: consumer 1 starts once consumer 0 has issued its lead (id 6).
constexpr int kStaggerBarrier = 6;

}  // namespace pipegemm::sm90
