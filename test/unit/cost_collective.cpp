// NCCL ring collectives (sim/cost/collective.hpp) against their closed forms, and the shipped A100
// profile against measured NCCL all-reduce times.
//
//   ring all-reduce:             bytes per rank 2(n-1)/n * S over 2(n-1) steps
//   ring all-gather / reduce-scatter: (n-1)/n * S over (n-1) steps
//   idle-network time:           t = base + steps * step_latency + bytes_per_rank / (B * eff)
//                                (NCCL src/graph/tuning.cc@5067397's alpha-beta model)
// and a group of one rank costs nothing.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/collective_flows.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/cost/nccl_tuning.hpp"
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
  // (VIA-Research/vTrain@f8dda84 trace/a100/AR_GPU8_1M_1024M_LUT).
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
  // Dao-AILab/flash-attention@0251105 assets/flash2_a100_fwd_bwd_benchmark.png:
  // A100 80GB, causal, head dim 128, TFLOP/s in the FA convention (fwd = 4 B s^2 H D / 2,
  // fwd+bwd = 3.5 x fwd). Time the kernel for one fwd+bwd and turn it back into TFLOP/s.
  const auto device =
      sim::DeviceSpec::parse(sim::ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/a100-sxm-80gb.json"));
  const sim::ComputeModel cm(device, sim::Precision::BF16);
  const struct { double seq, tflops; } published[] = {{512, 99}, {2048, 155}, {4096, 173}, {8192, 182}, {16384, 189}};
  for (const auto& row : published) {
    const double batch = 16384.0 / row.seq, heads = 2048.0 / 128.0;  // the benchmark's setup
    const sim::Flops fwd(4.0 * batch * row.seq * row.seq * heads * 128.0 / 2.0);
    const sim::Bytes tiny(1.0);  // compute-bound at these sizes
    const double t = cm.fused_attention(sim::Attention::FLASH, fwd * 3.5, tiny, row.seq).value;
    INFO("seq " << row.seq);
    CHECK(fwd.value * 3.5 / t / 1e12 == Approx(row.tflops).epsilon(0.05));
  }
}

TEST_CASE("NVLS: only an all-reduce of 2+ ranks inside one NVLS node: t = latency + S/(B*eff) for large S", "[cost]") {
  using K = CollectiveKind;
  CollectiveConstants c;
  c.scale_up_efficiency = 0.8;
  c.nvls_efficiency = 0.6;
  c.nvls_latency = Seconds(25e-6);
  GroupShape node;
  node.ranks = 8;
  node.nvls = true;
  node.scale_up_bandwidth = BytesPerSecond(450e9);
  CHECK_FALSE(cannot_run(CollectiveAlgo::NVLS, K::ALL_REDUCE, node));
  for (K k : {K::ALL_GATHER, K::REDUCE_SCATTER, K::ALL_TO_ALL, K::SEND_RECV})
    CHECK(cannot_run(CollectiveAlgo::NVLS, k, node));
  GroupShape off = node;
  off.nvls = false;  // A100, or NCCL_NVLS_ENABLE=0
  CHECK(cannot_run(CollectiveAlgo::NVLS, K::ALL_REDUCE, off));
  GroupShape two = node;
  two.nodes = 2;
  two.ranks = 16;
  two.scale_out_bandwidth = BytesPerSecond(50e9);
  CHECK(cannot_run(CollectiveAlgo::NVLS, K::ALL_REDUCE, two));  // across nodes NCCL runs nvls_tree
  // 1 GiB on 8 GPUs: each GPU's port carries S once each way at the NVLS efficiency, after one
  // fixed latency; at this size NVLS (S / (0.6 B)) beats the ring (2 (7/8) S / (0.8 B)).
  const double S = 1 << 30, B = 450e9;
  const CollectiveChoice ch = choose_collective(K::ALL_REDUCE, node, Bytes(S), c);
  CHECK(ch.algo == CollectiveAlgo::NVLS);
  CHECK(ch.latency.value == 25e-6);
  CHECK(ch.time_idle.value == Approx(25e-6 + S / (B * 0.6)).epsilon(1e-12));
  // Its flows, priced at the ring's efficiency on each GPU's port, take the same S / (0.6 B).
  const auto flows = collective_flows(ch, K::ALL_REDUCE, {{0, 1, 2, 3, 4, 5, 6, 7}}, Bytes(S), c);
  std::vector<double> out(8, 0.0);
  for (const auto& f : flows) out[static_cast<size_t>(f.from)] += f.bytes.value;
  for (double bytes : out) CHECK(bytes / (B * 0.8) == Approx(S / (B * 0.6)).epsilon(1e-12));
}

