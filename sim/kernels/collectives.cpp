// NCCL collectives, timed as nccl-tests times them (NVIDIA/nccl-tests@a0b82b2 src/common.cu): all_reduce, all_gather,
// reduce_scatter, all_to_all (grouped send/recv) and send_recv, bf16, in one process over all visible GPUs with
// ncclCommInitAll, plus 2- and 4-GPU subsets when there are at least 4. Sizes 8 B..8 GiB by x2,
// capped so that send and receive buffers fit in a third of free memory.
//
// Sizes follow nccl-tests: "bytes" is the per-rank buffer for all_reduce, the whole gathered or
// scattered buffer for all_gather and reduce_scatter, the whole send buffer for all_to_all, the
// message for send_recv; per-rank (per-peer) counts are rounded down to 16-byte multiples.
// Timing follows nccl-tests too: host wall clock around `iters` back-to-back launches on every
// rank, then a synchronization of all streams; time per operation = elapsed / iters. A
// repetition is one such loop; median, p10, p90 over repetitions.
// Check: all_reduce inputs are rank patterns (checks.hpp) whose sums are exact in bf16; 64
// sampled outputs of every rank must equal the sum.
#include "sim/kernels/suites.hpp"

#ifndef TRAINSIM_HAVE_NCCL

namespace sim::kernels {

void run_collectives_suite(const std::string&, MeasurementWriter&) {
  progress("collectives: skipped, built without NCCL");
}

std::string nccl_version() { return ""; }

}  // namespace sim::kernels

#else

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"

namespace sim::kernels {

namespace {

enum class Op { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, SEND_RECV };
constexpr Op kOps[] = {Op::ALL_REDUCE, Op::ALL_GATHER, Op::REDUCE_SCATTER, Op::ALL_TO_ALL, Op::SEND_RECV};
constexpr size_t kMaxSize = size_t(8) << 30;
constexpr double kLoopS = 0.005;      // wall time of one repetition's launch loop, roughly
constexpr double kSizeS = 0.05;       // wall time per size, roughly (at least 5 repetitions)
constexpr double kSizeBudgetS = 3.0;  // stop a sweep once one size would take longer than this

const char* name(Op op) {
  switch (op) {
    case Op::ALL_REDUCE: return "all_reduce";
    case Op::ALL_GATHER: return "all_gather";
    case Op::REDUCE_SCATTER: return "reduce_scatter";
    case Op::ALL_TO_ALL: return "all_to_all";
    case Op::SEND_RECV: return "send_recv";
  }
  return "?";
}

// nccl-tests' bus-bandwidth factor (for the progress line; the file holds times).
double busbw_factor(Op op, int n) {
  switch (op) {
    case Op::ALL_REDUCE: return 2.0 * (n - 1) / n;
    case Op::SEND_RECV: return 1.0;
    default: return static_cast<double>(n - 1) / n;
  }
}

// Elements per call for a nominal size, and the size actually moved (nccl-tests' size column).
struct Count {
  size_t count = 0;  // elements passed to NCCL (per rank, per peer for all_to_all)
  size_t bytes = 0;
};

Count count_for(Op op, size_t size, int n) {
  constexpr size_t kElem = 2;  // bf16
  switch (op) {
    case Op::ALL_REDUCE:
    case Op::SEND_RECV: return {size / kElem, size / kElem * kElem};
    default: {
      const size_t per_rank = size / static_cast<size_t>(n) / 16 * 16;
      return {per_rank / kElem, per_rank * static_cast<size_t>(n)};
    }
  }
}

class Communicator {
 public:
  explicit Communicator(const std::vector<int>& devices, size_t buffer_bytes)
      : devices_(devices),
        comms_(devices.size()),
        streams_(devices.size()),
        send_(devices.size()),
        recv_(devices.size()),
        bytes_(buffer_bytes) {
    NCCL_CHECK(ncclCommInitAll(comms_.data(), static_cast<int>(devices.size()), devices.data()));
    for (size_t r = 0; r < devices.size(); ++r) {
      CUDA_CHECK(cudaSetDevice(devices[r]));
      CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking));
      send_[r] = DeviceBuffer(bytes_);
      recv_[r] = DeviceBuffer(bytes_);
      fill_rank_pattern(send_[r].get(), bytes_ / 2, static_cast<int>(r), streams_[r]);
    }
    synchronize();
  }
  ~Communicator() {
    for (size_t r = 0; r < devices_.size(); ++r) {
      cudaSetDevice(devices_[r]);
      if (streams_[r]) cudaStreamSynchronize(streams_[r]);
      if (comms_[r]) ncclCommDestroy(comms_[r]);
      if (streams_[r]) cudaStreamDestroy(streams_[r]);
      send_[r] = DeviceBuffer();
      recv_[r] = DeviceBuffer();
    }
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int ranks() const { return static_cast<int>(devices_.size()); }
  size_t buffer_bytes() const { return bytes_; }

  void launch(Op op, size_t count) {
    const int n = ranks();
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
      void* s = send_[r].get();
      void* d = recv_[r].get();
      switch (op) {
        case Op::ALL_REDUCE:
          NCCL_CHECK(ncclAllReduce(s, d, count, ncclBfloat16, ncclSum, comms_[r], streams_[r]));
          break;
        case Op::ALL_GATHER: NCCL_CHECK(ncclAllGather(s, d, count, ncclBfloat16, comms_[r], streams_[r])); break;
        case Op::REDUCE_SCATTER:
          NCCL_CHECK(ncclReduceScatter(s, d, count, ncclBfloat16, ncclSum, comms_[r], streams_[r]));
          break;
        case Op::ALL_TO_ALL:
          for (int peer = 0; peer < n; ++peer) {
            NCCL_CHECK(
                ncclSend(static_cast<char*>(s) + peer * count * 2, count, ncclBfloat16, peer, comms_[r], streams_[r]));
            NCCL_CHECK(
                ncclRecv(static_cast<char*>(d) + peer * count * 2, count, ncclBfloat16, peer, comms_[r], streams_[r]));
          }
          break;
        case Op::SEND_RECV:  // a ring, as nccl-tests' sendrecv: to r+1, from r-1
          NCCL_CHECK(ncclSend(s, count, ncclBfloat16, (r + 1) % n, comms_[r], streams_[r]));
          NCCL_CHECK(ncclRecv(d, count, ncclBfloat16, (r + n - 1) % n, comms_[r], streams_[r]));
          break;
      }
    }
    NCCL_CHECK(ncclGroupEnd());
  }

