// The cuobjdump toolchain shared by `pipegemm plan` and `pipegemm sass`: the symbol glob, the
// -res-usage parser, running a program without a shell, and finding cuobjdump. No cuobjdump is
// needed: where one must answer, a small shell script stands in for it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "pipegemm_tools/planner.hpp"
#include "pipegemm_tools/toolchain.hpp"

using namespace pipegemm;
namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh directory under /tmp, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/pipegemm_toolchain_testXXXXXX";
    if (mkdtemp(name)) path = name;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text, bool exec) const {
    const std::string p = (path / name).string();
    std::ofstream(p) << text;
    chmod(p.c_str(), exec ? 0755 : 0644);
    return p;
  }
};

// Sets an environment variable for one scope, then puts the old value back.
struct ScopedEnv {
  std::string name;
  bool had = false;
  std::string old;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* o = std::getenv(n)) had = true, old = o;
    if (value) setenv(n, value, 1);
    else unsetenv(n);
  }
  ~ScopedEnv() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

// Stands in for cuobjdump: a version line, and a -res-usage report of two archs.
const char* kFakeCuobjdump = R"sh(#!/bin/sh
case "$1" in
  --version) echo "cuobjdump: NVIDIA (R) CUDA cuobjdump (a stand-in)"; echo "Cuda compilation tools, release 13.5, V13.5.37" ;;
  -res-usage)
    cat <<'EOF'

Fatbin elf code:
================
arch = sm_80
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:0
 Function _Z6kernelILi1EEvv:
  REG:64 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:360
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]

Resource usage:
 Function _Z6kernelILi1EEvv:
  REG:80 STACK:8 SHARED:2048 LOCAL:4 CONSTANT[0]:536
EOF
    ;;
  -nodevice) echo "cuobjdump info    : File '$2' does not contain device code" >&2 ;;
  *) echo "cuobjdump fatal   : unknown option '$1'" >&2; exit 1 ;;
esac
)sh";

}  // namespace

// ----- symbol matching ----------------------------------------------------------------------

TEST(ToolchainSymbols, SubstringWithStarWildcardInOrder) {
  const std::string f32 = "_ZN8pipegemm7kernels7k4_seed14k4_seed_kernelINS1_10SeedConfigIN4cute28SM80_16x8x16_F32F16F16F32_TNEEEEEv";
  EXPECT_TRUE(toolchain::symbol_matches(f32, "k4_seed_kernel"));
  EXPECT_TRUE(toolchain::symbol_matches(f32, "k4_seed_kernel*F32F16F16F32"));
  EXPECT_TRUE(toolchain::symbol_matches(f32, "*k4_seed*"));
  EXPECT_TRUE(toolchain::symbol_matches(f32, "*"));
  EXPECT_TRUE(toolchain::symbol_matches(f32, "k4**seed_kernel"));
  EXPECT_FALSE(toolchain::symbol_matches(f32, "k4_seed_kernel*F16F16F16F16"));
  EXPECT_FALSE(toolchain::symbol_matches(f32, "F32F16F16F32*k4_seed_kernel"));  // order matters
  EXPECT_FALSE(toolchain::symbol_matches(f32, "kernel*kernel*kernel"));          // no piece reused
  EXPECT_FALSE(toolchain::symbol_matches(f32, ""));
  EXPECT_FALSE(toolchain::symbol_matches("", "k4"));
}

// ----- cuobjdump -res-usage -----------------------------------------------------------------

