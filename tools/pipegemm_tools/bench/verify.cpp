#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {
namespace {

// The seeds of the four streams: A's is the seed itself (the fuzzer's shared stream relies on it).
constexpr uint64_t kSeedB = 0x9e3779b97f4a7c15ull, kSeedC = 0xc2b2ae3d27d4eb4full, kSeedBias = 0x165667b19e3779f9ull;

size_t bytes_of(int64_t elements, DType t) { return size_t(elements) * size_t(dtype_bytes(t)); }

Status alloc_copy(void** dev, const std::vector<uint8_t>& host, const char* what) {
  Status s = detail::cuda_status(cudaMalloc(dev, std::max<size_t>(host.size(), 1)), what);
  if (s.ok() && !host.empty()) s = detail::cuda_status(cudaMemcpy(*dev, host.data(), host.size(), cudaMemcpyHostToDevice), what);
  return s;
}

}  // namespace

int64_t bias_elements(const Problem& p) {
  return p.bias == Bias::per_row ? p.m : p.bias == Bias::per_col ? p.n : 0;
}

std::vector<uint8_t> random_c(const Problem& in, uint64_t seed, int64_t offset_elements) {
  const Problem p = in.normalized();
  if (!p.reads_c()) return {};
  const int64_t n = offset_elements + view_c(p).batch_span(p.batch);
  std::vector<uint8_t> c(bytes_of(n, *p.c_type));
  fill_random(*p.c_type, c.data(), n, seed ^ kSeedC);
  return c;
}

std::vector<uint8_t> random_bias(const Problem& in, uint64_t seed, int64_t offset_elements) {
  const Problem p = in.normalized();
  if (p.bias == Bias::none) return {};
  const int64_t n = offset_elements + bias_elements(p);
  std::vector<uint8_t> b(bytes_of(n, *p.bias_type));
  fill_random(*p.bias_type, b.data(), n, seed ^ kSeedBias);
  return b;
}

HostInputs make_random_inputs(const Problem& in, uint64_t seed, int64_t offset_elements) {
  const Problem p = in.normalized();
  HostInputs h;
  h.seed = seed;
  h.offset_elements = offset_elements;
  const int64_t na = offset_elements + view_a(p).batch_span(p.batch);
  const int64_t nb = offset_elements + view_b(p).batch_span(p.batch);
  h.A.resize(bytes_of(na, p.a_type));
  h.B.resize(bytes_of(nb, p.b_type));
  // Padding between rows is random too: a kernel that reads past a row gets garbage, not zeros.
  // Independent streams: B (and C, the bias) fill on a second thread (the fuzzer's inputs are 16384^2-sized).
  std::thread b_fill([&] {
    fill_random(p.b_type, h.B.data(), nb, seed ^ kSeedB);
    h.C = random_c(p, seed, offset_elements);
    h.bias = random_bias(p, seed, offset_elements);
  });
  fill_random(p.a_type, h.A.data(), na, seed);
  b_fill.join();
  return h;
}

uint8_t poison_byte(DType d) { return d == DType::i32 ? 0x80 : 0xFF; }

void initial_d(const Problem& in, const void* C_host, bool c_in_place, std::vector<uint8_t>* out) {
  const Problem p = in.normalized();
  const MatrixView d = view_d(p);
  const int e = dtype_bytes(p.d_type);
  out->assign(bytes_of(d.batch_span(p.batch), p.d_type), poison_byte(p.d_type));
  if (!c_in_place || !p.reads_c() || !C_host) return;
  const auto* c = static_cast<const uint8_t*>(C_host);
  const int64_t rows = d.layout == Layout::RowMajor ? d.rows : d.cols, cols = d.layout == Layout::RowMajor ? d.cols : d.rows;
  for (int64_t q = 0; q < p.batch; ++q)
    for (int64_t r = 0; r < rows; ++r) {
      const size_t at = size_t(q * d.stride + r * d.ld) * size_t(e);
      std::memcpy(out->data() + at, c + at, size_t(cols * e));
    }
}

