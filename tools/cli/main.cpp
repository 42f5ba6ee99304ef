// pipegemm: software-pipelined GEMM on NVIDIA tensor cores, and the tools that show why.
#include <iostream>

#include "cli.hpp"
#include "pipegemm/device.hpp"

int main(int argc, char** argv) {
  using namespace pipegemm::cli;
  CLI::App app{"pipegemm: software-pipelined GEMM on NVIDIA tensor cores (D = A(M,K) * B(N,K)^T) and the tools "
               "that measure it.\n"
               "With no subcommand: on a GPU, the CuTe multistage example -- the CuTe multistage kernel (fp16 "
               "inputs, fp16 and fp32 accumulation) verified and timed on 81920x256x256 beside cuBLAS; without one, what "
               "needs no GPU: the variant list, that kernel's plan and the SASS overlap proof.", "pipegemm"};
  app.require_subcommand(0, 1);
  int rc = kOk;
  bool json = false;
  app.add_flag("--json", json, "machine-readable output (with no subcommand)");
  app.set_version_flag("--version", "pipegemm " + pipegemm::pipegemm_version());
  // $PIPEGEMM_DEVICE picks the GPU once the flags are parsed, before any subcommand runs.
  struct DeviceRefused { pipegemm::Status s; };
  app.parse_complete_callback([] {
    if (pipegemm::Status s = pipegemm::use_device_from_env(); !s.ok()) throw DeviceRefused{s};
  });
  add_list(app, &rc);
  add_verify(app, &rc);
  add_bench(app, &rc);
  add_sass(app, &rc);
  add_plan(app, &rc);
  add_fuzz(app, &rc);
  add_tune(app, &rc);
  add_plot(app, &rc);
  add_diagnose(app, &rc);
  add_trace(app, &rc);
  set_raw_args(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const DeviceRefused& e) {
    return fail(e.s);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and the usage hint
    return kUsage;
  }
  if (app.get_subcommands().empty()) return cute_multistage_example(json);
  return rc;
}