TEST_CASE("the H100 profile gives back the published NVLS and ring all-reduce bus bandwidths on 8 GPUs", "[cost]") {
  // sjeaugey, NVIDIA/nccl-tests#212: on 8 H100s 'a peak busBw of ~480GB/s' with NVLS, and 370 GB/s
  // with NCCL_ALGO=RING (450 GB/s line rate). busbw = S/t * 2(n-1)/n (nccl-tests); at 16 GiB the
  // latency terms are below 0.1 %.
  const DeviceSpec h100 =
      DeviceSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/h100-sxm.json"));
  const double S = 16.0 * (1 << 30), factor = 2.0 * 7 / 8;
  const BytesPerSecond nvlink4(450e9);
  GroupShape node;
  node.ranks = 8;
  node.nvls = true;
  node.scale_up_bandwidth = nvlink4;
  const auto busbw = [&](CollectiveAlgo a) {
    return S / choose_collective(CollectiveKind::ALL_REDUCE, node, Bytes(S), h100.collectives, a).time_idle.value *
           factor / 1e9;
  };
  CHECK(busbw(CollectiveAlgo::NVLS) == Approx(480).epsilon(0.01));
  CHECK(busbw(CollectiveAlgo::RING) == Approx(370).epsilon(0.01));
}

TEST_CASE("the A100 profile reproduces NCCL all-reduce on 2, 4 and 8 GPUs: 15% from 64 MiB, 30% below", "[cost]") {
  // nccl-tests all_reduce_perf busbw (GB/s) on an 8-GPU NVSwitch A100 node, 1 MiB … 1 GiB (vTrain
  // trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT, VIA-Research/vTrain@f8dda84). busbw = S/t · 2(n-1)/n.
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
      GroupShape node;  // NCCL's own choice of algorithm and protocol (no NVLS on A100)
      node.ranks = row.n;
      node.scale_up_bandwidth = nvlink3;
      node.arch = GpuArch::AMPERE;
      const double t = choose_collective(CollectiveKind::ALL_REDUCE, node, Bytes(S), a100.collectives).time_idle.value;
      const double busbw = S / t * busbw_factor(CollectiveKind::ALL_REDUCE, row.n) / 1e9;
      INFO("n = " << row.n << ", " << mib[i] << " MiB: modelled " << busbw << " GB/s, measured " << row.busbw[i]);
      CHECK(busbw == Approx(row.busbw[i]).epsilon(mib[i] >= 64 ? 0.15 : 0.30));
    }
}

TEST_CASE("across nodes the A100 and H100 profiles give NCCL's measured busbw per NIC", "[cost]") {
  // AddyLaddy, NVIDIA/nccl#812: DGX A100 with 8 x 200 Gb/s IB, '192GB/s AllReduce BusBW' = 24 GB/s
  // per NIC; AddyLaddy, nccl-tests#290: NDR 400 Gb/s '46-48GB/s per NIC'. An
  // all-reduce over 16 nodes (one rank per node on each rail: the rail's ring), 4 GiB.
  const auto busbw_per_nic = [](const char* device, double nic_bytes_per_s) {
    const DeviceSpec d = DeviceSpec::parse(
        ParamReader::load_file(std::string(TRAINSIM_SOURCE_DIR "/topologies/devices/") + device + ".json"));
    const double S = 4.0 * (1 << 30);
    GroupShape rail;  // measured with NCCL_ALGO=RING (sjeaugey, NVIDIA/nccl-tests#196)
    rail.ranks = rail.nodes = 16;
    rail.scale_out_bandwidth = BytesPerSecond(nic_bytes_per_s);
    const double t = choose_collective(CollectiveKind::ALL_REDUCE, rail, Bytes(S), d.collectives, CollectiveAlgo::RING)
                         .time_idle.value;
    return S / t * busbw_factor(CollectiveKind::ALL_REDUCE, 16) / 1e9;
  };
  CHECK(busbw_per_nic("a100-sxm-80gb", 25e9) * 8 == Approx(192).epsilon(0.05));
  const double ndr = busbw_per_nic("h100-sxm", 50e9);
  CHECK(ndr >= 46 * 0.98);
  CHECK(ndr <= 48 * 1.02);
}

// ---- NCCL's algorithms and protocols (sim/cost/nccl_tuning.hpp, sim/cost/collective_flows.hpp).

namespace {

// The idle-network price of a set of flows: every member has an NVLink port and a NIC, each with
// an egress and an ingress side; a flow between members of one node loads the NVLink ports, one
// between nodes the NICs. The time is the most loaded port's load / capacity.
double idle_price(const std::vector<MemberFlow>& flows, const std::vector<int64_t>& node_of, double nvlink,
                  double nic) {
  const size_t n = node_of.size();
  std::vector<double> up_out(n), up_in(n), net_out(n), net_in(n);
  for (const auto& f : flows) {
    const auto a = static_cast<size_t>(f.from), b = static_cast<size_t>(f.to);
    const bool same = node_of[a] == node_of[b];
    (same ? up_out : net_out)[a] += f.bytes.value;
    (same ? up_in : net_in)[b] += f.bytes.value;
  }
  double t = 0;
  for (size_t i = 0; i < n; ++i)
    t = std::max({t, up_out[i] / nvlink, up_in[i] / nvlink, net_out[i] / nic, net_in[i] / nic});
  return t;
}

std::vector<std::vector<int64_t>> even_nodes(int64_t nodes, int64_t ppn) {
  std::vector<std::vector<int64_t>> by_node(static_cast<size_t>(nodes));
  for (int64_t i = 0; i < nodes * ppn; ++i) by_node[static_cast<size_t>(i / ppn)].push_back(i);
  return by_node;
}

std::vector<int64_t> node_index(const std::vector<std::vector<int64_t>>& by_node) {
  std::vector<int64_t> node_of;
  for (size_t k = 0; k < by_node.size(); ++k)
    for (int64_t m : by_node[k]) {
      if (node_of.size() <= static_cast<size_t>(m)) node_of.resize(static_cast<size_t>(m) + 1);
      node_of[static_cast<size_t>(m)] = static_cast<int64_t>(k);
    }
  return node_of;
}

// NCCL's default constants (NVIDIA/nccl src/graph/tuning.cc@5067397) as a profile; the H100
// profile's tier efficiencies.
CollectiveConstants nccl_defaults() {
  CollectiveConstants c = constants();  // NCCL's Simple ring latencies
  c.scale_up_efficiency = 0.822;
  c.scale_out_efficiency = 0.94;
  c.nvls_efficiency = 0.6095;
  c.nvls_latency = Seconds(25e-6);
  return c;
}

}  // namespace