Status VerifySession::create(const Problem& in, HostInputs inputs, std::unique_ptr<VerifySession>* out,
                             bool c_in_place) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  std::unique_ptr<VerifySession> v(new VerifySession());
  v->p_ = in.normalized();
  const Problem& p = v->p_;
  v->in_ = std::move(inputs);
  v->in_place_ = c_in_place && p.reads_c();
  const int64_t off = v->in_.offset_elements;
  if (off < 0) return Status::error(StatusCode::invalid_argument, "offset_elements must be >= 0");
  if (v->in_place_ && (p.ldc != p.ldd || *p.c_type != p.d_type || p.stride_c != p.stride_d))
    return Status::error(StatusCode::invalid_argument,
                         "C = D in place needs C with D's leading dimension, type and batch stride (ldc=" +
                             std::to_string(p.ldc) + " ldd=" + std::to_string(p.ldd) + ")");
  v->a_bytes_ = v->in_.A.size();
  v->b_bytes_ = v->in_.B.size();
  if (v->a_bytes_ < bytes_of(off + view_a(p).batch_span(p.batch), p.a_type) ||
      v->b_bytes_ < bytes_of(off + view_b(p).batch_span(p.batch), p.b_type))
    return Status::error(StatusCode::invalid_argument, "host inputs are smaller than the problem's A and B");
  if (p.reads_c() && v->in_.C.size() < bytes_of(off + view_c(p).batch_span(p.batch), *p.c_type))
    return Status::error(StatusCode::invalid_argument, "beta != 0 reads C: the host inputs hold no (or too small a) C");
  if (p.bias != Bias::none && v->in_.bias.size() < bytes_of(off + bias_elements(p), *p.bias_type))
    return Status::error(StatusCode::invalid_argument, "the problem adds a bias: the host inputs hold no (or too small a) bias");
  v->d_off_bytes_ = bytes_of(off, p.d_type);
  v->d_bytes_ = v->d_off_bytes_ + bytes_of(view_d(p).batch_span(p.batch), p.d_type);
  if (v->in_place_) {  // D before every run: C's values, the offset and the padding poison
    initial_d(p, v->in_.C.data() + bytes_of(off, *p.c_type), true, &v->d_init_);
    v->d_init_.insert(v->d_init_.begin(), v->d_off_bytes_, poison_byte(p.d_type));
  }
  if ((s = alloc_copy(&v->dA_, v->in_.A, "A")).ok() && (s = alloc_copy(&v->dB_, v->in_.B, "B")).ok())
    s = detail::cuda_status(cudaMalloc(&v->dD_, v->d_bytes_), "cudaMalloc D");
  if (s.ok() && p.reads_c() && !v->in_place_) s = alloc_copy(&v->dC_, v->in_.C, "C");
  if (s.ok() && p.bias != Bias::none) s = alloc_copy(&v->dBias_, v->in_.bias, "bias");
  if (!s.ok()) return s;
  v->tol_ = tolerance_for(p);
  *out = std::move(v);
  return Status::success();
}

VerifySession::~VerifySession() {
  cudaFree(dA_);
  cudaFree(dB_);
  cudaFree(dD_);
  cudaFree(dC_);
  cudaFree(dBias_);
}

VerifyOutcome VerifySession::verify(const Variant& v) { return run(&v); }
VerifyOutcome VerifySession::verify_auto() { return run(nullptr); }

VerifyOutcome VerifySession::run(const Variant* v) {
  std::string label = v ? v->name : "auto";
  return verify_launch(label, [&](const Operands& x) {
    GemmCall call;
    Status s = v ? GemmCall::make(p_, *v, x, &call) : GemmCall::make(p_, "auto", x, &call);
    if (!v && s.ok()) label = "auto -> " + call.variant().name;
    return s.ok() ? call.launch(x, nullptr) : s;
  });
}