TEST(ToolchainResUsage, ParsesAStoredCubinReport) {
  // From `cuobjdump -res-usage` of a lone cubin: no "arch =" line.
  const auto r = toolchain::parse_res_usage(read(std::string(PIPEGEMM_TEST_DATA) + "/sass/fixtures.sm_80.res"));
  EXPECT_TRUE(r.archs.empty());
  ASSERT_EQ(r.functions.size(), 2u);
  EXPECT_EQ(r.functions[0].name, "sass_fixture_double_buffer");
  EXPECT_EQ(r.functions[0].arch, "");
  EXPECT_EQ(r.functions[0].regs, 72);
  EXPECT_EQ(r.functions[0].stack, 0);
  EXPECT_EQ(r.functions[0].shared, 16384);
  EXPECT_EQ(r.functions[0].local, 0);
  EXPECT_EQ(r.functions[1].name, "sass_fixture_single_buffer");
  EXPECT_EQ(r.functions[1].regs, 70);
  EXPECT_EQ(r.functions[1].shared, 8192);
}

TEST(ToolchainResUsage, NamesEachFunctionPerArch) {
  const std::string text =
      "Fatbin elf code:\n================\narch = sm_80\r\ncode version = [1,8]\n"
      "Resource usage:\n Common:\n  GLOBAL:0\n"
      " Function _Z3fooILi1EEvv:\n  REG:96 STACK:16 SHARED:0 LOCAL:8 CONSTANT[0]:360\n"
      " Function _Z3barv:\n"  // a header whose REG line never came
      "Fatbin ptx code:\n================\narch = sm_80\n"
      "Fatbin elf code:\n================\narch = sm_90a\n"
      "Resource usage:\n"
      " Function _Z3fooILi1EEvv: REG:90 STACK:0 SHARED:1024 LOCAL:0\n"  // REG on the header line
      " Function name without a colon is prose\n";
  const auto r = toolchain::parse_res_usage(text);
  EXPECT_EQ(r.archs, (std::vector<std::string>{"sm_80", "sm_90a"}));
  ASSERT_EQ(r.functions.size(), 3u);
  EXPECT_EQ(r.functions[0].arch, "sm_80");
  EXPECT_EQ(r.functions[0].regs, 96);
  EXPECT_EQ(r.functions[0].stack, 16);
  EXPECT_EQ(r.functions[0].local, 8);
  EXPECT_EQ(r.functions[1].name, "_Z3barv");
  EXPECT_EQ(r.functions[1].regs, -1);  // not reported
  EXPECT_EQ(r.functions[2].name, "_Z3fooILi1EEvv");
  EXPECT_EQ(r.functions[2].arch, "sm_90a");
  EXPECT_EQ(r.functions[2].regs, 90);
  EXPECT_EQ(r.functions[2].shared, 1024);
  EXPECT_TRUE(toolchain::parse_res_usage("").functions.empty());
}

// ----- running programs ---------------------------------------------------------------------

TEST(ToolchainRun, ArgumentsReachTheProgramUnchangedWithoutAShell) {
  std::string printf_exe;
  for (const char* p : {"/usr/bin/printf", "/bin/printf"})
    if (toolchain::executable(p)) printf_exe = p;
  if (printf_exe.empty()) GTEST_SKIP() << "no printf executable here";
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string marker = (dir.path / "marker").string();
  // Each of these would do something else through a shell: split, expand, glob, or run `touch`.
  const std::vector<std::string> args = {
      "two words",  "it's \"quoted\"",    "$HOME",     "$(touch " + marker + ")", "`touch " + marker + "`",
      "; touch " + marker, "a|b&c>d<e", "*", "", "tab\there", "back\\slash"};
  std::vector<std::string> argv = {"%s\\n"};
  argv.insert(argv.end(), args.begin(), args.end());
  toolchain::RunResult r;
  std::string err;
  ASSERT_TRUE(toolchain::run(printf_exe, argv, &r, &err)) << err;
  EXPECT_EQ(r.status, 0) << r.err;
  std::string want;
  for (const std::string& a : args) want += a + "\n";
  EXPECT_EQ(r.out, want);
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(fs::exists(marker)) << "a shell ran the arguments";
}

