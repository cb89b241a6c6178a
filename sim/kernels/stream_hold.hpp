// Keeping launch overhead out of GPU timings, and reading the SM clock without NVML.
//
// StreamHold implements nvbandwidth's method (NVIDIA/nvbandwidth README.md): a one-thread kernel spins on a
// flag in mapped host memory while the host queues the timed work behind it on the same stream;
// release() sets the flag, and the queued work then runs back to back. The spin gives up after a
// timeout so that a host that blocks while queueing (pageable copies, a full launch queue) cannot
// deadlock; timed_out() then reports that the timings include queueing delays.
//
// measure_sm_clock_mhz runs a one-thread kernel for `window_s` and divides the elapsed SM cycles
// (clock64) by the elapsed nanoseconds (globaltimer): the clock the SMs actually ran at, in MHz.
#pragma once

#include <cstdint>

#include "sim/kernels/device_buffer.hpp"

namespace sim::kernels {

class StreamHold {
 public:
  StreamHold();
  // Queues the spin kernel on `stream`; work queued afterwards waits for release().
  void hold(cudaStream_t stream, double timeout_s = 2.0);
  void release();
  // True if any hold since the previous call ended by timeout. Call after synchronizing.
  bool timed_out();

 private:
  PinnedBuffer flag_;  // uint32_t[2]: released generation, timed-out flag
  uint32_t generation_ = 0;
};

double measure_sm_clock_mhz(cudaStream_t stream, double window_s = 0.002);

}  // namespace sim::kernels
