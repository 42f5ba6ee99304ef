// Timing: CUDA events around each launch (or each group of launches, for launches under
// sample_us), warm-up first, median of many, buffer sets rotated over >= 2x L2 so no launch
// reads operands another left in cache, variants interleaved in rounds so clock drift hits all
// of them alike, each timed block queued behind a stream hold so it runs without host gaps
// (the blocks and copies: timing.hpp; median_of: bench.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm/detail/fill.hpp"
#include "pipegemm_tools/bench/timing.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {
namespace {

using bench_detail::idle_before_block;
using bench_detail::launches_per_sample;
using bench_detail::time_block;
using bench_detail::TimedBlock;

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

// The buffers depend on the A, B, D types only; each variant runs with its own accumulation.
Problem with_acc(Problem p, const Variant& v) {
  p.acc_type = v.acc_type;
  return p;
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
  const size_t a_bytes = view_a(p).batch_bytes(p.batch, p.a_type);
  const size_t b_bytes = view_b(p).batch_bytes(p.batch, p.b_type);
  const size_t d_bytes = view_d(p).batch_bytes(p.batch, p.d_type);
  const size_t c_bytes = p.reads_c() && !in_place ? view_c(p).batch_bytes(p.batch, *p.c_type) : 0;
  const int64_t bias_n = bias_elements(p);
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
        !(s = detail::fill_uniform(b.A, a_bytes / size_t(dtype_bytes(p.a_type)), p.a_type, 0x5eedA)).ok() ||
        !(s = detail::fill_uniform(b.B, b_bytes / size_t(dtype_bytes(p.b_type)), p.b_type, 0x5eedB)).ok() ||
        (c_bytes && !(s = detail::fill_uniform(b.C, c_bytes / size_t(dtype_bytes(*p.c_type)), *p.c_type, 0x5eedC)).ok()) ||
        (in_place && !(s = detail::fill_uniform(b.D, d_bytes / size_t(dtype_bytes(p.d_type)), p.d_type, 0x5eedC)).ok()) ||
        (bias_bytes && !(s = detail::fill_uniform(b.bias, size_t(bias_n), *p.bias_type, 0x5eedD)).ok())) {
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
  // What each variant measures ahead of time first (cuBLASLt times its heuristic's candidates and
  // cublasGemmEx, so its row is the best cuBLAS can do: GemmCall::prepare), then one untimed launch
  // of each, then a preheat: >= 20 ms of untimed launches, so the first variant timed does not meet
  // an idle clock.
  for (size_t i = 0; i < vs.size(); ++i)
    if (res[i].status.ok()) res[i].status = calls[i].prepare(bufs[0].ops(p, in_place), nullptr, &res[i].prepared);
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
  if (opt.measure_copy) out->copy_gbps = bench_detail::copy_bandwidth_gbps();
  if (opt.same_bytes_copy) out->same_bytes_copy_ms = bench_detail::same_bytes_copy_ms(set_bytes, sets, opt);
  return Status::success();
}

}  // namespace pipegemm