TEST_CASE("the algorithm registry lists NCCL's four and the hierarchical one, and parses their names", "[cost]") {
  std::vector<std::string> names, nccl;
  for (const auto& e : collective_algorithms()) {
    names.push_back(e.name);
    if (e.nccl) nccl.push_back(e.name);
    CHECK(parse_algo(e.name) == e.algo);
    CHECK(std::string(to_string(e.algo)) == e.name);
    CHECK(std::string(e.description).size() > 20);
  }
  CHECK(names == std::vector<std::string>{"ring", "tree", "nvls", "nvls_tree", "hierarchical", "torus"});
  // NCCL's tuning.cc knows NCCL_ALGO_RING, TREE, NVLS and NVLS_TREE (plus CollNet and PAT, not here).
  CHECK(nccl == std::vector<std::string>{"ring", "tree", "nvls", "nvls_tree"});
  CHECK_FALSE(parse_algo("Ring").has_value());
  CHECK_FALSE(parse_algo("collnet").has_value());
}

TEST_CASE("ring flows are the engine's ring hops, channel by channel", "[cost]") {
  const CollectiveConstants c = constants();
  const CollectiveChoice ring{CollectiveAlgo::RING, Protocol::SIMPLE, Seconds(0), 1.0, Seconds(0)};
  const double S = 64 * MiB;
  using Hop = std::pair<int64_t, int64_t>;
  const auto hops = [](const std::vector<MemberFlow>& flows) {
    std::vector<Hop> h;
    for (const auto& f : flows) h.emplace_back(f.from, f.to);
    return h;
  };
  SECTION("2 nodes x 4: four channels, each node's members rotated by the channel") {
    const auto flows = collective_flows(ring, CollectiveKind::ALL_REDUCE, {{0, 1, 2, 3}, {4, 5, 6, 7}}, Bytes(S), c);
    const std::vector<Hop> expected = {
        {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0},  // channel 0: 0 1 2 3 | 4 5 6 7
        {1, 2}, {2, 3}, {3, 0}, {0, 5}, {5, 6}, {6, 7}, {7, 4}, {4, 1},  // channel 1: 1 2 3 0 | 5 6 7 4
        {2, 3}, {3, 0}, {0, 1}, {1, 6}, {6, 7}, {7, 4}, {4, 5}, {5, 2},  // channel 2: 2 3 0 1 | 6 7 4 5
        {3, 0}, {0, 1}, {1, 2}, {2, 7}, {7, 4}, {4, 5}, {5, 6}, {6, 3},  // channel 3: 3 0 1 2 | 7 4 5 6
    };
    CHECK(hops(flows) == expected);
    for (const auto& f : flows) CHECK(f.bytes.value == 2.0 * 7 / 8 * S / 4);  // 2(n-1)/n S over 4 channels
  }
  SECTION("2 GB200 NVL72 domains: NCCL's 64 channels at most, not 72") {
    // NVIDIA/nccl src/include/device.h @5067397 (NCCL 2.30.7): #define MAXCHANNELS 64.
    std::vector<std::vector<int64_t>> racks(2);
    for (int64_t g = 0; g < 144; ++g) racks[static_cast<size_t>(g / 72)].push_back(g);
    const auto flows = collective_flows(ring, CollectiveKind::ALL_REDUCE, racks, Bytes(S), c);
    CHECK(flows.size() == 64u * 144u);
    for (const auto& f : flows) CHECK(f.bytes.value == Approx(2.0 * 143 / 144 * S / 64));
    CHECK(nccl_channels(72) == 64);
    CHECK(nccl_channels(8) == 8);
  }
  SECTION("one node x 4: one channel") {
    const auto flows = collective_flows(ring, CollectiveKind::ALL_GATHER, {{0, 1, 2, 3}}, Bytes(S), c);
    CHECK(hops(flows) == std::vector<Hop>{{0, 1}, {1, 2}, {2, 3}, {3, 0}});
    for (const auto& f : flows) CHECK(f.bytes.value == 3.0 / 4 * S);
  }
  SECTION("3 nodes x 2, members not in index order") {
    const auto flows = collective_flows(ring, CollectiveKind::REDUCE_SCATTER, {{5, 0}, {1, 4}, {2, 3}}, Bytes(S), c);
    const std::vector<Hop> expected = {
        {5, 0}, {0, 1}, {1, 4}, {4, 2}, {2, 3}, {3, 5},  // channel 0: 5 0 | 1 4 | 2 3
        {0, 5}, {5, 4}, {4, 1}, {1, 3}, {3, 2}, {2, 0},  // channel 1: 0 5 | 4 1 | 3 2
    };
    CHECK(hops(flows) == expected);
    for (const auto& f : flows) CHECK(f.bytes.value == 5.0 / 6 * S / 2);
  }
  SECTION("a protocol's bandwidth factor scales every hop") {
    CollectiveChoice ll = ring;
    ll.protocol = Protocol::LL;
    ll.bandwidth_factor = 0.5;
    for (const auto& f : collective_flows(ll, CollectiveKind::ALL_REDUCE, {{0, 1, 2, 3}}, Bytes(S), c))
      CHECK(f.bytes.value == 2.0 * 3 / 4 * S * 2);
  }
  CHECK(collective_flows(ring, CollectiveKind::ALL_REDUCE, {{0}}, Bytes(S), c).empty());
}