  void synchronize() {
    for (size_t r = 0; r < devices_.size(); ++r) {
      CUDA_CHECK(cudaSetDevice(devices_[r]));
      CUDA_CHECK(cudaStreamSynchronize(streams_[r]));
    }
  }

  // Seconds of wall clock per operation over `iters` back-to-back launches.
  double run(Op op, size_t count, int iters) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) launch(op, count);
    synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
  }

  // 64 sampled outputs of every rank equal the sum of the rank patterns.
  void check_all_reduce(size_t count, const std::string& what) {
    const int n = ranks();
    for (int r = 0; r < n; ++r) {
      CUDA_CHECK(cudaSetDevice(devices_[r]));
      std::vector<double> got, want;
      for (int i = 0; i < 64; ++i) {
        const size_t at = count > 1 ? (count - 1) * static_cast<size_t>(i) / 63 : 0;
        got.push_back(download(recv_[r].as<char>() + at * 2, 1, DType::BF16)[0]);
        double sum = 0.0;
        for (int q = 0; q < n; ++q) sum += rank_pattern(at, q);
        want.push_back(sum);
      }
      require(compare(got, want, 0.0, 0.0), what + ", rank " + std::to_string(r));
    }
  }

 private:
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<DeviceBuffer> send_, recv_;
  size_t bytes_;
};

void sweep(Communicator& comm, Op op, const std::string& algo, MeasurementWriter& out) {
  const int n = comm.ranks();
  // Warm-up: connections and protocol setup at a mid-size message.
  const Count warm = count_for(op, std::min<size_t>(size_t(64) << 20, comm.buffer_bytes() / n), n);
  if (warm.count) comm.run(op, warm.count, 5);
  size_t last_bytes = 0;
  for (size_t size = 8; size <= comm.buffer_bytes(); size *= 2) {
    const Count c = count_for(op, size, n);
    if (c.count == 0 || c.bytes == last_bytes) continue;
    last_bytes = c.bytes;
    comm.run(op, c.count, 2);
    const double estimate = comm.run(op, c.count, 1);
    const int iters = std::clamp(static_cast<int>(kLoopS / std::max(estimate, 1e-7)), 1, 100);
    const int reps = std::clamp(static_cast<int>(kSizeS / std::max(estimate * iters, 1e-7)), 5, 20);
    if (estimate * iters * reps > kSizeBudgetS) {
      progress("collectives %s ranks %d: sizes from %zu bytes skipped (over the time budget)", name(op), n, c.bytes);
      break;
    }
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) samples.push_back(comm.run(op, c.count, iters));
    const Stats s = summarize(samples);
    const std::string label =
        std::string(name(op)) + " ranks " + std::to_string(n) + " " + std::to_string(c.bytes) + " bytes";
    if (op == Op::ALL_REDUCE) comm.check_all_reduce(c.count, "collectives " + label);
    out.add(Section::COLLECTIVES, collective_record(name(op), n, static_cast<int64_t>(c.bytes), algo, s));
    const double algbw = static_cast<double>(c.bytes) / s.median / 1e9;
    progress("collectives %s: %s (algbw %.2f GB/s, busbw %.2f GB/s, %d x %d iters)", label.c_str(),
             format_time(s.median).c_str(), algbw, algbw * busbw_factor(op, n), reps, iters);
  }
}

}  // namespace

std::string nccl_version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

void run_collectives_suite(const std::string& algo, MeasurementWriter& out) {
  int visible = 0;
  CUDA_CHECK(cudaGetDeviceCount(&visible));
  if (visible < 2) {
    progress("collectives: skipped, %d GPU visible (needs 2 or more)", visible);
    return;
  }
  std::vector<int> sizes = {visible};
  if (visible > 4) sizes.push_back(4);
  if (visible > 2) sizes.push_back(2);  // send_recv is measured between 2 GPUs
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  for (int n : sizes) {
    std::vector<int> devices(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) devices[i] = i;
    int64_t free_min = INT64_MAX;
    for (int d : devices) {
      CUDA_CHECK(cudaSetDevice(d));
      free_min = std::min(free_min, free_device_memory());
    }
    size_t buffer = kMaxSize;
    while (buffer > 16 && 2.0 * static_cast<double>(buffer) > static_cast<double>(free_min) / 3.0) buffer /= 2;
    Communicator comm(devices, buffer);
    for (Op op : kOps) {
      if (op == Op::SEND_RECV && n != 2) continue;  // the measurements' send_recv is between 2 GPUs
      sweep(comm, op, algo, out);
    }
  }
  CUDA_CHECK(cudaSetDevice(current));
}

}  // namespace sim::kernels

#endif
