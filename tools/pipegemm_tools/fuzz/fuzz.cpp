// `pipegemm fuzz`: the run. Device buffers are allocated once per input type for its largest
// problem and every problem works in their first bytes, so 10,000 problems cost launches and
// comparisons, not allocations.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <random>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm_tools/fuzz/detail.hpp"

namespace pipegemm::fuzz {
namespace {

using pipegemm::detail::cuda_status;
using Clock = std::chrono::steady_clock;

// Adds the seconds of its lifetime to *into: where a type's time goes, reported per type.
struct Timer {
  double* into;
  Clock::time_point t0 = Clock::now();
  ~Timer() { *into += std::chrono::duration<double>(Clock::now() - t0).count(); }
};

struct DeviceFree { void operator()(void* p) const { cudaFree(p); } };
struct HostFree { void operator()(void* p) const { cudaFreeHost(p); } };
using DevBuf = std::unique_ptr<uint8_t, DeviceFree>;
using PinnedBuf = std::unique_ptr<uint8_t, HostFree>;

Status dev_alloc(size_t bytes, DevBuf* out) {
  void* p = nullptr;
  Status s = cuda_status(cudaMalloc(&p, std::max<size_t>(bytes, 256)), "cudaMalloc");
  return out->reset(static_cast<uint8_t*>(p)), s;
}

int64_t round16(int64_t v) { return (v + 15) / 16 * 16; }

// Elements from A's (B's, C's, D's) first to one past its last, every product of the batch.
int64_t span_of(const MatrixView& v, const Problem& p) { return v.batch_span(p.batch); }

// Everything one input type's problems share.
struct TypeRun {
  const FuzzOptions& o;
  FuzzReport& rep;
  TypeSummary& sum;
  std::map<std::string, size_t>& slot;  // variant name -> rep.variants index
  DType in;
  int e = 1;                            // input element bytes
  DevBuf A, B, D, C, BiasBuf, Ar, Br, Dr;
  PinnedBuf host_d, host_ref;  // D and the cuBLAS reference, copied back
  HostInputs host;
  std::vector<double> cpu_ref;
  detail::RefView ref;
  // The run in progress: its C and bias (verify's streams for this problem), D before the
  // launch with C = D in place.
  std::vector<uint8_t> host_c, host_bias, d_init;

  TypeRun(const FuzzOptions& opt, FuzzReport& r, std::map<std::string, size_t>& slots, DType t)
      : o(opt), rep(r), sum(r.types.back()), slot(slots), in(t), e(dtype_bytes(t)) {}

  VariantCount& count(const std::string& name) { return rep.variants[slot.at(name)]; }
  // Where case c's matrices start in a buffer of elements of `bytes` bytes.
  uint8_t* at(const DevBuf& buf, const FuzzCase& c, int bytes) const { return buf.get() + c.offset * bytes; }

  void mismatch(const Problem& p, const FuzzCase& c, bool in_place, const std::string& name, bool via_auto,
                std::string what) {
    ++rep.mismatch_count, ++sum.mismatches, ++count(name).mismatches;
    if (via_auto) ++count("auto").mismatches;
    if (int(rep.mismatches.size()) < FuzzReport::kMaxListed)
      rep.mismatches.push_back({name, via_auto, std::move(what), reproducer(p, c.offset, name, o.seed, in_place)});
  }

  // The CPU reference of problem p (its C and bias: host_c, host_bias).
  void cpu_reference_of(const FuzzCase& c, const Problem& p) {
    const int64_t off = c.offset;
    HostOperands x;
    x.a = host.A.data() + off * e;
    x.b = host.B.data() + off * e;
    if (p.reads_c()) x.c = host_c.data() + off * dtype_bytes(*p.c_type);
    if (p.bias != Bias::none) x.bias = host_bias.data() + off * dtype_bytes(*p.bias_type);
    detail::host_reference(p, x, cpu_ref);
    ref = {cpu_ref.data(), p.n};
  }

