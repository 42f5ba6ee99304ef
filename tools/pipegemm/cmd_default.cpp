// `pipegemm` with no subcommand: the seed experiment of 000 (section 11) on a GPU -- verify and
// bench the seed kernel (fp16 and fp32 accumulation) on 81920x256x256 beside both cuBLAS
// peers -- and, without a GPU, the parts that need none.
#include <iostream>

#include "cli.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm::cli {

int seed_experiment(bool json) {
  const DeviceInfo& dev = device_info();
  const std::vector<std::string> seed_kernels = {"k4_seed_f16acc", "k4_seed_f32acc"};
  if (!dev.present || dev.sm < 80) {
    std::cout << "pipegemm: no usable GPU ("
              << (dev.present ? dev.name + " is sm_" + std::to_string(dev.sm) + ", needs sm_80+" : dev.why_absent)
              << ").\nThe seed experiment (verify + bench on 81920x256x256) needs one; "
                 "running what needs none: the registry.\n\n";
    CLI::App app;
    int rc = kOk;
    add_list(app, &rc);
    const char* argv[] = {"pipegemm", "list", json ? "--json" : nullptr};
    app.parse(json ? 3 : 2, const_cast<char**>(argv));
    return rc;
  }
  std::cout << "pipegemm seed experiment (000 section 11): D = A*B^T, 81920x256x256 fp16 TN\n\n";
  VerifyOpts v;
  v.prob.shape = "81920x256x256";
  v.sel.kernels = seed_kernels;
  v.json = json;
  int rc = run_verify(v);
  std::cout << "\n";
  BenchOpts b;
  b.prob.shape = "81920x256x256";
  b.sel.kernels = seed_kernels;
  b.json = json;
  int rb = run_bench(b);
  return rc != kOk ? rc : rb;
}

}  // namespace pipegemm::cli
