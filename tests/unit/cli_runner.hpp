// Runs the built `pipegemm` binary the way a user does and captures its exit code and output
// (stdout + stderr). Shared by the CLI, planner and SASS tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace pipegemm::test {

struct CliRun {
  int code = -1;
  std::string out;
};

// `env` is prefixed to the command line (e.g. "PIPEGEMM_CUOBJDUMP=/nonexistent").
inline CliRun run_cli(const std::string& args, const std::string& env = "") {
  CliRun r;
  std::string cmd = env + (env.empty() ? "" : " ") + std::string(PIPEGEMM_CLI_PATH) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.out.append(buf.data(), n);
  int st = pclose(f);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

inline bool has(const CliRun& r, const std::string& s) { return r.out.find(s) != std::string::npos; }

}  // namespace pipegemm::test
