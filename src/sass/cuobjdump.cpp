// Finding and running cuobjdump (PyPI nvidia-cuda-cuobjdump 13.x; it needs nvdisasm beside it or
// on PATH: PyPI nvidia-cuda-nvdisasm). No shell: arguments go to posix_spawn as they are.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <algorithm>

#include "pipegemm/sass.hpp"

extern char** environ;

#ifndef PIPEGEMM_CUOBJDUMP_DEFAULT
#define PIPEGEMM_CUOBJDUMP_DEFAULT ""
#endif

namespace pipegemm::sass {

namespace {

bool executable(const std::string& p) {
  struct stat st{};
  return !p.empty() && stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs exe with args; stdout and stderr land in temp files (listings reach megabytes).
bool run(const std::string& exe, const std::vector<std::string>& args, std::string* out, std::string* errout,
         int* status, std::string* err) {
  char o_name[] = "/tmp/pipegemm_sass_outXXXXXX";
  char e_name[] = "/tmp/pipegemm_sass_errXXXXXX";
  int o_fd = mkstemp(o_name), e_fd = mkstemp(e_name);
  if (o_fd < 0 || e_fd < 0) {
    if (o_fd >= 0) close(o_fd), unlink(o_name);
    if (e_fd >= 0) close(e_fd), unlink(e_name);
    *err = "cannot create a temporary file in /tmp";
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, o_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, e_fd, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(o_fd);
  close(e_fd);
  bool ok = rc == 0;
  if (ok) {
    int st = 0;
    waitpid(pid, &st, 0);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    *out = slurp(o_name);
    *errout = slurp(e_name);
  } else {
    *err = "cannot run " + exe + ": " + std::strerror(rc);
  }
  unlink(o_name);
  unlink(e_name);
  return ok;
}

std::string first_line(const std::string& s) {
  size_t a = s.find_first_not_of(" \n\t");
  if (a == std::string::npos) return "";
  size_t b = s.find('\n', a);
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

bool locate_cuobjdump(std::string* path, std::string* err) {
  if (const char* env = std::getenv("PIPEGEMM_CUOBJDUMP"); env && *env) {
    if (executable(env)) {
      *path = env;
      return true;
    }
    *err = std::string("PIPEGEMM_CUOBJDUMP=") + env + " is not an executable file";
    return false;
  }
  const std::string baked = PIPEGEMM_CUOBJDUMP_DEFAULT;
  if (executable(baked)) {
    *path = baked;
    return true;
  }
  if (const char* p = std::getenv("PATH")) {
    std::string dirs = p;
    size_t a = 0;
    while (a <= dirs.size()) {
      size_t b = dirs.find(':', a);
      std::string d = dirs.substr(a, b == std::string::npos ? std::string::npos : b - a);
      if (!d.empty() && executable(d + "/cuobjdump")) {
        *path = d + "/cuobjdump";
        return true;
      }
      if (b == std::string::npos) break;
      a = b + 1;
    }
  }
  *err = "cuobjdump not found (tried $PIPEGEMM_CUOBJDUMP, " +
         (baked.empty() ? std::string("no path found at configure time") : "the configured " + baked) +
         ", and PATH). Install it with: python3 -m pip install 'nvidia-cuda-cuobjdump>=13.0,<14' "
         "'nvidia-cuda-nvdisasm>=13.0,<14' (scripts/setup.sh), or set PIPEGEMM_CUOBJDUMP=/path/to/cuobjdump";
  return false;
}

bool cuobjdump_version(const std::string& exe, std::string* version, std::string* err) {
  std::string out, eout;
  int st = 0;
  if (!run(exe, {"--version"}, &out, &eout, &st, err)) return false;
  size_t p = out.find("release ");
  if (st != 0 || p == std::string::npos) {
    *err = exe + " --version did not print a release (is it cuobjdump?): " + first_line(out + eout);
    return false;
  }
  p += 8;
  size_t q = out.find_first_of(", \n", p);
  *version = out.substr(p, q - p);
  const int major = std::atoi(version->c_str());
  if (major < 13) {
    *err = exe + " is release " + *version + "; CUDA 13 cubins need cuobjdump >= 13.0 (pip install 'nvidia-cuda-cuobjdump>=13.0,<14')";
    return false;
  }
  return true;
}

namespace {

// Turns a failed or empty cuobjdump run into the message a user needs.
bool classify(const std::string& file, int status, const std::string& eout, std::string* err) {
  const std::string why = first_line(eout);
  if (eout.find("nvdisasm") != std::string::npos) {
    *err = "cuobjdump cannot disassemble without nvdisasm: " + why +
           ". Install it beside cuobjdump: python3 -m pip install 'nvidia-cuda-nvdisasm>=13.0,<14' (scripts/setup.sh)";
    return false;
  }
  if (eout.find("does not contain device code") != std::string::npos) {
    *err = file + ": not a CUDA binary (no device code in it; a host-only file, or a cubin cut short)";
    return false;
  }
  if (status != 0) {
    *err = file + ": cuobjdump failed (exit " + std::to_string(status) + "): " +
           (why.empty() ? "no message" : why) + " -- not an executable, object, library or cubin with CUDA code?";
    return false;
  }
  return true;
}

}  // namespace

bool load_listing(const std::string& cuobjdump, const std::string& file, Listing* out, std::string* err,
                  const std::function<bool(const std::string&, const std::string&)>& want) {
  struct stat st{};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = file + ": no such file";
    return false;
  }
  // -res-usage first: it is fast and names every function per arch, so only the functions asked
  // for are disassembled (all of this build's kernels print ~35 MB of SASS).
  out->functions.clear();
  out->elf_archs.clear();
  std::string res, eout, cerr;
  int status = 0;
  if (!run(cuobjdump, {"-res-usage", file}, &res, &eout, &status, &cerr)) {
    *err = cerr;
    return false;
  }
  if (!classify(file, status, eout, err)) return false;
  std::vector<std::pair<std::string, std::vector<std::string>>> by_arch;  // arch ("" = cubin) -> names
  bool listed = false;  // -res-usage named functions (wanted or not)
  {
    std::string arch;
    size_t pos = 0;
    while (pos < res.size()) {
      size_t nl = res.find('\n', pos);
      std::string t = res.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? res.size() : nl + 1;
      size_t a = t.find_first_not_of(" \t");
      if (a == std::string::npos) continue;
      t = t.substr(a);
      if (t.rfind("arch = ", 0) == 0) arch = t.substr(7);
      if (t.rfind("Function ", 0) != 0 || t.back() != ':') continue;
      if (!arch.empty() && std::find(out->elf_archs.begin(), out->elf_archs.end(), arch) == out->elf_archs.end())
        out->elf_archs.push_back(arch);
      std::string name = t.substr(9, t.size() - 10);
      listed = true;
      if (want && !want(name, arch)) continue;
      auto it = std::find_if(by_arch.begin(), by_arch.end(), [&](const auto& p) { return p.first == arch; });
      if (it == by_arch.end()) by_arch.push_back({arch, {}}), it = by_arch.end() - 1;
      if (std::find(it->second.begin(), it->second.end(), name) == it->second.end()) it->second.push_back(name);
    }
  }
  const bool named = listed;
  if (listed && by_arch.empty()) return true;  // none of its functions wanted: an empty listing
  if (!named) by_arch.push_back({"", {}});      // no resource usage to go by: disassemble everything
  if (named && want == nullptr) for (auto& p : by_arch) p.second.clear();  // all: no -fun list needed

  // One cuobjdump per arch, in parallel (each is single-threaded).
  std::vector<std::string> sass(by_arch.size()), errs(by_arch.size()), fails(by_arch.size());
  std::vector<int> codes(by_arch.size(), 0);
  std::vector<char> ran(by_arch.size(), 0);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < by_arch.size(); ++i) {
    pool.emplace_back([&, i] {
      std::vector<std::string> args = {"-sass"};
      if (!by_arch[i].second.empty()) {
        std::string list;
        for (const std::string& n : by_arch[i].second) list += (list.empty() ? "" : ",") + n;
        args.insert(args.end(), {"-fun", list});
      }
      if (!by_arch[i].first.empty()) args.insert(args.end(), {"-arch", by_arch[i].first});
      args.push_back(file);
      ran[i] = run(cuobjdump, args, &sass[i], &errs[i], &codes[i], &fails[i]);
    });
  }
  for (std::thread& t : pool) t.join();
  std::string all;
  for (size_t i = 0; i < by_arch.size(); ++i) {
    if (!ran[i]) {
      *err = fails[i];
      return false;
    }
    if (!classify(file, codes[i], errs[i], err)) return false;
    all += sass[i];
  }
  std::string perr;
  std::vector<std::string> elf_archs = out->elf_archs;  // parse_sass starts a fresh listing
  const bool parsed = parse_sass(all, out, &perr);
  out->elf_archs = elf_archs;
  if (!parsed) {
    if (named) return true;  // nothing of what was asked for: the caller says which kernel is missing
    // Device code but no SASS: PTX only (the driver would JIT it), or stripped of machine code.
    std::string ptx, pe;
    int ps = 0;
    const bool has_ptx = run(cuobjdump, {"-lptx", file}, &ptx, &pe, &ps, &cerr) && ptx.find(".ptx") != std::string::npos;
    *err = file + ": no SASS to check: " +
           (has_ptx ? "it holds PTX only (built with code=compute_XX); build real SASS (e.g. -arch=sm_80 / CMake CUDA_ARCHITECTURES 80;90a)"
                    : "the device code holds no functions with instructions (stripped?)");
    return false;
  }
  parse_res_usage(res, out);
  return true;
}

}  // namespace pipegemm::sass