Status VerifySession::reload(HostInputs inputs) {
  if (inputs.A.size() != in_.A.size() || inputs.B.size() != in_.B.size() || inputs.C.size() != in_.C.size() ||
      inputs.bias.size() != in_.bias.size() || inputs.offset_elements != in_.offset_elements)
    return Status::error(StatusCode::invalid_argument, "reload: the new inputs must have the first inputs' sizes");
  in_ = std::move(inputs);
  ref_.clear();
  Status s = detail::cuda_status(cudaMemcpy(dA_, in_.A.data(), a_bytes_, cudaMemcpyHostToDevice), "reload A");
  if (s.ok()) s = detail::cuda_status(cudaMemcpy(dB_, in_.B.data(), b_bytes_, cudaMemcpyHostToDevice), "reload B");
  if (s.ok() && dC_) s = detail::cuda_status(cudaMemcpy(dC_, in_.C.data(), in_.C.size(), cudaMemcpyHostToDevice), "reload C");
  if (s.ok() && dBias_)
    s = detail::cuda_status(cudaMemcpy(dBias_, in_.bias.data(), in_.bias.size(), cudaMemcpyHostToDevice), "reload bias");
  if (s.ok() && in_place_) {
    const int64_t off = in_.offset_elements;
    initial_d(p_, in_.C.data() + bytes_of(off, *p_.c_type), true, &d_init_);
    d_init_.insert(d_init_.begin(), d_off_bytes_, poison_byte(p_.d_type));
  }
  return s;
}

VerifyOutcome VerifySession::verify_launch(const std::string& label, const std::function<Status(const Operands&)>& launch) {
  VerifyOutcome o;
  o.status = in_place_ ? detail::cuda_status(cudaMemcpy(dD_, d_init_.data(), d_bytes_, cudaMemcpyHostToDevice), "fill D with C")
                       : detail::cuda_status(cudaMemset(dD_, poison_byte(p_.d_type), d_bytes_), "poison D");
  if (!o.status.ok()) return o;
  // The matrices start offset_elements into their allocations.
  const int64_t off = in_.offset_elements;
  auto past = [off](void* base, DType t) { return base ? static_cast<uint8_t*>(base) + off * dtype_bytes(t) : nullptr; };
  Operands x;
  x.a = past(dA_, p_.a_type);
  x.b = past(dB_, p_.b_type);
  x.d = static_cast<uint8_t*>(dD_) + d_off_bytes_;
  if (p_.reads_c()) x.c = in_place_ ? x.d : past(dC_, *p_.c_type);
  if (p_.bias != Bias::none) x.bias = past(dBias_, *p_.bias_type);
  o.status = launch(x);
  o.variant = label;
  if (!o.status.ok()) return o;
  o.status = detail::cuda_status(cudaDeviceSynchronize(), o.variant.c_str());
  if (!o.status.ok()) return o;
  d_host_.resize(d_bytes_ - d_off_bytes_);
  o.status = detail::cuda_status(cudaMemcpy(d_host_.data(), x.d, d_host_.size(), cudaMemcpyDeviceToHost), "copy D");
  if (!o.status.ok()) return o;
  if (ref_.empty()) {
    auto host = [off](const std::vector<uint8_t>& buf, DType t) -> const void* {
      return buf.empty() ? nullptr : buf.data() + off * dtype_bytes(t);
    };
    HostOperands h;
    h.a = host(in_.A, p_.a_type);
    h.b = host(in_.B, p_.b_type);
    if (p_.reads_c()) h.c = host(in_.C, *p_.c_type);
    if (p_.bias != Bias::none) h.bias = host(in_.bias, *p_.bias_type);
    reference_gemm(p_, h, ref_);
  }
  o.result = compare_with_reference(p_, d_host_.data(), ref_, tol_);
  if (!o.result.pass) o.status = Status::error(StatusCode::verification_failed, o.result.summary());
  return o;
}

}  // namespace pipegemm
