// Tile legality: the kernels' static_asserts as planner rules, and a described tile (--tile) as
// a KernelDesc checked by them. The comment on each rule names the assert it mirrors.
#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::plan {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

std::string str(int x) { return std::to_string(x); }
std::string tile_name(const KernelDesc& k) { return str(k.bm) + "x" + str(k.bn) + "x" + str(k.bk); }

// One MMA instruction's (M, N, K) for the kernel's instruction and input type; FFMA is 1x1x1.
void mma_shape(const KernelDesc& k, int* m, int* n, int* kk) {
  *m = *n = *kk = 1;
  if (k.mma == MmaKind::mma_sync) { *m = 16; *n = 8; *kk = k.in == DType::i8 ? 32 : 16; }
  if (k.mma == MmaKind::wgmma) { *m = 64; *n = 8; *kk = 32 / dtype_bytes(k.in); }
}

// kernels/common/smem_tiles.cuh (k1..k4: G2S in 16-byte vectors, cp.async or LDG + STS).
Status vector_copy_rules(const KernelDesc& k) {
  const int eb = dtype_bytes(k.in), vec = 16 / eb;
  const std::string rule1 = " (a k_tile row is whole 16-byte vectors spread over whole threads)";
  if ((k.bk * eb) % 16)
    return bad("BK=" + str(k.bk) + " " + to_string(k.in) + " is " + str(k.bk * eb) +
               " bytes per row: not a whole number of 16-byte copy vectors" + rule1);
  if (k.threads % (k.bk / vec))
    return bad("BK=" + str(k.bk) + " " + to_string(k.in) + " is " + str(k.bk / vec) + " 16-byte vectors per row: " +
               str(k.threads) + " threads do not cover whole rows" + rule1);
  const int va = k.bm * k.bk / vec, vb = k.bn * k.bk / vec;
  if (va % k.threads || vb % k.threads)
    return bad("tile " + tile_name(k) + " " + to_string(k.in) + ": A's " + str(va) + " and B's " + str(vb) +
               " 16-byte vectors per k_tile do not divide over " + str(k.threads) +
               " threads (every thread copies the same number of vectors per k_tile)");
  if (k.bm % 8 || k.bn % 8)
    return bad("tile " + tile_name(k) + ": BM % 8 and BN % 8 must be 0 (whole 8-row swizzle atoms)");
  return {};
}

// kernels/shortk/kernel.cuh: a single buffer filled element by element (any alignment), every
// thread the same passes over each operand tile, and the warps a grid of 32-row blocks, each of
// whole pairs of n8 blocks (one ldmatrix.x4 of B feeds two MMAs).
Status element_fill_rules(const KernelDesc& k) {
  if (k.threads % k.bk || k.threads % k.bm || k.threads % k.bn)
    return bad("tile " + tile_name(k) + ": " + str(k.threads) + " threads do not make whole passes over each operand tile " +
               "(threads % BK, threads % BM and threads % BN must be 0)");
  const int warps = k.threads / 32, warps_m = k.bm / 32;
  if (k.bm % 32 || warps_m == 0 || warps % warps_m || k.bn % (warps / warps_m) || (k.bn / (warps / warps_m)) % 16)
    return bad("tile " + tile_name(k) + ": " + str(warps) + " warps must tile it in blocks of 32 rows and whole pairs " +
               "of n8 blocks (BM % 32 == 0, warps % (BM / 32) == 0, BN / (warps / (BM / 32)) % 16 == 0)");
  return {};
}