  // The reference of a plain case c: `ref` views cpu_ref or host_ref.
  Status reference(const FuzzCase& c, const Problem& p) {
    Timer timer{&sum.reference_s};
    const int64_t off = c.offset;
    if (cpu_reference(c, o)) {
      ++sum.cpu_refs;
      cpu_reference_of(c, p);
      return Status::success();
    }
    ++sum.cublas_refs;
    const Variant* peer = detail::reference_peer(in);
    if (!peer) return Status::error(StatusCode::not_supported, std::string("no cuBLAS reference peer for ") + to_string(in));
    // Packed, zero-padded to multiples of 16 in M, N and K: the zeros add nothing to the sum, and
    // cuBLAS's IMMA refuses odd sizes ("not supported" on K = 1341).
    Problem q = p;
    q.m = round16(p.m), q.n = round16(p.n), q.k = round16(p.k);
    q.lda = q.ldb = q.k;
    q.ldd = q.n;
    q.acc_type = peer->acc_type, q.d_type = peer->d_type;
    Status s = cuda_status(cudaMemset(Ar.get(), 0, size_t(q.m * q.k * e)), "zero A");
    if (s.ok()) s = cuda_status(cudaMemset(Br.get(), 0, size_t(q.n * q.k * e)), "zero B");
    if (s.ok()) s = cuda_status(cudaMemcpy2D(Ar.get(), size_t(q.lda * e), A.get() + off * e, size_t(p.lda * e),
                                             size_t(p.k * e), size_t(p.m), cudaMemcpyDeviceToDevice), "pack A");
    if (s.ok()) s = cuda_status(cudaMemcpy2D(Br.get(), size_t(q.ldb * e), B.get() + off * e, size_t(p.ldb * e),
                                             size_t(p.k * e), size_t(p.n), cudaMemcpyDeviceToDevice), "pack B");
    GemmCall call;
    if (s.ok()) s = GemmCall::make(q, *peer, Ar.get(), Br.get(), Dr.get(), &call);
    if (s.ok()) s = call.launch(Ar.get(), Br.get(), Dr.get(), nullptr);
    if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), peer->name.c_str());
    const size_t bytes = size_t(q.m * q.ldd) * 4;
    if (s.ok()) s = cuda_status(cudaMemcpy(host_ref.get(), Dr.get(), bytes, cudaMemcpyDeviceToHost), "copy reference");
    if (!s.ok()) return Status::error(s.code, "reference " + peer->name + " on " + p.shape_string() + ": " + s.message);
    ref = {host_ref.get(), q.ldd, false, q.d_type};
    return Status::success();
  }

  // The input streams and every buffer, sized for the largest extents over the cases: the
  // inputs, D and C (4-byte elements at most), the bias, the cuBLAS reference's padded copies.
  Status setup(const std::vector<FuzzCase>& cases) {
    Timer timer{&sum.setup_s};
    int64_t len = 0, d_len = 0, c_len = 0, bias_len = 0, ar = 0, br = 0, dr = 0;
    for (const FuzzCase& c : cases) {
      const Problem p = problem_of(c, DType::f32, DType::f32).normalized();  // every extent (4-byte elements)
      len = std::max({len, c.offset + span_of(view_a(p), p), c.offset + span_of(view_b(p), p)});
      d_len = std::max(d_len, c.offset + span_of(view_d(p), p));
      if (c.c == CBinding::apart) c_len = std::max(c_len, c.offset + span_of(view_c(p), p));
      if (c.bias != Bias::none) bias_len = std::max(bias_len, c.offset + bias_elements(p));
      if (cpu_reference(c, o)) continue;
      ar = std::max(ar, round16(c.m) * round16(c.k)), br = std::max(br, round16(c.n) * round16(c.k));
      dr = std::max(dr, round16(c.m) * round16(c.n));
    }
    sum.largest_a = len;
    Problem stream;  // one row of `len` elements: the same draws a problem's own inputs start with
    stream.m = stream.n = 1, stream.k = len, stream.a_type = stream.b_type = in;
    host = make_random_inputs(stream, o.seed);
    void *pinned = nullptr, *pinned_ref = nullptr;
    Status s;
    if ((s = dev_alloc(size_t(len * e), &A)).ok() && (s = dev_alloc(size_t(len * e), &B)).ok() &&
        (s = dev_alloc(size_t(d_len) * 4, &D)).ok() && (s = dev_alloc(size_t(c_len) * 4, &C)).ok() &&
        (s = dev_alloc(size_t(bias_len) * 4, &BiasBuf)).ok() && (s = dev_alloc(size_t(ar * e), &Ar)).ok() &&
        (s = dev_alloc(size_t(br * e), &Br)).ok() && (s = dev_alloc(size_t(dr) * 4, &Dr)).ok() &&
        (s = cuda_status(cudaMallocHost(&pinned, size_t(d_len) * 4 + 256), "cudaMallocHost")).ok() &&
        (s = cuda_status(cudaMallocHost(&pinned_ref, size_t(dr) * 4 + 256), "cudaMallocHost")).ok()) {
      host_d.reset(static_cast<uint8_t*>(pinned)), host_ref.reset(static_cast<uint8_t*>(pinned_ref));
      if ((s = cuda_status(cudaMemcpy(A.get(), host.A.data(), host.A.size(), cudaMemcpyHostToDevice), "copy A")).ok())
        s = cuda_status(cudaMemcpy(B.get(), host.B.data(), host.B.size(), cudaMemcpyHostToDevice), "copy B");
    }
    return s;
  }

