// auto's cost model (docs/dispatch.md): a time per candidate from the GPU table (pipegemm/introspect/arch.hpp)
// and the variant's typed fields, no names. Its job is to rank candidates where no tune entry
// exists -- to keep auto off the cliffs (k0 on an odd K, a 128x256 tile on M = 16, a rung that
// cannot reach the tensor rate) -- not to predict microseconds.
//
//   t = launch + max(compute, memory)
//   compute = waves * (2 * BM * BN * Kpad / (rate * clock * eff / blocks_per_sm) + fill + epilogue)
//   epilogue = a wave's D tiles stored (+ its C tiles read, ours only: cuBLAS hides that read)
//   memory  = (A + B + D bytes) / (DRAM bandwidth * 0.85)
//
// eff: steady-state fraction of the MMA rate each pipeline reaches, measured on the H200 at 4096^3
// fp16 (docs/ladder.md: k0 57, k1 280, k2 240, k3 314, k4 491, k5 754, cuBLAS 761 TFLOPS against
// 669 (mma.sync) and 1070 (wgmma) at 1980 MHz).
// cuBLAS picks its own tile and split-K at run time: it is modelled as the best of a tile menu.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/pack.hpp"
#include "pipegemm/pipeline/split_k.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/pipeline/stream_k.cuh"

