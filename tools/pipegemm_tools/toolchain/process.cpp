// Running a program without a shell (posix_spawn: arguments reach it as they are), and the
// path of the running binary (the one readlink of /proc/self/exe).
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pipegemm_tools/toolchain.hpp"

extern char** environ;

namespace pipegemm::toolchain {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

// ----- programs -----------------------------------------------------------------------------

bool executable(const std::string& p) {
  struct stat st{};
  return !p.empty() && stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

bool run(const std::string& exe, const std::vector<std::string>& args, RunResult* result, std::string* err) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  std::string o_name = dir + "/pipegemm_run_outXXXXXX", e_name = dir + "/pipegemm_run_errXXXXXX";
  // O_CLOEXEC: with parallel runs, one child must not inherit another's output files.
  int o_fd = mkostemp(o_name.data(), O_CLOEXEC), e_fd = mkostemp(e_name.data(), O_CLOEXEC);
  if (o_fd < 0 || e_fd < 0) {
    if (o_fd >= 0) close(o_fd), unlink(o_name.c_str());
    if (e_fd >= 0) close(e_fd), unlink(e_name.c_str());
    *err = "cannot create a temporary file in " + dir;
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);  // never waits on a terminal
  posix_spawn_file_actions_adddup2(&fa, o_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, e_fd, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(o_fd);
  close(e_fd);
  if (rc == 0) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    result->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    result->out = slurp(o_name);
    result->err = slurp(e_name);
  } else {
    *err = "cannot run " + exe + ": " + std::strerror(rc);
  }
  unlink(o_name.c_str());
  unlink(e_name.c_str());
  return rc == 0;
}

bool self_exe(std::string* path, std::string* err) {
  std::string buf(256, '\0');
  for (;;) {
    ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size());
    if (n <= 0) {
      *err = "cannot resolve /proc/self/exe";
      return false;
    }
    if (size_t(n) < buf.size()) {  // readlink truncates silently: a full buffer may be cut short
      buf.resize(size_t(n));
      *path = buf;
      return true;
    }
    buf.resize(buf.size() * 2);
  }
}

// ----- cuobjdump ----------------------------------------------------------------------------

}  // namespace pipegemm::toolchain
