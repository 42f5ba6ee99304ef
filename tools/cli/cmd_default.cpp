// `pipegemm` with no subcommand: the CuTe multistage example on a GPU -- verify and bench the CuTe
// multistage kernel (the seed_* variants: fp16 inputs, fp16 and fp32 accumulation) on
// 81920x256x256 beside both cuBLAS peers -- and, without a GPU, the parts that need none.
#include <iostream>

#include "cli.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm::cli {

int cute_multistage_example(bool json) {
  const DeviceInfo& dev = device_info();
  const std::vector<std::string> kernels = {"seed_f16_f16acc_128x128x32_s3", "seed_f16_128x128x32_s3"};
  if (!dev.present || dev.sm < 80) {
    std::cout << "pipegemm: no usable GPU ("
              << (dev.present ? dev.name + " is sm_" + std::to_string(dev.sm) + ", needs sm_80+" : dev.why_absent)
              << ").\nThe CuTe multistage example (verify + bench on 81920x256x256) needs one; "
                 "running what needs none: the variant list, the kernel's plan and the SASS proof.\n\n";
    int rc = kOk;
    emit(document(list_registry()), json);
    if (!json) {  // and the kernel's plan on the H200 table (one JSON document with --json)
      std::cout << "\n";
      plan::PlanRequest pr;
      pr.kernel = "seed_f16_128x128x32_s3";
      pr.arch = "h200";
      plan::PlanReport r;
      Status s = plan::make_report(pr, &r);
      if (s.ok()) emit(document(r), false);
      rc = fail(s);
    }
    if (!json && rc == kOk) {  // and the SASS proof of overlap, which needs no GPU either
      std::cout << "\nSASS proof of load/compute overlap (pipegemm sass; details: pipegemm sass --kernel NAME):\n";
      CLI::App sass_app;
      int rs = kOk;
      add_sass(sass_app, &rs);
      const char* sargv[] = {"pipegemm", "sass", "--brief"};
      sass_app.parse(3, const_cast<char**>(sargv));
      if (rs == kFail) rc = kFail;  // a missing cuobjdump (2) is reported, not a failure of this mode
    }
    return rc;
  }
  std::cout << "pipegemm: the CuTe multistage example, D = A*B^T, 81920x256x256 fp16 TN, verified then timed "
               "beside cuBLAS\n\n";
  VerifyRequest v;
  v.problem.shape = "81920x256x256";
  v.selection.kernels = kernels;
  int rc = run_verify(v, json);
  std::cout << "\n";
  BenchRequest b;
  b.problem.shape = "81920x256x256";
  b.selection.kernels = kernels;
  int rb = run_bench(b, json);
  return rc != kOk ? rc : rb;
}

}  // namespace pipegemm::cli
