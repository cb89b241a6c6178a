// `trainsim calibrate --check`: predicts every measured kernel with a device
// profile and tabulates the relative error per kernel class (gemm bf16, memory
// rmsnorm_fwd, attention FA2 fwd_bwd, all_reduce n=8, ...), so a user sees how
// far a profile is from their GPU.
#pragma once

#include <string>
#include <vector>

#include "sim/calibrate/measurements.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

struct Prediction {
  std::string kernel_class;
  std::string what;  // the record, e.g. "8192x8192x8192" or "1 MiB"
  RecordRef at;
  Seconds measured, predicted;
  double error() const { return predicted / measured - 1.0; }
};

struct CheckResult {
  std::vector<Prediction> predictions;
  std::vector<std::string> skipped;  // record classes the profile cannot predict, and why
};

CheckResult check_profile(const Measurements& m, const DeviceSpec& device);

struct ClassError {
  std::string kernel_class;
  size_t count = 0;
  double mean_abs = 0;      // mean |error|
  const Prediction* worst;  // largest |error|
};
// One row per class, in order of first appearance.
std::vector<ClassError> class_errors(const std::vector<Prediction>& p);

// The printed table: one line per class, then the `worst` largest errors
// overall.
std::string error_table(const CheckResult& r, size_t worst = 5);

// Every prediction, one CSV row each (class, record, file, JSON path, measured
// and predicted seconds, relative error), for plotting and for finding the
// shapes a profile misses.
std::string predictions_csv(const CheckResult& r);

}  // namespace sim
