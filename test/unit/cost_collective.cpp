// NCCL ring collectives (sim/cost/collective.hpp) against their closed forms, and the shipped A100
// profile against measured NCCL all-reduce times.
//
//   ring all-reduce:             bytes per rank 2(n-1)/n * S over 2(n-1) steps
//   ring all-gather / reduce-scatter: (n-1)/n * S over (n-1) steps
//   idle-network time:           t = base + steps * step_latency + bytes_per_rank / (B * eff)
//                                (NCCL src/graph/tuning.cc's alpha-beta model, calibration.md §1.1)
// and a group of one rank costs nothing.
#include <catch2/catch.hpp>

#include "sim/core/params.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/device.hpp"

using namespace sim;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

CollectiveConstants constants() {
  CollectiveConstants c;
  c.base_latency = Seconds(8.4e-6);
  c.scale_up_step_latency = Seconds(3.4e-6);
  c.scale_out_step_latency = Seconds(14e-6);
  c.scale_up_efficiency = 0.75;
  c.scale_out_efficiency = 0.9;
  return c;
}

}  // namespace

TEST_CASE("ring all-reduce sends 2(n-1)/n * S per rank in 2(n-1) steps", "[cost]") {
  const double S = 64 * MiB;
  for (int64_t n : {2, 3, 4, 8, 16, 1024}) {
    INFO("n=" << n);
    RingCost r = ring_cost(CollectiveKind::ALL_REDUCE, Bytes(S), n);
    CHECK(r.bytes_per_rank.value == Approx(2.0 * double(n - 1) / double(n) * S).epsilon(1e-12));
    CHECK(r.steps == 2 * (n - 1));
  }
}

TEST_CASE("ring all-gather and reduce-scatter send (n-1)/n * S per rank in n-1 steps", "[cost]") {
  const double S = 256 * MiB;
  for (CollectiveKind k : {CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER})
    for (int64_t n : {2, 4, 8, 64}) {
      INFO(to_string(k) << " n=" << n);
      RingCost r = ring_cost(k, Bytes(S), n);
      CHECK(r.bytes_per_rank.value == Approx(double(n - 1) / double(n) * S).epsilon(1e-12));
      CHECK(r.steps == n - 1);
    }
}

TEST_CASE("a collective over one rank costs nothing", "[cost]") {
  const CollectiveConstants c = constants();
  for (CollectiveKind k : {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER}) {
    INFO(to_string(k));
    RingCost r = ring_cost(k, Bytes(MiB), 1);
    CHECK(r.bytes_per_rank.value == 0);
    CHECK(r.steps == 0);
    CHECK(collective_latency(k, 1, false, c).value == 0);
    CHECK(ring_time_idle(k, Bytes(MiB), 1, BytesPerSecond(300e9), true, c).value == 0);
  }
}

TEST_CASE("ring_time_idle = base + steps * step_latency + bytes_per_rank / (B * eff)", "[cost]") {
  const CollectiveConstants c = constants();
  const double B = 300e9, base = 8.4e-6;
  for (double S : {0.0, 1.0 * MiB, 64 * MiB, 1024 * MiB})
    for (int64_t n : {2, 8, 32}) {
      INFO("S=" << S << " n=" << n);
      const double nn = double(n);
      // NVLink tier
      CHECK(ring_time_idle(CollectiveKind::ALL_REDUCE, Bytes(S), n, BytesPerSecond(B), false, c).value ==
            Approx(base + 2 * (nn - 1) * 3.4e-6 + 2 * (nn - 1) / nn * S / (B * 0.75)).epsilon(1e-12));
      CHECK(ring_time_idle(CollectiveKind::ALL_GATHER, Bytes(S), n, BytesPerSecond(B), false, c).value ==
            Approx(base + (nn - 1) * 3.4e-6 + (nn - 1) / nn * S / (B * 0.75)).epsilon(1e-12));
      CHECK(ring_time_idle(CollectiveKind::REDUCE_SCATTER, Bytes(S), n, BytesPerSecond(B), false, c).value ==
            Approx(base + (nn - 1) * 3.4e-6 + (nn - 1) / nn * S / (B * 0.75)).epsilon(1e-12));
      // network tier: its own step latency and efficiency
      CHECK(ring_time_idle(CollectiveKind::ALL_REDUCE, Bytes(S), n, BytesPerSecond(25e9), true, c).value ==
            Approx(base + 2 * (nn - 1) * 14e-6 + 2 * (nn - 1) / nn * S / (25e9 * 0.9)).epsilon(1e-12));
      CHECK(collective_latency(CollectiveKind::ALL_REDUCE, n, true, c).value ==
            Approx(base + 2 * (nn - 1) * 14e-6).epsilon(1e-12));
    }
}