TEST_CASE("NCCL's double binary tree: node 4 of 4 nodes as in trees.cc's picture", "[cost]") {
  // ncclGetBtree(4): 0 -> 2 -> {1, 3}; the mirror (even count): 3 -> 1 -> {0, 2}.
  CHECK(dtree_parents(4, 0) == std::array<int64_t, 2>{-1, 1});
  CHECK(dtree_parents(4, 1) == std::array<int64_t, 2>{2, 3});
  CHECK(dtree_parents(4, 2) == std::array<int64_t, 2>{0, 1});
  CHECK(dtree_parents(4, 3) == std::array<int64_t, 2>{2, -1});
  // 13 ranks (odd: shift by one), trees.cc's second picture: 1 -> 9 -> {5, 0}; 12's parent is 11.
  CHECK(dtree_parents(13, 1)[1] == -1);
  CHECK(dtree_parents(13, 9)[1] == 1);
  CHECK(dtree_parents(13, 0)[1] == 9);
  CHECK(dtree_parents(13, 12)[1] == 11);
  CHECK(dtree_parents(13, 8)[0] == 0);
}

TEST_CASE("tree flows: per-node network bytes follow the double tree, NVLink bytes the chains", "[cost]") {
  const CollectiveConstants c = constants();
  const CollectiveChoice tree{CollectiveAlgo::TREE, Protocol::SIMPLE, Seconds(0), 1.0, Seconds(0)};
  const double S = 256 * MiB;
  const int64_t ppn = 4;
  const auto by_node = even_nodes(4, ppn);
  const auto node_of = node_index(by_node);
  const auto flows = collective_flows(tree, CollectiveKind::ALL_REDUCE, by_node, Bytes(S), c);
  std::vector<double> net_out(4), net_in(4), nvl_out(16), nic_out(16);
  for (const auto& f : flows) {
    const auto a = static_cast<size_t>(node_of[size_t(f.from)]), b = static_cast<size_t>(node_of[size_t(f.to)]);
    if (a == b) {
      nvl_out[size_t(f.from)] += f.bytes.value;
    } else {
      net_out[a] += f.bytes.value;
      net_in[b] += f.bytes.value;
      nic_out[size_t(f.from)] += f.bytes.value;
    }
  }
  // Tree edges per node, from the trees above: tree 0 {0-2, 2-1, 2-3}, tree 1 {3-1, 1-0, 1-2}.
  // Each edge carries S/2 each way (reduce up, broadcast down) over all channels.
  const double edges[4] = {2, 4, 4, 2};
  for (size_t k = 0; k < 4; ++k) {
    INFO("node " << k);
    CHECK(net_out[k] == Approx(edges[k] * S / 2).epsilon(1e-12));
    CHECK(net_in[k] == Approx(edges[k] * S / 2).epsilon(1e-12));
    // channel c leaves through member c: the node's network bytes split evenly over its NICs
    for (int64_t m : by_node[k]) CHECK(nic_out[size_t(m)] == Approx(edges[k] * S / 2 / ppn).epsilon(1e-12));
  }
  // All nodes: 2 trees x (nodes - 1) edges x 2 directions x S/2.
  CHECK(net_out[0] + net_out[1] + net_out[2] + net_out[3] == Approx(2 * 3 * S).epsilon(1e-12));
  // Chains: a GPU sends S/(2 ppn) up and down in ppn - 1 of ppn channels, both trees: 2 S (ppn-1)/ppn.
  for (double b : nvl_out) CHECK(b == Approx(2 * S * (ppn - 1) / ppn).epsilon(1e-12));
  CHECK(dtree_max_edges(4) == 4);
  CHECK(dtree_max_edges(1) == 0);
}