namespace pipegemm {
namespace {

constexpr double kLaunchUs = 2.0;      // launch and tail of an empty kernel, GPU time
constexpr double kFillUs = 0.8;        // first k_tile's DRAM latency and ring fill, per wave
constexpr double kDramEff = 0.85;      // of the table's DRAM bandwidth, streaming
constexpr double kEpilogueEff = 0.8;   // a wave's D tiles stored at this share of DRAM bandwidth
// k0 (element loads and stores) moves its bytes at 0.11-0.12 of the streaming rate: where D is all
// the bytes (K = 1-3: 8611x9987x1, 13126x6579x3, 4374x5571x2) it took 358, 362, 108 us against
// 42, 42, 12 by that rate (data/tune/h200.json).
constexpr double kK0MemEff = 0.12;
// The packed form's cost per copied operand beyond its bytes: the copy's launch and tail and its
// share of the stream-ordered workspace. The smallest packed problems (45x25x283, 21x69x305: three
// copies) took 14.5 us where one kernel takes ~5, i.e. ~3.2 us a copy; 4 counts the allocation too.
// Replayed on the held-out table (tune --replay) the model alone reaches 0.923 of the fastest with
// it (0.916 at 3.2, 0.926 at 5; 0.900 with the launch's 2 us it had).
constexpr double kPackCopyUs = 4.0;

bool is_int8(DType t) { return t == DType::i8; }

// FLOP (or int ops) per SM clock of one MMA kind for these types; 0 = none on this GPU.
int rate_for(MmaKind mma, const Variant& v, const plan::MathRates& r) {
  const bool f16acc = v.acc_type == DType::f16;
  switch (mma) {
    case MmaKind::wgmma: return is_int8(v.a_type) ? r.wgmma_i8 : v.a_type == DType::f32 ? 0 : r.wgmma_f16;
    case MmaKind::mma_sync:
      return is_int8(v.a_type) ? r.mma_i8 : v.a_type == DType::f32 ? 0 : f16acc ? r.mma_f16_f16acc : r.mma_f16_f32acc;
    case MmaKind::ffma: return is_int8(v.a_type) ? 0 : r.ffma_f32;
    case MmaKind::library: break;
  }
  // cuBLAS: the fastest path the GPU has for the types (fp32 stays FFMA: no TF32).
  if (v.a_type == DType::f32) return r.ffma_f32;
  const int w = rate_for(MmaKind::wgmma, v, r);
  return w ? w : rate_for(MmaKind::mma_sync, v, r);
}

// Steady-state efficiency of a pipeline (see the header comment for the measurements).
double efficiency(const Variant& v) {
  const Mechanism& m = v.mech;
  switch (m.pipeline) {
    case PipelineKind::none: return 0.085;         // k0: LDG straight into the MMA
    // k1; shortk (the whole K one k_tile): its few MMAs are not what its time is made of.
    case PipelineKind::single: return one_k_tile(v) ? 0.8 : 0.42;
    case PipelineKind::ldg_register: return 0.36;  // k2
    case PipelineKind::cp_async_ring:              // k3 (2 slots), the seed, k4 (A reuse)
      return v.tile.stages <= 2 ? 0.47 : m.a_reuse ? 0.73 : 0.58;
    // k5; its s8 form measured 0.95 (4096^3, burst) and 0.91-0.96 (sustained) of the best cuBLAS
    // where the fp16 one is at 0.99 (H200, docs/hopper.md).
    case PipelineKind::mbarrier_ring: return is_int8(v.a_type) ? 0.69 : 0.73;
    case PipelineKind::register_prefetch: return 0.36;  // skinny: thin problems, the bytes decide
    case PipelineKind::library: break;
  }
  return v.family == "cublaslt" ? 0.74 : 0.72;  // cuBLASLt's timed best; cublasGemmEx's default
}

// The share of the MMA rate a BM x BN tile reaches: smaller tiles issue fewer MMAs per byte they
// move. One rule for cuBLAS's tile menu and for ours: replayed on the stored
// tables (`tune --replay`, no GPU) the model alone went from 0.867 to 0.876 of the fastest
// candidate over the shipped table's 502 shapes and from 0.883 to 0.900 on the held-out suite's
// table; auto with the table did not move (0.966, 0.962).
double tile_eff(int bm, int bn) {
  const long area = long(bm) * bn;
  return area >= 128 * 256 ? 1.0 : area >= 128 * 128 ? 0.92 : area >= 128 * 64 ? 0.8 : 0.6;
}

struct TileCost {
  int bm, bn, blocks;
};

double fmt_pct(double x) { return std::round(100.0 * x); }

}  // namespace

CostEstimate estimate_cost(const Variant& v, const Problem& p, const plan::ArchSpec& a, int blocks_per_sm) {
  CostEstimate e;
  const int rate = rate_for(v.mech.mma, v, a.rates);
  if (rate <= 0 || a.sm_count <= 0 || a.sm_clock_mhz <= 0 || a.dram_gbps <= 0) {
    e.why = std::string("no ") + to_string(v.mech.mma) + " rate for these types on " + a.name;
    return e;
  }
  e.known = true;
  const double clock = a.sm_clock_mhz * 1e6;
  // cuBLAS on 16-bit rows of an odd element count (odd K, lda or ldb: 2-byte alignment) runs its
  // element-aligned kernels at ~130 TFLOPS whatever the size -- 8191x4096x4095 FP16 135 TFLOPS,
  // 2048x2048x2049 128, against ~700 aligned (H200, docs/dispatch.md).
  // Its GEMV (M or N = 1) takes any alignment at full speed: 1x4097x4099 16.9 us against 14.7 for
  // 1x4096x4096 (H200). (4- and 8-byte rows are as slow on large shapes, but charging them lost
  // in replay: docs/dispatch.md.)
  const bool odd_rows = v.is_peer() && dtype_bytes(p.a_type) == 2 && std::min(p.m, p.n) > 1 &&
                        alignment_class(p, nullptr, nullptr, nullptr) <= 2;
  const double sm_rate = double(rate) * clock * efficiency(v) * (odd_rows ? 0.19 : 1.0);  // FLOP/s of one SM
  const double bw = a.dram_gbps * 1e3;                            // bytes per microsecond
  const double dsize = dtype_bytes(p.d_type), csize = dtype_bytes(p.c_type.value_or(p.d_type));
  e.memory_us = p.bytes() / (bw * kDramEff);
  if (v.mech.pipeline == PipelineKind::none) e.memory_us /= kK0MemEff;
  // skinny streams at 0.86-0.98 of the best cuBLAS on aligned decode shapes (the measured rate:
  // a tie on the model goes to cuBLAS; tune entries say where skinny wins), its any-alignment form
  // (A or B rows not in whole 16-byte vectors: five 4-byte words a lane) at ~0.88 of that: 18.1 us
  // on 1x4096x4095 against 15.9 on 1x4096x4096, 20.1 against 17.6 at M = 16 (H100, docs/skinny.md;
  // the element form it replaced ran at ~0.68).
  if (v.mech.swap_ab) {
    e.memory_us /= 0.92;
    if (dtype_bytes(p.a_type) == 2 && (p.lda % 8 || p.ldb % 8 || (p.batch > 1 && (p.stride_a % 8 || p.stride_b % 8))))
      e.memory_us /= 0.88;
  }

  // K's quantum: the variant's k_tile (none where K is one k_tile computed to its end).
  const int64_t kq = one_k_tile(v) ? 1 : std::max<int64_t>(v.tile.bk > 0 ? v.tile.bk : 64, 1);
  // One tile shape's time over the GPU: waves of (math + fill + the wave's D stores).
  auto wave_cost = [&](int bm, int bn, int blocks, double tile_eff, int split, CostEstimate* out) {
    const int64_t k_per = (p.k + split - 1) / split;
    const double kpad = double((k_per + kq - 1) / kq * kq);
    const plan::Waves w = plan::waves_for(p.m, p.n, bm, bn, blocks, a.sm_count);
    const long long tiles = w.tiles * split * p.batch;  // a batch's products are more tiles
    const long long slots = w.slots;
    const long long waves = (tiles + slots - 1) / slots;
    const double math = 2.0 * bm * bn * kpad * blocks / (sm_rate * tile_eff) * 1e6;
    // A wave's D tiles stored and, with beta * C, ours also read C's tile after the mainloop while
    // the tensor cores idle; cuBLAS's read is hidden (its C is in the memory term only). k5 at
    // 4096^3, beta 1, C = D: 1.071-1.075 of its plain time where cuBLASLt's is 0.99-1.00 of its own
    // (H200, docs/semantics.md).
    const double epi_bytes = (split > 1 ? 4.0 : dsize) + (!v.is_peer() && p.reads_c() ? csize : 0.0);
    const double epi = double(std::min<long long>(tiles, slots)) * bm * bn * epi_bytes / (bw * kEpilogueEff);
    double t = double(waves) * (math + kFillUs + epi);
    if (split > 1) t += 1.0 + double(p.batch) * double(p.m) * double(p.n) * (4.0 * split + dsize) / (bw * kDramEff);  // reduction
    out->tiles = tiles;
    out->waves = waves;
    out->last_wave_util = double(tiles - (waves - 1) * slots) / double(slots);
    out->blocks_per_sm = blocks;
    out->split_k = split;
    out->compute_us = t;
  };

  // Stream-K (k5_*_streamk): the launcher's own plan (pipeline/stream_k.cuh) -- the whole units in
  // rounds over the workers, then the shared units' k_tiles spread evenly over them, each shared
  // unit's parts written as fp32 partials and added by its finisher (split-K's reduction term).
  auto stream_k_cost = [&](int bm, int bn, int blocks, double teff, CostEstimate* out) {
    const int64_t k_tiles = (p.k + kq - 1) / kq;
    const plan::Waves w = plan::waves_for(p.m, p.n, bm, bn, blocks, a.sm_count);
    const int64_t units = w.tiles * p.batch;
    if (units > (1 << 30) || k_tiles > (1 << 30)) return wave_cost(bm, bn, blocks, teff, 1, out);
    const pipeline::StreamKPlan sk = pipeline::stream_k_plan(int(units), int(k_tiles), int(std::max<long long>(w.slots, 1)));
    const double kt_math = 2.0 * bm * bn * double(kq) * blocks / (sm_rate * teff) * 1e6;
    const long long rounds = (sk.dp_units() + sk.workers - 1) / sk.workers;
    const long long sk_per = (static_cast<long long>(sk.sk_iters()) + sk.workers - 1) / sk.workers;
    const double epi_bytes = dsize + (p.reads_c() ? csize : 0.0);
    const double epi = double(std::min<long long>(units, sk.workers)) * bm * bn * epi_bytes / (bw * kEpilogueEff);
    double t = double(rounds) * (double(k_tiles) * kt_math + kFillUs + epi);
    const double parts = sk.sk_units > 0 ? double(sk.workers) / sk.sk_units + 1.0 : 1.0;  // a unit's segments
    if (sk.sk_units > 0)
      t += double(sk_per) * kt_math + kFillUs + epi + 1.0 + double(sk.sk_units) * bm * bn * 4.0 * parts / (bw * kDramEff);
    out->tiles = units;
    out->waves = rounds + (sk.sk_units > 0 ? 1 : 0);
    out->last_wave_util = sk.sk_units > 0 ? 1.0 : double(units - (rounds - 1) * sk.workers) / double(sk.workers);
    out->blocks_per_sm = blocks;
    out->split_k = sk.sk_units > 0 ? int(parts) : 1;
    out->compute_us = t;
  };

  if (v.is_peer()) {
    // cuBLAS: the best of its tile menu and split-K over the problem.
    static const TileCost menu[] = {{128, 256, 1}, {256, 128, 1}, {128, 128, 2}, {128, 64, 2}, {64, 128, 2}, {64, 64, 3}};
    static const int splits[] = {1, 2, 3, 4, 6, 8, 12, 16};
    bool first = true;
    for (const TileCost& t : menu)
      for (int s : splits) {
        if (s > 1 && p.k / s < 256) break;
        CostEstimate c;
        wave_cost(t.bm, t.bn, t.blocks, tile_eff(t.bm, t.bn), s, &c);
        if (first || c.compute_us < e.compute_us) {
          e.compute_us = c.compute_us, e.tiles = c.tiles, e.waves = c.waves, e.last_wave_util = c.last_wave_util;
          e.blocks_per_sm = c.blocks_per_sm, e.split_k = c.split_k;
          first = false;
        }
      }
  } else {
    int blocks = blocks_per_sm;
    if (blocks <= 0) {  // shared memory and threads alone (registers unknown off the GPU)
      const int smem = v.tile.smem_bytes + a.smem_reserved_per_block;
      blocks = smem > 0 ? a.smem_per_sm / smem : a.max_blocks_per_sm;
      if (v.tile.threads > 0 && a.max_threads_per_sm > 0) blocks = std::min(blocks, a.max_threads_per_sm / v.tile.threads);
      if (a.max_blocks_per_sm > 0) blocks = std::min(blocks, a.max_blocks_per_sm);
      blocks = std::max(blocks, 1);
    }
    // Split-K variants: the launcher's own plan (pipegemm/pipeline/split_k.hpp).
    const int split = v.mech.split_k > 1 ? pipeline::split_plan(p.m, p.n, p.k, v.tile.bm, v.tile.bn, v.tile.bk,
                                                               v.mech.split_k, int64_t(a.sm_count) * blocks).splits
                                         : 1;
    if (v.mech.stream_k)
      stream_k_cost(v.tile.bm, v.tile.bn, blocks, tile_eff(v.tile.bm, v.tile.bn), &e);
    else
      wave_cost(v.tile.bm, v.tile.bn, blocks, tile_eff(v.tile.bm, v.tile.bn), split, &e);
  }
  e.memory_bound = e.memory_us > e.compute_us;
  e.us = kLaunchUs + std::max(e.compute_us, e.memory_us);
  if (v.mech.packed) {  // the copies before (A, B) and after (D) the kernel, and their launches
    const detail::PackPlan pl = detail::pack_plan(p, nullptr, nullptr, nullptr);
    // A copied part's bytes, read on one side and written on the other (D: twice, as before).
    auto moved = [](const detail::PackPart& o, double esize, double times) {
      return o.copy ? times * double(o.products) * double(o.rows) * double(o.cols + o.ld) * esize : 0.0;
    };
    e.pack_bytes = moved(pl.a, dtype_bytes(p.a_type), 1) + moved(pl.b, dtype_bytes(p.b_type), 1) + moved(pl.d, dsize, 2);
    if (e.pack_bytes > 0) e.us += kPackCopyUs * pl.copies() + e.pack_bytes / (bw * kDramEff);
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%.1f us: %lld tiles%s, %lld wave%s (last %.0f%%), %s%s", e.us, e.tiles,
                e.split_k > 1 ? (" (split-K " + std::to_string(e.split_k) + ")").c_str() : "", e.waves,
                e.waves == 1 ? "" : "s", fmt_pct(e.last_wave_util), e.memory_bound ? "memory-bound" : "compute-bound",
                e.pack_bytes > 0 ? (", + " + std::to_string(int64_t(e.pack_bytes / 1e6)) + " MB packed").c_str() : "");
  e.why = buf;
  return e;
}

}  // namespace pipegemm