TEST_CASE("the A100 profile reproduces NCCL all-reduce on 8 GPUs within 10% for S >= 64 MiB", "[cost]") {
  // nccl-tests all_reduce_perf on an 8-GPU NVSwitch A100 node, out-of-place time in us
  // (vTrain trace/a100/AR_GPU8_1M_1024M_LUT; shared/reference/calibration.md §2.4).
  const DeviceSpec a100 =
      DeviceSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/a100-sxm-80gb.json"));
  const BytesPerSecond nvlink3(300e9);  // per GPU per direction (NVIDIA DGX A100 datasheet)
  struct Point {
    double mib, us;
  };
  for (const Point& pt : {Point{64, 579.9}, Point{128, 1162}, Point{256, 2162}, Point{512, 4192}, Point{1024, 8193}}) {
    INFO(pt.mib << " MiB: measured " << pt.us << " us");
    const double t =
        ring_time_idle(CollectiveKind::ALL_REDUCE, Bytes(pt.mib * MiB), 8, nvlink3, false, a100.collectives).value;
    INFO("modelled " << t * 1e6 << " us");
    CHECK(t * 1e6 == Approx(pt.us).epsilon(0.10));
  }
}

TEST_CASE("the A100 FlashAttention curve reproduces FlashAttention-2's published fwd+bwd throughput within 5%",
          "[cost]") {
  // Dao-AILab/flash-attention@0251105 assets/flash2_a100_fwd_bwd_benchmark.png (calibration.md
  // §2.2): A100 80GB, causal, head dim 128, TFLOP/s in the FA convention (fwd = 4 B s^2 H D / 2,
  // fwd+bwd = 3.5 x fwd). Time the kernel for one fwd+bwd and turn it back into TFLOP/s.
  const auto device =
      sim::DeviceSpec::parse(sim::ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/a100-sxm-80gb.json"));
  const sim::ComputeModel cm(device, sim::Precision::BF16);
  const struct { double seq, tflops; } published[] = {{512, 99}, {2048, 155}, {4096, 173}, {8192, 182}, {16384, 189}};
  for (const auto& row : published) {
    const double batch = 16384.0 / row.seq, heads = 2048.0 / 128.0;  // the benchmark's setup
    const sim::Flops fwd(4.0 * batch * row.seq * row.seq * heads * 128.0 / 2.0);
    const sim::Bytes tiny(1.0);  // compute-bound at these sizes
    const double t = cm.flash_attention(fwd * 3.5, tiny, row.seq).value;
    INFO("seq " << row.seq);
    CHECK(fwd.value * 3.5 / t / 1e12 == Approx(row.tflops).epsilon(0.05));
  }
}

TEST_CASE("NCCL's algorithm choice: NVLS only for an all-reduce of 2+ ranks inside one NVLS node", "[cost]") {
  using K = CollectiveKind;
  CHECK(choose_algo(K::ALL_REDUCE, 8, false, true) == CollectiveAlgo::NVLS);
  CHECK(choose_algo(K::ALL_REDUCE, 2, false, true) == CollectiveAlgo::NVLS);
  CHECK(choose_algo(K::ALL_REDUCE, 1, false, true) == CollectiveAlgo::RING);  // nothing to reduce
  CHECK(choose_algo(K::ALL_REDUCE, 8, true, true) == CollectiveAlgo::RING);  // leaves the node (NVLSTree: not modelled)
  CHECK(choose_algo(K::ALL_REDUCE, 8, false, false) == CollectiveAlgo::RING);  // A100, or disabled
  for (K k : {K::ALL_GATHER, K::REDUCE_SCATTER, K::ALL_TO_ALL, K::SEND_RECV})
    CHECK(choose_algo(k, 8, false, true) == CollectiveAlgo::RING);
}

TEST_CASE("NVLS all-reduce: t = latency + S/(B*eff); its link bytes price to the same time at ring efficiency",
          "[cost]") {
  CollectiveConstants c;
  c.scale_up_efficiency = 0.8;
  c.nvls_efficiency = 0.6;
  c.nvls_latency = Seconds(25e-6);
  const double S = 1 << 30, B = 450e9;
  const Bytes buffer(S);
  CHECK(collective_time_idle(CollectiveAlgo::NVLS, CollectiveKind::ALL_REDUCE, buffer, 8, BytesPerSecond(B), false, c)
            .value == Approx(25e-6 + S / (B * 0.6)).epsilon(1e-12));
  // The engine and the estimator put link_bytes on links running at B * scale_up_efficiency.
  const Bytes wire = link_bytes(CollectiveAlgo::NVLS, CollectiveKind::ALL_REDUCE, buffer, 8, c);
  CHECK(wire.value / (B * 0.8) == Approx(S / (B * 0.6)).epsilon(1e-12));
  CHECK(algo_latency(CollectiveAlgo::NVLS, CollectiveKind::ALL_REDUCE, 8, false, c).value == 25e-6);
  // Ring: unchanged from ring_cost / ring_time_idle.
  CHECK(link_bytes(CollectiveAlgo::RING, CollectiveKind::ALL_REDUCE, buffer, 8, c).value ==
        ring_cost(CollectiveKind::ALL_REDUCE, buffer, 8).bytes_per_rank.value);
  CHECK(collective_time_idle(CollectiveAlgo::RING, CollectiveKind::ALL_GATHER, buffer, 8, BytesPerSecond(B), false, c)
            .value == ring_time_idle(CollectiveKind::ALL_GATHER, buffer, 8, BytesPerSecond(B), false, c).value);
}

TEST_CASE("the H100 profile gives back the published NVLS and ring all-reduce bus bandwidths on 8 GPUs", "[cost]") {
  // sjeaugey, NVIDIA/nccl-tests#212: on 8 H100s 'a peak busBw of ~480GB/s' with NVLS, and 370 GB/s
  // with NCCL_ALGO=RING (450 GB/s line rate). busbw = S/t * 2(n-1)/n (nccl-tests); at 16 GiB the
  // latency terms are below 0.1 %.
  const DeviceSpec h100 =
      DeviceSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/h100-sxm.json"));
  const double S = 16.0 * (1 << 30), factor = 2.0 * 7 / 8;
  const BytesPerSecond nvlink4(450e9);
  const auto busbw = [&](CollectiveAlgo a) {
    return S /
           collective_time_idle(a, CollectiveKind::ALL_REDUCE, Bytes(S), 8, nvlink4, false, h100.collectives).value *
           factor / 1e9;
  };
  CHECK(busbw(CollectiveAlgo::NVLS) == Approx(480).epsilon(0.01));
  CHECK(busbw(CollectiveAlgo::RING) == Approx(370).epsilon(0.01));
}

TEST_CASE("the A100 profile reproduces NCCL all-reduce on 2, 4 and 8 GPUs: 15% from 64 MiB, 30% below", "[cost]") {
  // nccl-tests all_reduce_perf busbw (GB/s) on an 8-GPU NVSwitch A100 node, 1 MiB … 1 GiB (vTrain
  // trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT; calibration.md §2.4). busbw = S/t · 2(n-1)/n.
  const DeviceSpec a100 =
      DeviceSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/a100-sxm-80gb.json"));
  const BytesPerSecond nvlink3(300e9);  // per GPU per direction (NVIDIA DGX A100 datasheet)
  const double mib[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  const struct {
    int n;
    double busbw[11];
  } rows[] = {
      {8, {19.8, 39.4, 76.6, 109.3, 126.3, 164.0, 202.5, 202.1, 217.2, 224.2, 229.3}},
      {4, {30.6, 56.4, 81.4, 107.7, 140.1, 177.1, 185.1, 201.6, 208.7, 216.5, 221.9}},
      {2, {23.7, 39.2, 68.5, 96.5, 127.2, 145.9, 165.8, 175.8, 184.4, 189.2, 197.3}},
  };
  for (const auto& row : rows)
    for (size_t i = 0; i < 11; ++i) {
      const double S = mib[i] * MiB;
      const double t = collective_time_idle(CollectiveAlgo::RING, CollectiveKind::ALL_REDUCE, Bytes(S), row.n, nvlink3,
                                            false, a100.collectives)
                           .value;
      const double busbw = S / t * busbw_factor(CollectiveKind::ALL_REDUCE, row.n) / 1e9;
      INFO("n = " << row.n << ", " << mib[i] << " MiB: modelled " << busbw << " GB/s, measured " << row.busbw[i]);
      CHECK(busbw == Approx(row.busbw[i]).epsilon(mib[i] >= 64 ? 0.15 : 0.30));
    }
}

TEST_CASE("across nodes the A100 and H100 profiles give NCCL's measured busbw per NIC", "[cost]") {
  // AddyLaddy, NVIDIA/nccl#812: DGX A100 with 8 x 200 Gb/s IB, '192GB/s AllReduce BusBW' = 24 GB/s
  // per NIC; AddyLaddy, nccl-tests#290: NDR 400 Gb/s '46-48GB/s per NIC' (calibration.md §2.4). An
  // all-reduce over 16 nodes (one rank per node on each rail: the rail's ring), 4 GiB.
  const auto busbw_per_nic = [](const char* device, double nic_bytes_per_s) {
    const DeviceSpec d = DeviceSpec::parse(
        ParamReader::load_file(std::string(TRAINSIM_SOURCE_DIR "/topologies/devices/") + device + ".json"));
    const double S = 4.0 * (1 << 30);
    const double t = collective_time_idle(CollectiveAlgo::RING, CollectiveKind::ALL_REDUCE, Bytes(S), 16,
                                          BytesPerSecond(nic_bytes_per_s), true, d.collectives)
                         .value;
    return S / t * busbw_factor(CollectiveKind::ALL_REDUCE, 16) / 1e9;
  };
  CHECK(busbw_per_nic("a100-sxm-80gb", 25e9) * 8 == Approx(192).epsilon(0.05));
  const double ndr = busbw_per_nic("h100-sxm", 50e9);
  CHECK(ndr >= 46 * 0.98);
  CHECK(ndr <= 48 * 1.02);
}
