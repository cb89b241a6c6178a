#include "sim/core/allocator_tuning.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/core/sanitizer.hpp"

namespace sim {
namespace {

constexpr const char* TCACHE_TUNABLE = "glibc.malloc.tcache_count=2000";

}  // namespace

void tune_allocator(char** argv) {
#ifdef __GLIBC__
  if (SANITIZED || argv == nullptr || argv[0] == nullptr) return;
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return;  // Valgrind
  const char* set = std::getenv("GLIBC_TUNABLES");
  if (set != nullptr && std::strstr(set, "glibc.malloc.tcache_count") != nullptr) return;
  const bool had = set != nullptr;
  const std::string before = had ? set : "";  // a copy: setenv may free the string `set` points to
  const std::string value = (before.empty() ? "" : before + ":") + TCACHE_TUNABLE;
  if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // The exec failed: run as we are, with the environment as it was.
  if (had)
    ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
#else
  (void)argv;
#endif
}

}  // namespace sim
