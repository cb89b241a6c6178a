// The "provenance" object of the measurements file: what was measured, on what, with what
// software, when, from which commit and how (sim/calibrate/measurements.hpp requires "gpu" and
// "source"; the rest is free-form and copied into fitted profiles).
#pragma once

#include <string>

#include "sim/kernels/device_info.hpp"
#include "sim/kernels/host/json_writer.hpp"

namespace sim::kernels {

struct RunFacts {
  std::string profile;               // "" when not given
  std::string git_commit;            // "" when unknown
  std::string groups;                // "gemm,memory,..." that ran
  double sm_clock_before_mhz = 0.0;  // measured before the first kernel (idle clocks)
  double sm_clock_after_mhz = 0.0;   // measured right after the last kernel
  double wall_s = 0.0;
};

Record make_provenance(const DeviceInfo& device, const RunFacts& facts);

}  // namespace sim::kernels
