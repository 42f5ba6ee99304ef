// A tool built on the installed package: the variant table as pipegemm/introspect/registry.hpp
// gives it. Prints each family's count; exits 1 if the table is empty, if a kernel of ours has no
// symbol, or if a teaching variant is listed (their kernels are linked by the CLI and the tests,
// not by the package).
#include <cstdio>
#include <map>
#include <string>

#include "pipegemm/introspect/registry.hpp"

int main() {
  const auto& all = pipegemm::variants();
  std::map<std::string, int> families;
  int bad = 0;
  for (const pipegemm::Variant& v : all) {
    ++families[v.family];
    if (!v.teaching.empty()) std::printf("a teaching variant in the package: %s\n", v.name.c_str()), ++bad;
    if (!v.is_peer() && (v.symbol.empty() || v.kernels.empty()))
      std::printf("no symbol or kernels: %s\n", v.name.c_str()), ++bad;
  }
  for (const auto& [family, n] : families) std::printf("%-16s %d\n", family.c_str(), n);
  std::printf("%zu variants\n", all.size());
  return all.empty() || bad ? 1 : 0;
}