TEST(ToolchainRun, CapturesStderrAndExitStatus) {
  toolchain::RunResult r;
  std::string err;
  ASSERT_TRUE(toolchain::run("/bin/sh", {"-c", "echo out; echo oops >&2; exit 3"}, &r, &err)) << err;
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "oops\n");
  ASSERT_TRUE(toolchain::run("/bin/sh", {"-c", "kill -9 $$"}, &r, &err)) << err;
  EXPECT_EQ(r.status, 128 + 9);
}

TEST(ToolchainRun, AProgramThatCannotStartIsAnError) {
  toolchain::RunResult r;
  std::string err;
  EXPECT_FALSE(toolchain::run("/nonexistent/program", {}, &r, &err));
  EXPECT_NE(err.find("cannot run /nonexistent/program"), std::string::npos) << err;
}

TEST(ToolchainRun, SelfExeIsThisTestBinary) {
  std::string self, err;
  ASSERT_TRUE(toolchain::self_exe(&self, &err)) << err;
  EXPECT_EQ(self.front(), '/');
  EXPECT_TRUE(fs::equivalent(self, "/proc/self/exe")) << self;
  EXPECT_TRUE(toolchain::executable(self));
}

// ----- finding and asking cuobjdump ---------------------------------------------------------

TEST(ToolchainLocate, EnvPointingAtANonExecutableIsAClearError) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string plain = dir.write("cuobjdump", "not a program\n", false);
  for (const std::string& bad : {plain, dir.path.string(), std::string("/nonexistent/cuobjdump")}) {
    ScopedEnv env("PIPEGEMM_CUOBJDUMP", bad.c_str());
    std::string path, err;
    EXPECT_FALSE(toolchain::locate_cuobjdump(&path, &err)) << bad;
    EXPECT_EQ(err, "PIPEGEMM_CUOBJDUMP=" + bad + " is not an executable file");
  }
}

TEST(ToolchainLocate, EnvWinsAndTheVersionIsChecked) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string fake = dir.write("cuobjdump", kFakeCuobjdump, true);
  ScopedEnv env("PIPEGEMM_CUOBJDUMP", fake.c_str());
  std::string path, err, version;
  ASSERT_TRUE(toolchain::locate_cuobjdump(&path, &err)) << err;
  EXPECT_EQ(path, fake);
  ASSERT_TRUE(toolchain::cuobjdump_version(path, &version, &err)) << err;
  EXPECT_EQ(version, "13.5");

  const std::string old = dir.write("old_cuobjdump", "#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n", true);
  EXPECT_FALSE(toolchain::cuobjdump_version(old, &version, &err));
  EXPECT_NE(err.find("release 12.4; CUDA 13 cubins need cuobjdump >= 13.0"), std::string::npos) << err;
  const std::string other = dir.write("not_cuobjdump", "#!/bin/sh\necho hello\n", true);
  EXPECT_FALSE(toolchain::cuobjdump_version(other, &version, &err));
  EXPECT_NE(err.find("did not print a release"), std::string::npos) << err;
}

TEST(ToolchainLocate, SearchOrderAfterTheEnvironment) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  ScopedEnv env("PIPEGEMM_CUOBJDUMP", nullptr);
  const std::string path_value = dir.path.string() + "/a::" + dir.path.string() + "/b";  // "" = cwd: skipped
  ScopedEnv path_env("PATH", path_value.c_str());
  ScopedEnv home("CUDA_HOME", dir.path.c_str());
  std::vector<std::string> want = {dir.path.string() + "/a/cuobjdump", dir.path.string() + "/b/cuobjdump",
                                   dir.path.string() + "/bin/cuobjdump", "/usr/local/cuda/bin/cuobjdump"};
  std::vector<std::string> got = toolchain::cuobjdump_candidates();
  if (got.size() == want.size() + 1) got.erase(got.begin());  // the configure-time path comes first
  EXPECT_EQ(got, want);
}

