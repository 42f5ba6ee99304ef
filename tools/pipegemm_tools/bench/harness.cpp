// Timing: CUDA events around each launch (or each group of launches, for launches under
// sample_us), warm-up first, median of many, buffer sets rotated over >= 2x L2 so no launch
// reads operands another left in cache, variants interleaved in rounds so clock drift hits all
// of them alike, each timed block queued behind a stream hold so it runs without host gaps.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/stream_hold.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/bench/device_side.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {
namespace {

struct BufferSet {
  void *A = nullptr, *B = nullptr, *D = nullptr, *C = nullptr, *bias = nullptr;
  // The matrices of one launch: C is D itself in place, absent where the problem reads none.
  Operands ops(const Problem& p, bool c_in_place) const {
    Operands x;
    x.a = A, x.b = B, x.d = D;
    if (p.reads_c()) x.c = c_in_place ? D : C;
    if (p.bias != Bias::none) x.bias = bias;
    return x;
  }
};

double copy_bandwidth_gbps() {
  const size_t bytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaFree(src);
    cudaGetLastError();
    return 0;
  }
  cudaMemset(src, 1, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < 12; ++i) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 2) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (t[t.size() / 2] * 1e-3) / 1e9;
}

// The buffers depend on the A, B, D types only; each variant runs with its own accumulation.
Problem with_acc(Problem p, const Variant& v) {
  p.acc_type = v.acc_type;
  return p;
}

// Launches queued behind one stream hold: far below the device's queue of pending launches
// (about a thousand), past which the host would block on a stream that waits for the host.
constexpr int kMaxHeldLaunches = 256;

// Launches per timed sample: enough to last sample_us (events resolve ~0.5 us), the block of
// `reps` samples under kMaxHeldLaunches.
int launches_per_sample(double ms_per_launch, const BenchOptions& opt, int reps) {
  const int fit = int(std::ceil(opt.sample_us * 1e-3 / std::max(ms_per_launch, 1e-6)));
  return std::clamp(fit, 1, std::max(1, kMaxHeldLaunches / reps));
}
double median_of(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

// --idle-ms: the device idles before each block, so every block starts from the same power state.
cudaError_t idle_before_block(const BenchOptions& opt) {
  if (opt.idle_ms <= 0) return cudaSuccess;
  const cudaError_t e = cudaDeviceSynchronize();
  std::this_thread::sleep_for(std::chrono::milliseconds(opt.idle_ms));
  return e;
}

// One timed block: `reps` samples of `group` launches each, queued behind one stream hold so the
// block runs back to back, without the host's gaps. launch() makes one launch and returns false
// to stop (the caller keeps why: then no samples). Each sample is its group's time / group.
struct TimedBlock {
  std::vector<float> ms;
  bool held_out = false;            // the hold gave out before the block was queued
  cudaError_t sync = cudaSuccess;   // the block's synchronization
};
template <class Launch>
TimedBlock time_block(Launch&& launch, int reps, int group) {
  TimedBlock b;
  std::vector<cudaEvent_t> ev(size_t(2 * reps));
  for (auto& e : ev) cudaEventCreate(&e);
  bool ok = true;
  {
    detail::StreamHold hold;
    const bool held = hold.hold(nullptr).ok();
    for (int r = 0; r < reps && ok; ++r) {
      cudaEventRecord(ev[size_t(2 * r)]);
      for (int g = 0; g < group && ok; ++g) ok = launch();
      cudaEventRecord(ev[size_t(2 * r + 1)]);
    }
    if (held && !hold.release()) b.held_out = true;
  }
  if (ok && (b.sync = cudaDeviceSynchronize()) == cudaSuccess)
    for (int r = 0; r < reps; ++r) {
      float ms = 0;
      cudaEventElapsedTime(&ms, ev[size_t(2 * r)], ev[size_t(2 * r + 1)]);
      b.ms.push_back(ms / float(group));
    }
  for (auto& e : ev) cudaEventDestroy(e);
  return b;
}

// A device-to-device copy that moves the problem's bytes (half read, half written, in `sets`
// rotated pairs), timed like the variants: the roofline of this size, launch and ramp included,
// beside the 1 GiB copy's asymptote. 0 when it could not run.
double same_bytes_copy_ms(double set_bytes, int sets, const BenchOptions& opt) {
  const size_t half = std::max<size_t>(256, size_t(set_bytes / 2) / 256 * 256);
  std::vector<void*> src(size_t(sets), nullptr), dst(size_t(sets), nullptr);
  auto free_all = [&] {
    for (int i = 0; i < sets; ++i) { cudaFree(src[size_t(i)]); cudaFree(dst[size_t(i)]); }
    cudaGetLastError();
  };
  for (int i = 0; i < sets; ++i)
    if (cudaMalloc(&src[size_t(i)], half) != cudaSuccess || cudaMalloc(&dst[size_t(i)], half) != cudaSuccess ||
        cudaMemset(src[size_t(i)], 1, half) != cudaSuccess) {
      free_all();
      return 0;
    }
  int next = 0;
  auto copy = [&] {
    const size_t i = size_t(next++ % sets);
    cudaMemcpyAsync(dst[i], src[i], half, cudaMemcpyDeviceToDevice);
  };
  const int reps = std::max(1, opt.reps);
  for (int w = 0; w < std::max(2, opt.warmup); ++w) copy();
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  copy();
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float one = 0;
  cudaEventElapsedTime(&one, e0, e1);
  const int group = launches_per_sample(one, opt, reps);
  idle_before_block(opt);
  std::vector<float> t = time_block([&] { copy(); return true; }, reps, group).ms;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  free_all();
  return t.empty() ? 0 : median_of(std::move(t));
}

}  // namespace

