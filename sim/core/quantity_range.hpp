// The window of values the reader accepts for a physical quantity, and the windows shared by
// several readers, each with the reason for its bounds.
//
// ParamReader refuses a value outside its window with one line naming the file, the JSON path and
// the window (params.hpp). Inside the windows every model computes with normal doubles: no product
// or ratio of two accepted quantities overflows, underflows or is zero, so a faster link, a higher
// efficiency or a smaller slowdown never gives a slower step for arithmetic's sake. Ranges of one
// reader's own quantities live beside that reader (the device profile's in device.cpp).
#pragma once

namespace sim {

struct QuantityRange {
  double min = 0;  // in SI units (B/s, s, B, FLOP, FLOP/s) or a plain number
  double max = 0;
  // What the message says is expected ("a bandwidth from 1 Mb/s to 1 PB/s"); nullptr: "a
  // quantity from MIN to MAX UNIT", with the reader's unit.
  const char* expected = nullptr;

  constexpr bool contains(double v) const { return v >= min && v <= max; }
};

// Any quantity with a unit: 1 fs to 30 million years, up to 10^24 FLOP or bytes ("1e308 TFLOP/s"
// is 1e320, not a number): wide enough for any GPU, cluster or run, narrow enough that no product
// or ratio of two quantities leaves double's range.
inline constexpr QuantityRange ANY_QUANTITY{1e-15, 1e24};

// A bandwidth: a link's per direction, a NIC's, an HBM's, a cluster's storage. Above: 1 PB/s, over
// 100x the fastest rate any GPU has (B200: HBM3e 8 TB/s, NVLink 5 900 GB/s per direction, NVIDIA
// datasheets) and 500x the storage bandwidth of the largest run reported (Llama 3's 2 TB/s over
// 16,384 GPUs, Dubey et al. 2024 §3.3.1). Below: 1 Mb/s, a thousandth of Gigabit Ethernet, under
// any link a training step's traffic has crossed. A NIC slowed 10^6 times (step_faults) then still
// carries a positive, normal rate.
inline constexpr QuantityRange BANDWIDTH{1e6 / 8, 1e15, "a bandwidth from 1 Mb/s to 1 PB/s"};

// An achieved fraction of a rated speed: a kernel's efficiency against the peak, a tier's bus
// bandwidth against its line rate, the clock kept at the power limit. Below 1 % a device is broken
// rather than slow (no measurement reads lower: the lowest figure in a shipped profile is 0.17,
// flash attention on the A100), and a subnormal or zero fraction would make a link of no
// bandwidth, which SimGrid cannot finish a transfer over.
inline constexpr QuantityRange EFFICIENCY{0.01, 1.0, "a fraction of the rated speed from 0.01 to 1"};

}  // namespace sim