TEST_CASE("choose_collective's idle time is its latency plus the idle price of its flows", "[cost]") {
  const CollectiveConstants c = nccl_defaults();
  const double up = 450e9, out = 50e9;
  struct Case {
    int64_t nodes, ppn;
    bool nvls;
    double bytes;
  };
  for (const Case& k : {Case{1, 8, false, 1 * MiB}, Case{1, 8, true, 256 * MiB}, Case{4, 8, false, 4 * MiB},
                        Case{16, 8, false, 1024 * MiB}, Case{16, 8, true, 1024 * MiB}, Case{5, 4, true, 64 * MiB},
                        Case{3, 1, false, 8 * MiB}})
    for (CollectiveAlgo a : {CollectiveAlgo::RING, CollectiveAlgo::TREE, CollectiveAlgo::NVLS,
                             CollectiveAlgo::NVLS_TREE, CollectiveAlgo::HIERARCHICAL}) {
      const GroupShape g{k.nodes * k.ppn,     k.nodes,         k.nvls, BytesPerSecond(up),
                         BytesPerSecond(out), GpuArch::HOPPER, {}};
      if (cannot_run(a, CollectiveKind::ALL_REDUCE, g)) continue;
      INFO(to_string(a) << " " << k.nodes << " x " << k.ppn << ", " << k.bytes / MiB << " MiB");
      const auto by_node = even_nodes(k.nodes, k.ppn);
      const CollectiveChoice ch = choose_collective(CollectiveKind::ALL_REDUCE, g, Bytes(k.bytes), c, a);
      CHECK(ch.algo == a);
      const double price = idle_price(collective_flows(ch, CollectiveKind::ALL_REDUCE, by_node, Bytes(k.bytes), c),
                                      node_index(by_node), up * c.scale_up_efficiency, out * c.scale_out_efficiency);
      CHECK(ch.time_idle.value == Approx(ch.latency.value + price).epsilon(1e-9));
    }
}

TEST_CASE("16 nodes x 8: the tree wins small all-reduces and the ring large ones, LL tiny and Simple large", "[cost]") {
  // NCCL tuning.cc@5067397 defaults, in us: baseLat Ring {LL 6.6, LL128 14,
  // Simple 8.4}, Tree {6.8, 14, 8.4}; hwLat NVLink Ring {0.6, 1.9, 3.4}, Tree {0.6, 1.25, 4.0};
  // NET Ring {2.7, 4.0, 14}, Tree {5.0, 8.5, 14}. Bandwidth refinements: ring LL x0.5 capped at
  // llMaxBw (20.4 GB/s bus, 3+ nodes, Intel), ring LL128 x0.92; tree all-reduce x0.92, LL x1/3.8
  // (capped at llMaxBw), LL128 x120/128; treeCorrectionFactor (1 above 256 MB; at 1 KiB,
  // log2(1024/64) = 4: LL 0.9, LL128 1.0, Simple 0.9).
  const CollectiveConstants c = nccl_defaults();
  const double up = 450e9 * 0.822, nic = 50e9 * 0.94, n = 128, ppn = 8;
  const GroupShape g{128, 16, false, BytesPerSecond(450e9), BytesPerSecond(50e9), GpuArch::HOPPER, {}};
  struct Option {
    CollectiveAlgo a;
    Protocol p;
    double latency_us, factor;
  };
  const auto options = [&](double S, bool tiny) {
    // ring: ppn channels; a GPU's NIC carries 1/ppn of the bytes per rank, its NVLink (ppn-1)/ppn.
    const double per = 2 * (n - 1) / n * S;
    const double ring = std::max(per / ppn / nic, per * (ppn - 1) / ppn / up);
    // tree: every node is interior (3 edges) in one tree and a leaf (1 edge) in the other; 4
    // edges x S/2 over its 8 NICs. Chains: 2 S (ppn-1)/ppn per GPU on NVLink.
    const double tree = std::max(4 * S / 2 / ppn / nic, 2 * S * (ppn - 1) / ppn / up);
    const double ll_cap = 20.4e9;
    const double steps = 2 * (n - 1), log2_nodes = 4;
    std::vector<std::pair<Option, double>> out;
    const auto add = [&](Option o, double bw_term) { out.push_back({o, o.latency_us * 1e-6 + bw_term / o.factor}); };
    add({CollectiveAlgo::RING, Protocol::LL, 6.6 + steps * 2.7, std::min(0.5, ll_cap / (per / ring))}, ring);
    add({CollectiveAlgo::RING, Protocol::LL128, 14 + steps * 4.0, 0.92}, ring);
    add({CollectiveAlgo::RING, Protocol::SIMPLE, 8.4 + steps * 14, 1.0}, ring);
    const double corr_ll = tiny ? 0.9 : 1.0, corr_ll128 = 1.0, corr_simple = tiny ? 0.9 : 1.0;
    add({CollectiveAlgo::TREE, Protocol::LL, 6.8 + 2 * (7 * 0.6 + log2_nodes * 5.0),
         std::min(0.92 / 3.8, ll_cap / (2 * S / tree)) * corr_ll},
        tree);
    add({CollectiveAlgo::TREE, Protocol::LL128, 14 + 2 * (7 * 1.25 + log2_nodes * 8.5), 0.92 * 120 / 128 * corr_ll128},
        tree);
    add({CollectiveAlgo::TREE, Protocol::SIMPLE, 8.4 + 2 * (7 * 4.0 + log2_nodes * 14), 0.92 * corr_simple}, tree);
    return out;
  };
  for (auto [S, tiny] : {std::pair{1024.0, true}, std::pair{16.0 * 1024 * MiB, false}}) {
    INFO(S << " bytes");
    const auto opts = options(S, tiny);
    const auto best = std::min_element(opts.begin(), opts.end(), [](auto& x, auto& y) { return x.second < y.second; });
    const CollectiveChoice ch = choose_collective(CollectiveKind::ALL_REDUCE, g, Bytes(S), c);
    CHECK(ch.algo == best->first.a);
    CHECK(ch.protocol == best->first.p);
    CHECK(ch.latency.value == Approx(best->first.latency_us * 1e-6).epsilon(1e-9));
    CHECK(ch.bandwidth_factor == Approx(best->first.factor).epsilon(1e-9));
    CHECK(ch.time_idle.value == Approx(best->second).epsilon(1e-9));
    if (tiny) {
      CHECK(ch.algo == CollectiveAlgo::TREE);
      CHECK(ch.protocol == Protocol::LL);
    } else {
      CHECK(ch.algo == CollectiveAlgo::RING);
      CHECK(ch.protocol == Protocol::SIMPLE);
    }
  }
  // With NVLink SHARP the NVLS tree, not the ring, carries the large ones (its latency is
  // logarithmic: 25 + 2 log2(16) x 20.9 us).
  GroupShape sharp = g;
  sharp.nvls = true;
  const CollectiveChoice big = choose_collective(CollectiveKind::ALL_REDUCE, sharp, Bytes(16.0 * 1024 * MiB), c);
  CHECK(big.algo == CollectiveAlgo::NVLS_TREE);
  CHECK(big.latency.value == Approx((25 + 2 * 4 * 20.9) * 1e-6).epsilon(1e-9));
  CHECK(choose_collective(CollectiveKind::ALL_REDUCE, sharp, Bytes(1024), c).algo == CollectiveAlgo::TREE);
  // All-gather: only the ring; LL when tiny, Simple when large.
  CHECK(choose_collective(CollectiveKind::ALL_GATHER, g, Bytes(1024), c).protocol == Protocol::LL);
  CHECK(choose_collective(CollectiveKind::ALL_GATHER, g, Bytes(16.0 * 1024 * MiB), c).protocol == Protocol::SIMPLE);
}

