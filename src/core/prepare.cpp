// prepare() (pipegemm.hpp): auto's candidates timed ahead of time, the fastest kept per tune
// bucket; save_choices / load_choices live with the tables (dispatch.cpp).
//
// The timing is bench's protocol in small: operands of random values (never zeros), copies
// rotated past twice the L2 for a problem the L2 could hold, each candidate launched once first
// (and its own ahead-of-time measuring run: cuBLASLt's candidates), then `rounds` rounds of `reps`
// launches between two events, the median of the rounds' means kept. The choice is tune's rule
// (pick_best): ours only where it beats the fastest cuBLAS by 2%.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "core/dispatch.hpp"
#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/fill.hpp"
#include "pipegemm/detail/timed_candidates.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"

namespace pipegemm {
namespace {

using detail::cuda_status;

// The operands of one problem, `sets` times, each 256-byte aligned (cudaMalloc's alignment, the
// alignment class the shipped tables were tuned at).
struct ProblemBuffers {
  std::vector<void*> mem;
  std::vector<Operands> sets;
  ~ProblemBuffers() {
    for (void* p : mem) cudaFree(p);
  }
  Status make(const Problem& p, bool c_in_place, double l2_bytes, cudaStream_t s) {
    const size_t a = view_a(p).batch_bytes(p.batch, p.a_type), b = view_b(p).batch_bytes(p.batch, p.b_type);
    const size_t d = view_d(p).batch_bytes(p.batch, p.d_type);
    const size_t c = p.reads_c() && !c_in_place ? view_c(p).batch_bytes(p.batch, *p.c_type) : 0;
    const size_t bias = p.bias == Bias::none ? 0 : size_t(p.bias == Bias::per_row ? p.m : p.n) * dtype_bytes(*p.bias_type);
    const double set_bytes = double(a + b + c + d + bias);
    const int n = std::clamp(int(std::ceil(2 * l2_bytes / set_bytes)), 1, 64);
    uint64_t seed = 0x9e3779b9;
    auto alloc = [&](size_t bytes, DType t, void** out) {
      if (!bytes) return Status::success();
      Status st = cuda_status(cudaMalloc(out, bytes), "cudaMalloc(prepare operands)");
      if (!st.ok()) return st;
      mem.push_back(*out);
      return detail::fill_uniform(*out, bytes / size_t(dtype_bytes(t)), t, ++seed, s);
    };
    for (int i = 0; i < n; ++i) {
      Operands o;
      void *pa = nullptr, *pb = nullptr, *pc = nullptr, *pd = nullptr, *pbias = nullptr;
      Status st = alloc(a, p.a_type, &pa);
      if (st.ok()) st = alloc(b, p.b_type, &pb);
      if (st.ok()) st = alloc(d, p.d_type, &pd);
      if (st.ok()) st = alloc(c, p.c_type.value_or(p.d_type), &pc);
      if (st.ok()) st = alloc(bias, p.bias_type.value_or(p.d_type), &pbias);
      if (!st.ok()) {
        if (i > 0) break;  // fewer copies: a large problem, timed on what fits
        return st;
      }
      o.a = pa, o.b = pb, o.d = pd, o.bias = pbias;
      o.c = p.reads_c() ? (c_in_place ? pd : pc) : nullptr;
      sets.push_back(o);
    }
    return cuda_status(cudaStreamSynchronize(s), "prepare: filling operands");
  }
};

// The median over rounds of one candidate's mean time per launch (us), sets taken in turn; 0 when
// it failed to run.
double time_call(const GemmCall& call, const ProblemBuffers& bufs, const PrepareOptions& opt, cudaStream_t s) {
  size_t next = 0;
  auto launch = [&] { return call.launch(bufs.sets[next++ % bufs.sets.size()], s).ok(); };
  if (!launch() || cudaStreamSynchronize(s) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> means;
  bool ok = true;
  for (int r = 0; r < std::max(1, opt.rounds) && ok; ++r) {
    cudaEventRecord(e0, s);
    const int reps = std::max(1, opt.reps);
    for (int i = 0; i < reps && ok; ++i) ok = launch();
    cudaEventRecord(e1, s);
    ok = ok && cudaEventSynchronize(e1) == cudaSuccess;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    means.push_back(1e3f * ms / float(reps));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaGetLastError();
  if (!ok || means.empty()) return 0;
  std::sort(means.begin(), means.end());
  return means[means.size() / 2];
}

std::string utc_now() {
  char b[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

}  // namespace

Status prepare(const std::vector<Problem>& problems, const PrepareOptions& opt, std::vector<PrepareResult>* results) {
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(opt.stream);
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &capturing) == cudaSuccess && capturing != cudaStreamCaptureStatusNone)
    return Status::error(StatusCode::invalid_argument, "prepare() times candidates: call it before the capture, not inside");
  cudaGetLastError();
  if (results) results->clear();
  Status first_error;
  for (const Problem& in : problems) {
    PrepareResult r;
    r.shape = in.shape_string();
    auto finish = [&](Status st) {
      r.status = st;
      if (!st.ok() && first_error.ok()) first_error = st;
      if (results) results->push_back(r);
    };
    if (in.m == 0 || in.n == 0 || in.k == 0 || in.batch == 0) {
      finish(Status::success());  // nothing to choose: gemm() handles zero sizes itself
      continue;
    }
    if (Status st = validate_problem(in); !st.ok()) {
      finish(st);
      continue;
    }
    const Problem p = in.normalized();
    ProblemBuffers bufs;
    if (Status st = bufs.make(p, opt.c_in_place, double(dev.l2_bytes), s); !st.ok()) {
      finish(st);
      continue;
    }
    // The key auto looks up: the problem as the variants see it (D row-major), these pointers.
    bool swapped = false;
    const Problem called = row_major_d(p, &swapped);
    Operands y = bufs.sets[0];
    if (swapped) std::swap(y.a, y.b);
    const TuneKey key = tune_key(called, dev.name, y.a, y.b, y.d);
    r.bucket = key.bucket;
    if (!opt.force)
      if (const TuneEntry* e = prepared_or_loaded(key)) {
        r.cached = true;
        r.best = e->best;
        r.best_us = e->best_us;
        finish(Status::success());
        continue;
      }
    TuneEntry e;
    e.key = key;
    e.shape = p.shape_string();
    for (const Variant* v : detail::timed_candidates(called, y, dev, opt.prune)) {
      GemmCall call;
      if (!GemmCall::make(p, *v, bufs.sets[0], &call).ok()) continue;
      std::string state;
      if (!call.prepare(bufs.sets[0], opt.stream, &state).ok()) continue;
      const double us = time_call(call, bufs, opt, s);
      if (us <= 0) continue;
      e.timed.emplace_back(v->name, us);
      if (!state.empty() && v->family == "cublaslt") e.lt_algo = state;  // kept only if it wins (below)
    }
    if (e.timed.empty()) {
      finish(Status::error(StatusCode::not_supported, r.shape + ": no candidate ran"));
      continue;
    }
    std::vector<std::pair<std::string, double>> order = e.timed;
    std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second < b.second; });
    e.timed = order;
    e.best = pick_best(e.timed);
    e.best_us = e.timed_us(e.best);
    const Variant* best = find_variant(e.best);
    if (!best || best->family != "cublaslt") e.lt_algo.clear();
    e.date = utc_now();
    e.pipegemm = library_version();
    r.best = e.best;
    r.best_us = e.best_us;
    r.timed = int(e.timed.size());
    put_prepared(std::move(e));
    finish(Status::success());
  }
  return first_error;
}

}  // namespace pipegemm