// sm90/gemm.cuh: the TMA box and the mbarrier transaction count bound any
// TMA ring; the rest is the shape of k5 itself (two consumer warpgroups of one m64 block -- m64n256,
// m64n128 or m64n64 per k_block -- or, the wide tile and the 128-row ping-pong, of two m64 blocks).
Status tma_rules(const KernelDesc& k) {
  const int eb = dtype_bytes(k.in);
  if (k.bn / 2 > 256 || k.bm > 256)
    return bad("tile " + tile_name(k) + ": a TMA box has at most 256 rows (BM <= 256, BN/2 <= 256)");
  if (ring_bytes_per_stage(k) >= (1 << 20))
    return bad("a stage of " + str(ring_bytes_per_stage(k)) + " bytes is past the mbarrier tx-count range (< 1 MB)");
  if (k.family != "k5_ws_tma_wgmma") return {};
  const std::string f = "k5_ws_tma_wgmma: ";
  // Ping-pong: a consumer warpgroup owns a whole tile of one m64 block, or of two (m64n192 or m64n128,
  // 16-bit inputs: 192 or 128 accumulators).
  const bool pingpong_two_blocks = k.pingpong && k.bm == 128;
  if (k.pingpong && k.bm != 64 && !(pingpong_two_blocks && (k.bn == 192 || k.bn == 128) && k.in != DType::i8))
    return bad(f + "one consumer warpgroup per tile (ping-pong): BM must be 64, or 128 with BN = 192 or 128 and "
                   "16-bit inputs (two m64 blocks), not " + tile_name(k));
  if (!k.pingpong && k.bm != 128 && k.bm != 256)
    return bad(f + "two consumer warpgroups of one or two m64 blocks each: BM must be 128 or 256, not " + str(k.bm));
  if (k.bm == 256 && k.bn != 192)
    return bad(f + "the wide tile (two m64 blocks a consumer, 2 x 96 accumulators): BN must be 192, not " + str(k.bn));
  if (k.bm != 256 && !pingpong_two_blocks && k.bn != 256 && !((k.bn == 128 || k.bn == 64) && k.in != DType::i8))
    return bad(f + "one wgmma m64n256 (16-bit inputs: or m64n128, m64n64) covers the CTA tile's N: BN must be 256" +
               (k.in == DType::i8 ? "" : ", 128 or 64") + ", not " + str(k.bn));
  if (k.bn == 64 && !k.pingpong)  // kernel.cuh: the 64-wide tile is the plain ping-pong form's only
    return bad(f + "the 64-wide tile is the ping-pong form's (BM = 64, one 64-column chunk a tile): a cooperative " +
               str(k.bm) + "x64 tile has no short-K or deferred-store form");
  if (k.bk * eb != 128)
    return bad(f + "a K-major row of a slot is exactly one 128-byte swizzle span: BK must be " + str(128 / eb) +
               " for " + to_string(k.in) + ", not " + str(k.bk));
  if ((k.bm * k.bk * eb) % 1024 || (k.bn / 2 * k.bk * eb) % 1024)  // B's half: a 2-CTA cluster's multicast share
    return bad(f + "every wgmma operand tile starts on a 1024-byte swizzle boundary (stage tiles of whole KB)");
  const int threads = 128 * (1 + 2);
  if (k.threads != threads)
    return bad(f + "one producer and 2 consumer warpgroups: " + str(threads) + " threads per CTA, not " +
               str(k.threads));
  return {};
}

}  // namespace

Status check_tile(const KernelDesc& k, const ArchSpec& a) {
  const std::string on = a.name + " is sm_" + str(a.sm);
  if (k.mma == MmaKind::wgmma && a.sm < 90) return bad("wgmma needs sm_90a; " + on);
  if (k.pipeline == PipelineKind::mbarrier_ring && a.sm < 80) return bad("the mbarrier ring needs sm_80+; " + on);
  const bool ring = k.pipeline == PipelineKind::cp_async_ring || k.pipeline == PipelineKind::ldg_register ||
                    k.pipeline == PipelineKind::mbarrier_ring;
  if (ring && k.stages < 2)
    return bad("stages = " + str(k.stages) + ": a pipeline needs at least 2 stages (1 = a single buffer, nothing overlaps)");
  if (k.pipeline == PipelineKind::cp_async_ring && k.stages > 8)  // k4_multistage/kernel.cuh
    return bad("stages = " + str(k.stages) + ": a cp.async ring holds 2..8 slots (cp_async_wait<STAGES-2> waits by group count)");
  if (k.threads <= 0 || k.threads % 32 || k.threads > a.max_threads_per_block)
    return bad("threads = " + str(k.threads) + ": a CTA is whole warps, a multiple of 32 in 32.." + str(a.max_threads_per_block));
  int mm, mn, mk;  // the tiled MMA: whole instructions ("a k_tile is whole k_blocks")
  mma_shape(k, &mm, &mn, &mk);
  // Thin kernels (swap_ab): BM, the thin side, rides the MMA's M side padded to whole m16 tiles.
  if ((!k.swap_ab && k.bm % mm) || k.bn % mn || k.bk % mk)
    return bad("tile " + tile_name(k) + " does not divide into " + to_string(k.mma) + " instructions (" + str(mm) + "x" +
               str(mn) + "x" + str(mk) + " for " + to_string(k.in) + (k.swap_ab ? ", BM padded" : "") +
               "): BM % " + str(mm) + ", BN % " + str(mn) + ", BK % " + str(mk) + " must be 0");
  Status s;
  if (k.pipeline == PipelineKind::single && k.load_bytes < 16)
    s = element_fill_rules(k);
  else if (k.pipeline == PipelineKind::single || k.pipeline == PipelineKind::ldg_register ||
           k.pipeline == PipelineKind::cp_async_ring)
    s = vector_copy_rules(k);
  else if (k.pipeline == PipelineKind::mbarrier_ring)
    s = tma_rules(k);
  if (!s.ok()) return s;
  const int smem = smem_bytes(k, k.stages);  // "the ring must fit the per-CTA smem opt-in"
  if (smem > a.smem_per_block_optin)
    return bad(str(k.stages) + " stages of " + tile_name(k) + " " + to_string(k.in) + " need " + report::kib(smem) +
               " of shared memory per CTA; " + a.name + " (sm_" + str(a.sm) + ") allows at most " +
               report::kib(a.smem_per_block_optin) + " (with opt-in)");
  return {};
}