TEST_CASE("the A100 profile with NCCL's protocol choice reproduces 8-GPU all-reduce busbw: 15% from 64 MiB, 30% below",
          "[cost]") {
  // nccl-tests all_reduce_perf busbw (GB/s), 8-GPU NVSwitch A100 node (vTrain
  // trace/a100/AR_GPU8_1M_1024M_LUT, VIA-Research/vTrain@f8dda84). The flows are priced on each GPU's
  // NVLink port at 300 GB/s (DGX A100 datasheet) x the profile's scale_up_efficiency.
  const DeviceSpec a100 =
      DeviceSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/devices/a100-sxm-80gb.json"));
  const double nvlink = 300e9;
  const GroupShape g{8, 1, false, BytesPerSecond(nvlink), BytesPerSecond(0), gpu_arch(a100.name), {}};
  CHECK(g.arch == GpuArch::AMPERE);
  const auto by_node = even_nodes(1, 8);
  const double mib[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  const double measured[] = {19.8, 39.4, 76.6, 109.3, 126.3, 164.0, 202.5, 202.1, 217.2, 224.2, 229.3};
  for (size_t i = 0; i < 11; ++i) {
    const double S = mib[i] * MiB;
    const CollectiveChoice ch = choose_collective(CollectiveKind::ALL_REDUCE, g, Bytes(S), a100.collectives);
    const auto flows = collective_flows(ch, CollectiveKind::ALL_REDUCE, by_node, Bytes(S), a100.collectives);
    const double t =
        ch.latency.value + idle_price(flows, node_index(by_node), nvlink * a100.collectives.scale_up_efficiency, 1);
    const double busbw = S / t * busbw_factor(CollectiveKind::ALL_REDUCE, 8) / 1e9;
    INFO(mib[i] << " MiB: " << to_string(ch.algo) << "/" << to_string(ch.protocol) << " modelled " << busbw
                << " GB/s, measured " << measured[i]);
    CHECK(busbw == Approx(measured[i]).epsilon(mib[i] >= 64 ? 0.15 : 0.30));
    if (mib[i] >= 64) CHECK(ch.protocol == Protocol::SIMPLE);
  }
}

TEST_CASE("an algorithm that cannot run says why, and forcing it throws", "[cost]") {
  using K = CollectiveKind;
  const CollectiveConstants c = nccl_defaults();
  const BytesPerSecond up(450e9), out(50e9);
  const GroupShape one_node{8, 1, true, up, out, GpuArch::HOPPER, {}};
  const GroupShape two_nodes{16, 2, true, up, out, GpuArch::HOPPER, {}};
  const GroupShape no_sharp{8, 1, false, up, out, GpuArch::AMPERE, {}};
  const auto why = [](CollectiveAlgo a, K k, const GroupShape& g) { return cannot_run(a, k, g).value_or(""); };
  CHECK(why(CollectiveAlgo::TREE, K::ALL_GATHER, two_nodes) == "tree runs all-reduce only, not all-gather");
  CHECK(why(CollectiveAlgo::NVLS, K::ALL_REDUCE, no_sharp) == "nvls needs an NVSwitch domain with NVLink SHARP");
  CHECK(why(CollectiveAlgo::NVLS, K::ALL_REDUCE, two_nodes).find("inside one node") != std::string::npos);
  CHECK(why(CollectiveAlgo::NVLS, K::REDUCE_SCATTER, one_node).find("all-reduce only") != std::string::npos);
  CHECK(why(CollectiveAlgo::NVLS_TREE, K::ALL_REDUCE, one_node).find("two or more nodes") != std::string::npos);
  CHECK(why(CollectiveAlgo::NVLS_TREE, K::ALL_REDUCE, GroupShape{16, 2, false, up, out, GpuArch::AMPERE, {}})
            .find("NVLink SHARP") != std::string::npos);
  for (K k : {K::ALL_REDUCE, K::ALL_GATHER, K::REDUCE_SCATTER, K::ALL_TO_ALL, K::SEND_RECV})
    CHECK_FALSE(cannot_run(CollectiveAlgo::RING, k, two_nodes).has_value());
  CHECK_FALSE(cannot_run(CollectiveAlgo::TREE, K::ALL_REDUCE, one_node).has_value());  // a chain inside the node
  CHECK_FALSE(cannot_run(CollectiveAlgo::NVLS, K::ALL_REDUCE, one_node).has_value());
  CHECK_FALSE(cannot_run(CollectiveAlgo::NVLS_TREE, K::ALL_REDUCE, two_nodes).has_value());
  CHECK_THROWS_WITH(choose_collective(K::ALL_REDUCE, no_sharp, Bytes(MiB), c, CollectiveAlgo::NVLS),
                    "nvls needs an NVSwitch domain with NVLink SHARP");
  CHECK_THROWS_AS(choose_collective(K::ALL_GATHER, two_nodes, Bytes(MiB), c, CollectiveAlgo::TREE),
                  std::invalid_argument);
  // Forcing an algorithm that can run keeps it, whatever is faster.
  CHECK(choose_collective(K::ALL_REDUCE, two_nodes, Bytes(1024), c, CollectiveAlgo::RING).algo == CollectiveAlgo::RING);
  // Inside one NVLS node, a large all-reduce goes to NVLS (t = 25 us + S / (B * nvls_efficiency)).
  const CollectiveChoice nvls = choose_collective(K::ALL_REDUCE, one_node, Bytes(1024 * MiB), c);
  CHECK(nvls.algo == CollectiveAlgo::NVLS);
  CHECK(nvls.time_idle.value == Approx(25e-6 + 1024 * MiB / (450e9 * 0.6095)).epsilon(1e-9));
  // One rank: nothing to do.
  const CollectiveChoice solo =
      choose_collective(K::ALL_REDUCE, GroupShape{1, 1, false, up, out, GpuArch::HOPPER, {}}, Bytes(MiB), c);
  CHECK(solo.time_idle.value == 0);
}

TEST_CASE("hierarchical: a ring inside each node and one per rail, pipelined: forced only", "[cost]") {
  // N nodes of p GPUs, buffer S. All-reduce: reduce-scatter then all-gather inside the node, each
  // GPU sending (p-1)/p S twice over NVLink: 2(p-1)/p S; an all-reduce of S/p on each rail across
  // the nodes, each GPU sending 2(N-1)/N S/p through its NIC. All-gather and reduce-scatter: half of
  // each. Pipelined, so the slower port sets the bandwidth term; one launch's base latency plus
  // 2(p-1) NVLink steps and 2(N-1) network steps (the ring pays 2(Np-1) network steps).
  using K = CollectiveKind;
  const CollectiveConstants c = nccl_defaults();
  const double up = 300e9, out = 25e9;  // A100: NVLink 3, one HDR NIC per GPU
  const double S = 512 * MiB;
  const int64_t N = 4, p = 8;
  const GroupShape g{N * p, N, false, BytesPerSecond(up), BytesPerSecond(out), GpuArch::AMPERE, {}};
  const auto by_node = even_nodes(N, p);
  const auto node_of = node_index(by_node);
  for (K k : {K::ALL_REDUCE, K::ALL_GATHER, K::REDUCE_SCATTER}) {
    INFO(to_string(k));
    const double phases = k == K::ALL_REDUCE ? 2.0 : 1.0;
    const CollectiveChoice ch = choose_collective(k, g, Bytes(S), c, CollectiveAlgo::HIERARCHICAL);
    CHECK(ch.algo == CollectiveAlgo::HIERARCHICAL);
    CHECK(ch.protocol == Protocol::SIMPLE);
    CHECK(ch.latency.value == Approx(c.base_latency.value + phases * (p - 1) * c.scale_up_step_latency.value +
                                     phases * (N - 1) * c.scale_out_step_latency.value)
                                  .epsilon(1e-12));
    const auto flows = collective_flows(ch, k, by_node, Bytes(S), c);
    std::vector<double> nvl_out(N * p), nic_out(N * p), nic_in(N * p);
    for (const auto& f : flows) {
      if (node_of[size_t(f.from)] == node_of[size_t(f.to)]) {
        nvl_out[size_t(f.from)] += f.bytes.value;
      } else {
        nic_out[size_t(f.from)] += f.bytes.value;
        nic_in[size_t(f.to)] += f.bytes.value;
        CHECK(f.from % p == f.to % p);  // on its rail: the same local index on both nodes
      }
    }
    const double nvl = phases * (p - 1) / p * S, nic = phases * double(N - 1) / N * S / p;
    for (int64_t m = 0; m < N * p; ++m) {
      CHECK(nvl_out[size_t(m)] == Approx(nvl).epsilon(1e-12));
      CHECK(nic_out[size_t(m)] == Approx(nic).epsilon(1e-12));
      CHECK(nic_in[size_t(m)] == Approx(nic).epsilon(1e-12));
    }
    const double bw = std::max(nvl / (up * c.scale_up_efficiency), nic / (out * c.scale_out_efficiency));
    CHECK(ch.time_idle.value == Approx(ch.latency.value + bw).epsilon(1e-9));
    CHECK(idle_price(flows, node_of, up * c.scale_up_efficiency, out * c.scale_out_efficiency) ==
          Approx(bw).epsilon(1e-9));
  }
  // Fewer steps than the Simple ring: 14 NVLink + 6 network against 62 network steps.
  const double ring = c.base_latency.value + 62 * c.scale_out_step_latency.value;
  CHECK(collective_latency(K::ALL_REDUCE, N * p, true, c).value == Approx(ring).epsilon(1e-12));
  CHECK(choose_collective(K::ALL_REDUCE, g, Bytes(S), c, CollectiveAlgo::HIERARCHICAL).latency.value <
        ring - 40 * c.scale_out_step_latency.value);
  // NCCL does not run it: its tuning model never picks it, from 1 KiB to 4 GiB, whatever the shape.
  for (const GroupShape& s :
       {g, GroupShape{8, 1, true, BytesPerSecond(450e9), BytesPerSecond(50e9), GpuArch::HOPPER, {}},
        GroupShape{1024, 128, false, BytesPerSecond(up), BytesPerSecond(out), GpuArch::AMPERE, {}}})
    for (double b = 1024; b <= 4096 * MiB; b *= 4)
      CHECK(choose_collective(K::ALL_REDUCE, s, Bytes(b), c).algo != CollectiveAlgo::HIERARCHICAL);
  CHECK(cannot_run(CollectiveAlgo::HIERARCHICAL, K::ALL_TO_ALL, g).value_or("") ==
        "hierarchical runs all-reduce, all-gather and reduce-scatter, not all-to-all");
  // One node: the node's ring; one GPU per node: the rail's ring (the same bandwidth term as the ring).
  const GroupShape one{8, 1, false, BytesPerSecond(up), BytesPerSecond(out), GpuArch::AMPERE, {}};
  CHECK(
      choose_collective(K::ALL_REDUCE, one, Bytes(S), c, CollectiveAlgo::HIERARCHICAL).time_idle.value ==
      Approx(choose_collective(K::ALL_REDUCE, one, Bytes(S), c, CollectiveAlgo::RING).time_idle.value).epsilon(1e-12));
}

TEST_CASE("all-to-all: every member sends S/n to each other at once, priced by its busiest port", "[cost]") {
  // (n-1)/n of the buffer per rank, all of it in flight at once: one step of latency.
  const RingCost r = ring_cost(CollectiveKind::ALL_TO_ALL, Bytes(64 * MiB), 8);
  CHECK(r.bytes_per_rank.value == Approx(64 * MiB * 7.0 / 8.0));
  CHECK(r.steps == 1);
  const CollectiveConstants c = nccl_defaults();
  const double up = 450e9, out = 50e9, S = 256 * MiB;
  for (auto [nodes, ppn] : {std::pair<int64_t, int64_t>{1, 8}, {2, 8}, {8, 8}, {4, 1}}) {
    const int64_t n = nodes * ppn;
    INFO(nodes << " x " << ppn);
    const GroupShape g{n, nodes, false, BytesPerSecond(up), BytesPerSecond(out), GpuArch::HOPPER, {}};
    const CollectiveChoice ch = choose_collective(CollectiveKind::ALL_TO_ALL, g, Bytes(S), c);
    const auto by_node = even_nodes(nodes, ppn);
    const auto flows = collective_flows(ch, CollectiveKind::ALL_TO_ALL, by_node, Bytes(S), c);
    REQUIRE(flows.size() == static_cast<size_t>(n * (n - 1)));
    for (const auto& f : flows) CHECK(f.bytes.value == Approx(S / double(n)));
    // Each GPU: S (ppn - 1) / n over NVLink, S (n - ppn) / n through its NIC; the busier sets the time.
    const double nvlink = S * double(ppn - 1) / double(n) / (up * c.scale_up_efficiency);
    const double nic = S * double(n - ppn) / double(n) / (out * c.scale_out_efficiency);
    const double price =
        idle_price(flows, node_index(by_node), up * c.scale_up_efficiency, out * c.scale_out_efficiency);
    CHECK(price == Approx(std::max(nvlink, nic)).epsilon(1e-12));
    const Seconds step = nodes > 1 ? c.scale_out_step_latency : c.scale_up_step_latency;
    CHECK(ch.latency.value == Approx((c.base_latency + step).value).epsilon(1e-12));
    CHECK(ch.time_idle.value == Approx(ch.latency.value + price).epsilon(1e-9));
  }
}