  // The operands of case c's problem p in the device buffers (C = D in place: D's pointer).
  Operands operands(const FuzzCase& c, const Problem& p, bool in_place) const {
    Operands x;
    x.a = at(A, c, e);
    x.b = at(B, c, e);
    x.d = at(D, c, dtype_bytes(p.d_type));
    if (p.reads_c()) x.c = in_place ? x.d : at(C, c, dtype_bytes(*p.c_type));
    if (p.bias != Bias::none) x.bias = at(BiasBuf, c, dtype_bytes(*p.bias_type));
    return x;
  }

  // Poison (or C in place), launch, copy back, compare. Non-ok only for a CUDA error that outlives the run.
  Status run(const GemmCall& call, const FuzzCase& c, const Problem& p, bool in_place, bool via_auto) {
    const std::string& name = call.variant().name;
    const int ed = dtype_bytes(p.d_type);
    const size_t bytes = size_t(c.offset + span_of(view_d(p), p)) * size_t(ed);
    const uint8_t poison = poison_byte(p.d_type);
    ++rep.runs, ++sum.runs, ++count(name).runs;
    if (via_auto) ++count(name).via_auto, ++count("auto").runs;
    const Operands x = operands(c, p, in_place);
    Status s;
    {
      Timer timer{&sum.run_s};
      s = in_place ? cuda_status(cudaMemcpy(D.get(), d_init.data(), bytes, cudaMemcpyHostToDevice), "fill D with C")
                   : cuda_status(cudaMemset(D.get(), poison, bytes), "poison D");
      if (s.ok()) s = call.launch(x, nullptr);
      if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), name.c_str());
      if (s.ok()) s = cuda_status(cudaMemcpy(host_d.get(), D.get(), bytes, cudaMemcpyDeviceToHost), "copy D");
    }
    if (!s.ok()) {
      mismatch(p, c, in_place, name, via_auto, s.message);
      cudaGetLastError();  // clears an error the context survives; a sticky one fails again here
      return cuda_status(cudaDeviceSynchronize(), "after a failed run (the CUDA context is lost)");
    }
    Timer timer{&sum.check_s};
    const auto r = detail::check_run(p, host_d.get(), c.offset, ref, tolerance_for(p), poison);
    if (!r.cmp.pass || (o.guard && r.guard_bad)) mismatch(p, c, in_place, name, via_auto, r.summary());
    return Status::success();
  }

  // C and the bias of problem p (verify's streams), in the device buffers; D's image in place.
  Status prepare(const FuzzCase& c, const Problem& p, bool in_place) {
    Timer timer{&sum.setup_s};
    host_c = random_c(p, o.seed, c.offset);
    host_bias = random_bias(p, o.seed, c.offset);
    Status s;
    if (p.reads_c() && !in_place)
      s = cuda_status(cudaMemcpy(C.get(), host_c.data(), host_c.size(), cudaMemcpyHostToDevice), "copy C");
    if (s.ok() && p.bias != Bias::none)
      s = cuda_status(cudaMemcpy(BiasBuf.get(), host_bias.data(), host_bias.size(), cudaMemcpyHostToDevice), "copy bias");
    if (in_place) {
      const int ed = dtype_bytes(p.d_type);
      initial_d(p, host_c.data() + c.offset * ed, true, &d_init);
      d_init.insert(d_init.begin(), size_t(c.offset * ed), poison_byte(p.d_type));
    }
    return s;
  }

  Status one_case(const FuzzCase& c, const std::vector<std::pair<DType, DType>>& combos) {
    const bool plain = c.plain();
    Status s;
    if (plain && !(s = reference(c, problem_of(c, combos[0].first, combos[0].second))).ok()) return s;
    sum.with_semantics += !plain;
    for (auto [acc, out] : combos) {
      const Problem p = problem_of(c, acc, out).normalized();
      const bool in_place = c.c == CBinding::in_place && p.reads_c();
      if (!(s = prepare(c, p, in_place)).ok()) return s;
      if (!plain) {  // C, the bias and an int32 D's whole alpha/beta make each type's reference its own
        Timer timer{&sum.reference_s};
        ++sum.cpu_refs;
        cpu_reference_of(c, p);
      }
      const Operands x = operands(c, p, in_place);
      GemmCall call;
      const Variant* chosen = nullptr;
      if ((s = GemmCall::make(p, "auto", x, &call)).ok()) {
        chosen = &call.variant();
        if (!(s = run(call, c, p, in_place, true)).ok()) return s;
      } else {
        ++rep.refusals, ++count("auto").refused;
        // k0 takes any plain problem; one with semantics may ask for what no variant computes.
        if (plain || s.code != StatusCode::not_supported)
          mismatch(p, c, in_place, "auto", false, "auto found no variant: " + s.message);
      }
      for (const Variant& v : variants()) {
        if (&v == chosen || v.a_type != in || v.acc_type != acc || v.d_type != out || (v.is_peer() && !o.peers))
          continue;
        if (!(s = GemmCall::make(p, v, x, &call)).ok()) {
          ++rep.refusals, ++count(v.name).refused;
          if (s.code != StatusCode::not_supported) mismatch(p, c, in_place, v.name, false, s.message);
        } else if (v.rung == 0 && o.k0_max_macs > 0 && c.macs() > o.k0_max_macs) {
          ++rep.skipped, ++count(v.name).skipped;
        } else if (!(s = run(call, c, p, in_place, false)).ok()) {
          return s;
        }
      }
    }
    return Status::success();
  }
};

}  // namespace