Status describe_tile(const PlanRequest& r, const ArchSpec& a, KernelDesc* out) {
  KernelDesc k;
  k.label = "custom";
  int64_t m = 0, n = 0, kk = 0;
  if (!parse_shape(r.tile, &m, &n, &kk) || m <= 0 || n <= 0 || kk <= 0 || m > 4096 || n > 4096 || kk > 4096)
    return bad("bad --tile '" + r.tile + "' (expected BMxBNxBK, positive, e.g. 128x128x32)");
  k.bm = int(m); k.bn = int(n); k.bk = int(kk);
  Types t;
  Status s = parse_types(r.types, &t);
  if (!s.ok()) return s;
  k.in = t.in;
  k.acc = t.acc;
  // Pipeline kind and instruction: from --family (a registered family lends its kind) or words.
  k.pipeline = PipelineKind::cp_async_ring;
  k.mma = k.in == DType::f32 ? MmaKind::ffma : MmaKind::mma_sync;
  bool warp_specialized = false;
  if (!r.family.empty()) {
    const std::string& f = r.family;
    const Variant* like = nullptr;
    for (const Variant& v : variants())
      if (v.family == f && !v.is_peer()) { like = &v; break; }
    if (like) {
      k.family = f;
      const PipelineKind p = like->mech.pipeline;
      k.pipeline = p == PipelineKind::single || p == PipelineKind::none ? PipelineKind::cp_async_ring : p;
      if (k.in != DType::f32) k.mma = like->mech.mma;
      warp_specialized = like->mech.warp_specialized;
      k.max_cluster = like->mech.max_cluster;  // the family's launcher clusters the same way
    } else if (f == "cp.async" || f == "cp_async") {
      k.pipeline = PipelineKind::cp_async_ring;
    } else if (f == "mbarrier" || f == "tma") {
      k.pipeline = PipelineKind::mbarrier_ring;
      if (a.sm >= 90 && k.in != DType::f32) k.mma = MmaKind::wgmma;
    } else if (f == "ldg") {
      k.pipeline = PipelineKind::ldg_register;
    } else {
      std::string fams;
      for (const Variant& v : variants())
        if (!v.is_peer() && fams.find(v.family) == std::string::npos) fams += ", " + v.family;
      return bad("unknown --family '" + f + "' (cp.async, mbarrier, ldg" + fams + ")");
    }
  }
  if (r.mma == "mma.sync" || r.mma == "mma") k.mma = MmaKind::mma_sync;
  else if (r.mma == "wgmma") k.mma = MmaKind::wgmma;
  else if (r.mma == "ffma") k.mma = MmaKind::ffma;
  else if (!r.mma.empty()) return bad("unknown --mma '" + r.mma + "' (mma.sync, wgmma, ffma)");
  k.stages = r.stages >= 0 ? r.stages : 2;
  // A warp-specialized family's CTA is its warpgroups: one producer + two consumers.
  k.threads = r.threads >= 0 ? r.threads : warp_specialized ? 128 * (1 + 2) : 128;
  if (r.regs > 0) {
    k.regs_per_thread = r.regs;
    k.regs_source = "--regs";
  } else {
    k.regs_source = "unknown (pass --regs: blocks/SM are an upper bound)";
  }
  s = check_tile(k, a);
  if (!s.ok()) return s;
  *out = k;
  return {};
}

}  // namespace pipegemm::plan
