// Which sanitizers this translation unit is built with (GCC defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__; Clang answers __has_feature). The one place that asks: the engine picks
// SimGrid's thread contexts under AddressSanitizer (sim/engine/replay.cpp), and the allocator is
// not tuned under any sanitizer, whose allocator replaces glibc's (allocator_tuning.hpp).
#pragma once

namespace sim {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool ADDRESS_SANITIZER = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool ADDRESS_SANITIZER = true;
#else
inline constexpr bool ADDRESS_SANITIZER = false;
#endif
#else
inline constexpr bool ADDRESS_SANITIZER = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool OTHER_SANITIZER = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool OTHER_SANITIZER = true;
#else
inline constexpr bool OTHER_SANITIZER = false;
#endif
#else
inline constexpr bool OTHER_SANITIZER = false;
#endif

// Any sanitizer that replaces the allocator: address, thread or memory.
inline constexpr bool SANITIZED = ADDRESS_SANITIZER || OTHER_SANITIZER;

}  // namespace sim