Status run_fuzz(const FuzzOptions& opt, FuzzReport* out, const ProgressFn& progress) {
  Status s = detail::check_options(opt);
  if (!s.ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present || dev.sm < 80)
    return Status::error(StatusCode::no_device, "pipegemm fuzz needs a CUDA GPU (sm_80 or newer): " +
                                                    (dev.present ? dev.name + " is sm_" + std::to_string(dev.sm) : dev.why_absent));
  const auto t0 = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  FuzzReport rep;
  rep.device = dev.name;
  rep.options = opt;
  if (!rep.options.seed) rep.options.seed = std::random_device{}() | uint64_t(std::random_device{}()) << 32;
  const FuzzOptions& o = rep.options;
  rep.rules = detail::stated_rules(o);
  std::map<std::string, size_t> slot{{"auto", 0}};
  rep.variants.push_back({"auto"});
  for (const Variant& v : variants()) slot[v.name] = rep.variants.size(), rep.variants.push_back({v.name});

  for (DType in : o.dtypes) {
    const double type_t0 = seconds();
    rep.types.push_back({in});
    TypeRun tr(o, rep, slot, in);
    const std::vector<FuzzCase> cases = generate_cases(in, o.seed, o.count, o.max_dim, o.plain_fraction);
    const auto combos = detail::type_combos(in);
    s = tr.setup(cases);
    for (size_t i = 0; s.ok() && i < cases.size(); ++i) {
      s = tr.one_case(cases[i], combos);
      ++tr.sum.problems, ++rep.problems;
      if (progress) progress({in, int(i + 1), int(cases.size()), tr.sum.runs, rep.mismatch_count, seconds()});
    }
    tr.sum.seconds = seconds() - type_t0;
    if (!s.ok()) {
      rep.error = s;
      break;
    }
  }
  rep.variants.erase(std::remove_if(rep.variants.begin(), rep.variants.end(),
                                    [](const VariantCount& v) { return !v.runs && !v.refused && !v.skipped && !v.mismatches; }),
                     rep.variants.end());
  rep.seconds = seconds();
  *out = std::move(rep);
  return Status::success();
}

}  // namespace pipegemm::fuzz
