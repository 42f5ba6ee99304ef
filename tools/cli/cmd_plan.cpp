// `pipegemm plan`: the pipelining arithmetic (shared memory per stage, occupancy, compute/load
// ratio, minimum stages) for a registered kernel or a described tile, on the live GPU or any GPU of
// the table. Needs no GPU.
#include <memory>

#include "cli.hpp"

namespace pipegemm::cli {

void add_plan(CLI::App& app, int* rc) {
  auto o = std::make_shared<plan::PlanRequest>();
  auto archs = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "plan", "plan a kernel's pipeline: shared memory per stage count, occupancy and its cliffs, the "
              "compute/load ratio and the pipeline it calls for, the minimum stages, and the variants ranked for "
              "a shape (no GPU needed)");
  cmd->add_option("-k,--kernel", o->kernel, "a registered variant (default seed_f16_128x128x32_s3, the CuTe multistage kernel)");
  cmd->add_option("--tile", o->tile, "plan a tile instead: BMxBNxBK");
  cmd->add_option("--stages", o->stages, "with --tile: ring slots (>= 2; default 2)");
  cmd->add_option("--threads", o->threads, "with --tile: threads per CTA (default 128)");
  cmd->add_option("--dtype", o->types.in, "with --tile: input type f16, bf16, i8, f32 (default f16)");
  cmd->add_option("--acc", o->types.acc, "with --tile: accumulation type f16, f32, i32 (default f32; i32 for i8)");
  cmd->add_option("--family", o->family, "with --tile: pipeline kind: cp.async, mbarrier, ldg, or a registered family");
  cmd->add_option("--mma", o->mma, "with --tile: mma.sync, wgmma, ffma (default from dtype and family)");
  cmd->add_option("--arch", o->arch, "sm_80, sm_86, sm_89, sm_90 or a GPU key (--archs); default: the live GPU, else h200");
  cmd->add_option("--regs", o->regs, "registers per thread (default: the compiled kernel's, when known)");
  cmd->add_option("-s,--shape", o->shape, "problem MxNxK: waves, and the registered variants ranked");
  cmd->add_option("--t-copy", o->t_copy, "cycles to copy one k_tile (default: estimated)");
  cmd->add_option("--t-compute", o->t_compute, "cycles to compute one k_tile (default: estimated)");
  cmd->add_option("--latency", o->latency, "DRAM latency in cycles for the T_copy estimate");
  cmd->add_flag("--archs", *archs, "print the GPU table and exit");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([rc, o, archs, json] {
    if (*archs) {
      emit(plan::arch_table_document(), *json);
      *rc = kOk;
      return;
    }
    plan::PlanReport r;
    Status s = plan::make_report(*o, &r);
    if (s.ok()) emit(document(r), *json);
    *rc = fail(s);
  });
}

}  // namespace pipegemm::cli
