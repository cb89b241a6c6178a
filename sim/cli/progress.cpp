#include "sim/cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace sim::cli {

ProgressLine::ProgressLine(std::string label)
    : label_(std::move(label)),
      enabled_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\n", stderr);
}

void ProgressLine::update(int64_t done, int64_t total) {
  if (!enabled_ || total <= 0) return;
  done_ = done, total_ = total;
  const auto now = std::chrono::steady_clock::now();
  if (!started_) {  // the rate counts from the first update, not from the work before the loop
    started_ = true;
    start_ = last_ = now;
    if (done < total) return;
  }
  if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? double(done) / elapsed : 0;
  const std::string eta = rate > 0 ? fmt::format("ETA {:.0f} s", double(total - done) / rate) : std::string("ETA -");
  std::fputs(fmt::format("\r{}: {}/{} ({:.0f}/s, {}){}\x1b[K", label_, done, total, rate, eta,
                         doing_.empty() ? "" : ": " + doing_)
                 .c_str(),
             stderr);
  drawn_ = done < total;  // the last update ends the line, before anything else is printed
  if (!drawn_) std::fputs("\n", stderr);
  std::fflush(stderr);
}

void ProgressLine::doing(const std::string& what) {
  doing_ = what;
  if (!enabled_) return;
  const std::string counts = total_ > 0 ? fmt::format("{}/{}: ", done_, total_) : std::string();
  std::fputs(fmt::format("\r{}: {}{}\x1b[K", label_, counts, what).c_str(), stderr);
  drawn_ = true;
  std::fflush(stderr);
}

}  // namespace sim::cli
