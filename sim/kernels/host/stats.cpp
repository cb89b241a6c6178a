#include "sim/kernels/host/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim::kernels {

double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("nearest_rank: no samples");
  if (!(p > 0.0 && p <= 100.0)) throw std::invalid_argument("nearest_rank: percentile outside (0, 100]");
  const double n = static_cast<double>(sorted.size());
  // 1e-9 guards against p/100*n landing just above a whole number through rounding (10/100*10).
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n - 1e-9));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

Stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  Stats s;
  s.median = nearest_rank(samples, 50.0);
  s.p10 = nearest_rank(samples, 10.0);
  s.p90 = nearest_rank(samples, 90.0);
  s.reps = static_cast<int>(samples.size());
  return s;
}

int rep_budget(double estimate_s, double target_s, int min_reps, int max_reps) {
  if (!(estimate_s > 0.0)) return max_reps;
  const double n = std::floor(target_s / estimate_s);
  if (n >= static_cast<double>(max_reps)) return max_reps;
  return std::max(min_reps, static_cast<int>(n));
}

}  // namespace sim::kernels