std::vector<const Variant*> peers_for(const Variant& v) {
  std::vector<const Variant*> out;
  for (const Variant& c : variants())
    if (c.is_peer() && c.a_type == v.a_type && c.acc_type == v.acc_type && c.d_type == v.d_type) out.push_back(&c);
  return out;
}

Status bench_variants(const Problem& in, const std::vector<const Variant*>& vs, const BenchOptions& opt,
                      BenchReport* out) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  const Problem p = in.normalized();
  const bool in_place = opt.c_in_place && p.reads_c();
  if (in_place && (p.ldc != p.ldd || *p.c_type != p.d_type || p.stride_c != p.stride_d))
    return Status::error(StatusCode::invalid_argument, "C = D in place needs C with D's leading dimension, type and batch stride");
  out->problem = p;
  out->c_in_place = in_place;
  out->results.clear();

  // Every product of the batch (a broadcast operand once); C only apart from D, the bias when asked.
  auto bytes_of = [&](const MatrixView& v, DType t) { return size_t(v.batch_span(p.batch)) * size_t(dtype_bytes(t)); };
  const size_t a_bytes = bytes_of(view_a(p), p.a_type);
  const size_t b_bytes = bytes_of(view_b(p), p.b_type);
  const size_t d_bytes = bytes_of(view_d(p), p.d_type);
  const size_t c_bytes = p.reads_c() && !in_place ? bytes_of(view_c(p), *p.c_type) : 0;
  const int64_t bias_n = p.bias == Bias::per_row ? p.m : p.bias == Bias::per_col ? p.n : 0;
  const size_t bias_bytes = bias_n ? size_t(bias_n) * size_t(dtype_bytes(*p.bias_type)) : 0;
  const double set_bytes = double(a_bytes + b_bytes + d_bytes + c_bytes + bias_bytes);
  int sets = std::max(2, int(std::ceil(opt.l2_factor * dev.l2_bytes / set_bytes)));
  sets = std::min(sets, 512);
  out->buffer_sets = sets;
  out->set_bytes = set_bytes;

  std::vector<BufferSet> bufs(static_cast<size_t>(sets));
  auto free_all = [&] {
    for (auto& b : bufs) { cudaFree(b.A); cudaFree(b.B); cudaFree(b.D); cudaFree(b.C); cudaFree(b.bias); }
  };
  for (auto& b : bufs) {
    if (!(s = detail::cuda_status(cudaMalloc(&b.A, a_bytes), "cudaMalloc A")).ok() ||
        !(s = detail::cuda_status(cudaMalloc(&b.B, b_bytes), "cudaMalloc B")).ok() ||
        !(s = detail::cuda_status(cudaMalloc(&b.D, d_bytes), "cudaMalloc D")).ok() ||
        (c_bytes && !(s = detail::cuda_status(cudaMalloc(&b.C, c_bytes), "cudaMalloc C")).ok()) ||
        (bias_bytes && !(s = detail::cuda_status(cudaMalloc(&b.bias, bias_bytes), "cudaMalloc bias")).ok()) ||
        !(s = bench_detail::fill_uniform(b.A, a_bytes / size_t(dtype_bytes(p.a_type)), p.a_type, 0x5eedA)).ok() ||
        !(s = bench_detail::fill_uniform(b.B, b_bytes / size_t(dtype_bytes(p.b_type)), p.b_type, 0x5eedB)).ok() ||
        (c_bytes && !(s = bench_detail::fill_uniform(b.C, c_bytes / size_t(dtype_bytes(*p.c_type)), *p.c_type, 0x5eedC)).ok()) ||
        (in_place && !(s = bench_detail::fill_uniform(b.D, d_bytes / size_t(dtype_bytes(p.d_type)), p.d_type, 0x5eedC)).ok()) ||
        (bias_bytes && !(s = bench_detail::fill_uniform(b.bias, size_t(bias_n), *p.bias_type, 0x5eedD)).ok())) {
      free_all();
      return s;
    }
  }

  // Refuse up front (nothing launched for a variant that cannot take the problem).
  std::vector<BenchResult> res(vs.size());
  std::vector<std::vector<float>> samples(vs.size());
  std::vector<GemmCall> calls(vs.size());
  for (size_t i = 0; i < vs.size(); ++i) {
    res[i].variant = vs[i]->name;
    res[i].status = GemmCall::make(with_acc(p, *vs[i]), *vs[i], bufs[0].ops(p, in_place), &calls[i]);
  }
  const int rounds = std::max(1, opt.rounds);
  const int per_round = std::max(1, opt.reps / rounds);
  std::vector<int> reps_of(vs.size(), per_round);
  int set_idx = 0;
  // One untimed launch of each first (cuBLASLt times its heuristic's candidates on first use, with
  // synchronizations that must not fall inside a held block), then a preheat: >= 20 ms of
  // untimed launches, so the first variant timed does not meet an idle clock.
  for (size_t i = 0; i < vs.size(); ++i)
    if (res[i].status.ok()) res[i].status = calls[i].launch(bufs[0].ops(p, in_place), nullptr);
  cudaDeviceSynchronize();
  const auto ms_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  size_t first = 0;
  while (first < vs.size() && !res[first].status.ok()) ++first;
  for (const auto t0 = std::chrono::steady_clock::now(); first < vs.size() && res[first].status.ok() && ms_since(t0) < 20;) {
    for (int w = 0; w < 4 && res[first].status.ok(); ++w) {
      BufferSet& b = bufs[size_t(set_idx++ % sets)];
      res[first].status = calls[first].launch(b.ops(p, in_place), nullptr);
    }
    cudaDeviceSynchronize();
  }
  for (int round = 0; round < rounds; ++round) {
    for (size_t j = 0; j < vs.size(); ++j) {
      const size_t i = (j + size_t(round)) % vs.size();  // each round starts one variant later
      if (!res[i].status.ok()) continue;
      const Variant& v = *vs[i];
      if (opt.idle_ms > 0) res[i].status = detail::cuda_status(idle_before_block(opt), v.name.c_str());
      const int warm = round == 0 ? opt.warmup : 2;
      const auto t0 = std::chrono::steady_clock::now();
      for (int w = 0; w < warm && res[i].status.ok(); ++w) {
        BufferSet& b = bufs[size_t(set_idx++ % sets)];
        res[i].status = calls[i].launch(b.ops(p, in_place), nullptr);
      }
      if (round == 0 && warm > 0 && res[i].status.ok()) {
        cudaDeviceSynchronize();
        const double ms_per_launch = ms_since(t0) / warm;  // an upper bound: the host's gaps are in it
        if (opt.max_ms_per_variant > 0) {  // a slow variant: fewer launches
          const double fit = opt.max_ms_per_variant / (ms_per_launch * rounds);
          reps_of[i] = std::max(std::min(5, per_round), std::min(per_round, int(fit)));
        }
        // A launch shorter than sample_us is timed in a group: events resolve ~0.5 us, so one
        // 3 us launch alone would be measured to +-15%. The group stays under kMaxHeldLaunches.
        res[i].launches_per_sample = launches_per_sample(ms_per_launch, opt, reps_of[i]);
      }
      if (!res[i].status.ok()) continue;
      const TimedBlock blk = time_block(
          [&] {
            BufferSet& b = bufs[size_t(set_idx++ % sets)];
            return (res[i].status = calls[i].launch(b.ops(p, in_place), nullptr)).ok();
          },
          reps_of[i], res[i].launches_per_sample);
      if (blk.held_out) res[i].held_out = true;
      if (!res[i].status.ok()) continue;
      res[i].status = detail::cuda_status(blk.sync, v.name.c_str());
      samples[i].insert(samples[i].end(), blk.ms.begin(), blk.ms.end());
    }
  }
  free_all();

  for (size_t i = 0; i < vs.size(); ++i) {
    BenchResult& r = res[i];
    auto& t = samples[i];
    if (!r.status.ok() || t.empty()) continue;
    r.samples = int(t.size());
    r.ms_median = median_of(t);
    r.ms_min = *std::min_element(t.begin(), t.end());
    r.ms_max = *std::max_element(t.begin(), t.end());
    double sum = 0, sq = 0;
    for (float x : t) sum += x;
    const double mean = sum / double(t.size());
    for (float x : t) sq += (x - mean) * (x - mean);
    r.ms_stdev = t.size() > 1 ? std::sqrt(sq / double(t.size() - 1)) : 0.0;
    r.tflops = p.flops() / (r.ms_median * 1e-3) / 1e12;
    r.gbps = p.bytes() / (r.ms_median * 1e-3) / 1e9;
  }
  // Best cuBLAS: of the peers with the kernel's types timed in this run (cublasGemmEx and
  // cuBLASLt's timed best), the faster one, named in the result.
  for (size_t i = 0; i < vs.size(); ++i) {
    if (res[i].ms_median <= 0) continue;
    for (size_t j = 0; j < vs.size(); ++j) {
      const Variant& c = *vs[j];
      if (!c.is_peer() || c.a_type != vs[i]->a_type || c.acc_type != vs[i]->acc_type || c.d_type != vs[i]->d_type ||
          res[j].ms_median <= 0)
        continue;
      const double pct = 100.0 * res[j].ms_median / res[i].ms_median;
      if (res[i].peer.empty() || pct < res[i].pct_of_peer) {
        res[i].peer = c.name;
        res[i].pct_of_peer = pct;
      }
    }
  }
  out->results = std::move(res);
  if (opt.measure_copy) out->copy_gbps = copy_bandwidth_gbps();
  if (opt.same_bytes_copy) out->same_bytes_copy_ms = same_bytes_copy_ms(set_bytes, sets, opt);
  return Status::success();
}

}  // namespace pipegemm