TEST(ToolchainLocate, NotFoundSaysWhatWasTriedAndHowToInstall) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  ScopedEnv env("PIPEGEMM_CUOBJDUMP", nullptr);
  ScopedEnv path_env("PATH", dir.path.c_str());
  ScopedEnv home("CUDA_HOME", dir.path.c_str());
  std::string path, err;
  if (toolchain::locate_cuobjdump(&path, &err))
    GTEST_SKIP() << "a cuobjdump outside PATH is found (" << path << "): the configured or /usr/local/cuda one";
  EXPECT_NE(err.find("cuobjdump not found (tried $PIPEGEMM_CUOBJDUMP"), std::string::npos) << err;
  EXPECT_NE(err.find("PATH, " + dir.path.string() + "/bin and /usr/local/cuda/bin"), std::string::npos) << err;
  EXPECT_NE(err.find("pip install 'nvidia-cuda-cuobjdump>=13.0,<14' 'nvidia-cuda-nvdisasm>=13.0,<14'"),
            std::string::npos)
      << err;
}

TEST(ToolchainCuobjdump, FailuresBecomeUserMessages) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string fake = dir.write("cuobjdump", kFakeCuobjdump, true);
  const std::string file = dir.write("host_only", "x", false);
  std::string out, err;
  EXPECT_FALSE(toolchain::run_cuobjdump(fake, {"-res-usage"}, "/no/such/file", &out, &err));
  EXPECT_EQ(err, "/no/such/file: no such file");
  EXPECT_FALSE(toolchain::run_cuobjdump(fake, {"-nodevice"}, file, &out, &err));
  EXPECT_NE(err.find(file + ": not a CUDA binary"), std::string::npos) << err;
  EXPECT_FALSE(toolchain::run_cuobjdump(fake, {"-bogus"}, file, &out, &err));
  EXPECT_NE(err.find("cuobjdump failed (exit 1): cuobjdump fatal   : unknown option '-bogus'"), std::string::npos) << err;

  toolchain::ResUsageReport rep;
  ASSERT_TRUE(toolchain::res_usage(fake, file, &rep, &err)) << err;
  ASSERT_EQ(rep.functions.size(), 2u);
  EXPECT_EQ(rep.functions[1].arch, "sm_90a");
  EXPECT_EQ(rep.functions[1].regs, 80);
}

// The planner's registers come through the same toolchain: cuobjdump found via the environment,
// its version checked, its report picked for the sm.
TEST(ToolchainCuobjdump, PlannerResUsageGoesThroughTheToolchain) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string fake = dir.write("cuobjdump", kFakeCuobjdump, true);
  const std::string binary = dir.write("binary", "x", false);
  ScopedEnv env("PIPEGEMM_CUOBJDUMP", fake.c_str());
  plan::ResUsage r;
  std::string why;
  ASSERT_TRUE(plan::res_usage_from_cuobjdump("_Z6kernel", 90, &r, &why, binary)) << why;
  EXPECT_EQ(r.cubin_arch, "sm_90a");
  EXPECT_EQ(r.regs, 80);
  EXPECT_EQ(r.static_smem, 1024);  // 2048 less the driver's 1 KB reservation
  EXPECT_EQ(r.matches, 1);
  ASSERT_TRUE(plan::res_usage_from_cuobjdump("_Z6kernel", 86, &r, &why, binary)) << why;
  EXPECT_EQ(r.cubin_arch, "sm_80");
  EXPECT_EQ(r.regs, 64);
  EXPECT_FALSE(plan::res_usage_from_cuobjdump("_Z6kernel", 75, &r, &why, binary));
  EXPECT_NE(why.find("no cubin for sm_75 (the binary has sm_80, sm_90a)"), std::string::npos) << why;
  EXPECT_FALSE(plan::res_usage_from_cuobjdump("_Z6kernel", 90, &r, &why, (dir.path / "missing").string()));
  EXPECT_NE(why.find("no such file"), std::string::npos) << why;
  EXPECT_FALSE(plan::res_usage_from_cuobjdump("", 90, &r, &why, binary));
  EXPECT_EQ(why, "the variant registers no kernel symbol");
}
