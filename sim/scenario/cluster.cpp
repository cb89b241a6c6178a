#include "sim/scenario/cluster.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/core/quantity_range.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/scenario/schema.hpp"
#include "sim/scenario/torus_shape.hpp"

namespace sim {

static DeviceSpec load_device(const ParamReader& at, const std::string& data_dir) {
  std::string path = device_file(at.as_string(), data_dir, at.directory());
  if (path.empty()) {
    auto [what, expected] = unknown_device(at.as_string(), data_dir, at.directory());
    at.fail(what, expected);
  }
  // Parsed once per file and process (search, sweeps, validation and fuzzing parse one profile for
  // many scenarios), again should the file change.
  std::error_code time_error, size_error;
  const auto written = std::filesystem::last_write_time(path, time_error);
  const auto size = std::filesystem::file_size(path, size_error);
  if (time_error || size_error) return DeviceSpec::parse(device_profile(path, data_dir));  // it says what is wrong
  struct Parsed {
    std::filesystem::file_time_type written;
    std::uintmax_t size;
    DeviceSpec device;
  };
  static std::mutex mutex;
  static std::map<std::string, Parsed> parsed;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = parsed.find(path);
    if (it != parsed.end() && it->second.written == written && it->second.size == size) return it->second.device;
  }
  DeviceSpec d = DeviceSpec::parse(device_profile(path, data_dir));
  std::lock_guard<std::mutex> lock(mutex);
  parsed.insert_or_assign(path, Parsed{written, size, d});
  return d;
}

// A torus's shape: dims whose product, a slice, is whole nodes (hosts) and tiles the cluster.
static void parse_torus(const ParamReader& up, int64_t node_gpus, ClusterSpec& c) {
  const auto d = up.at("dims");
  const KeySpec& dims = key_spec("/cluster/scale_up/dims");
  if (!d.is_array() || d.size() < static_cast<size_t>(dims.min) || d.size() > static_cast<size_t>(dims.max))
    d.fail("is not a list of " + std::to_string(dims.min) + " to " + std::to_string(dims.max) + " dimensions",
           "chips along each dimension, e.g. [4, 4, 4]");
  const KeySpec& dim = key_spec("/cluster/scale_up/dims/*");
  int64_t slice = 1;
  std::string shape;
  for (size_t i = 0; i < d.size(); ++i) {
    c.scale_up.dims.push_back(d[i].as_count(dim.min, dim.max));
    slice *= c.scale_up.dims.back();
    if (slice > dim.max) d.fail("has more chips than a cluster may (" + std::to_string(dim.max) + ")", "fewer");
    shape += (i ? "x" : "") + std::to_string(c.scale_up.dims.back());
  }
  if (c.gpus % slice != 0)
    d.fail(shape + " = " + std::to_string(slice) + " chips does not divide the cluster's " + std::to_string(c.gpus) +
               " (the cluster is whole tori)",
           "dimensions whose product divides gpus");
  if (slice % node_gpus != 0)
    d.fail(shape + " = " + std::to_string(slice) + " chips is not whole nodes of " + std::to_string(node_gpus),
           "a multiple of gpus_per_node");
  if (auto t = up.find("twisted")) {
    c.scale_up.twisted = t->as_bool();
    if (c.scale_up.twisted && !twistable(c.scale_up.dims))
      t->fail("a " + shape + " torus cannot be twisted",
              "k x k x 2k or k x 2k x 2k with k >= 2 (TPU v4's twisted shapes)");
  }
  if (auto cube = up.find("cube")) {
    if (!cube->is_array() || cube->size() != d.size())
      cube->fail("is not one extent per dimension of dims " + shape, "a list as long as dims, e.g. [4, 4, 4]");
    for (size_t i = 0; i < cube->size(); ++i) {
      const KeySpec& extent = key_spec("/cluster/scale_up/cube/*");
      c.scale_up.cube.push_back((*cube)[i].as_count(extent.min, extent.max));
      if (c.scale_up.dims[i] % c.scale_up.cube.back() != 0)
        (*cube)[i].fail(std::to_string(c.scale_up.cube.back()) + " does not divide the dimension's " +
                            std::to_string(c.scale_up.dims[i]) + " chips",
                        "a divisor of dims[" + std::to_string(i) + "]");
    }
  }
  if (auto o = up.find("ocs")) {
    c.scale_up.ocs = o->as_bool();
    if (c.scale_up.ocs && c.scale_up.cube.empty())
      o->fail("needs the cubes whose faces the switches join", "a \"cube\" beside it, e.g. [4, 4, 4]");
  }
  c.scale_up.domain_gpus = slice;
  c.scale_up.nvls = false;
}

// A direct-connect network: nodes (each its own NVLink domain) whose ports carry circuits to each
// other; the user's strides, or none (designed for the plan when it is planned).
static void parse_direct(const ParamReader& out, int64_t node_gpus, ClusterSpec& c) {
  const int64_t nodes = c.nodes(), ports = c.scale_out.nics_per_node;
  if (c.scale_up.kind != "nvswitch" || c.domain_gpus() != std::min(node_gpus, c.gpus))
    out.at("kind").fail("joins nodes that are each one NVLink domain; scale_up is " + c.scale_up.kind +
                            (c.scale_up.kind == "nvswitch" ? " of " + std::to_string(c.domain_gpus()) + " GPUs" : ""),
                        "scale_up.kind \"nvswitch\" without domain_gpus, or another scale_out.kind");
  if (nodes > MAX_DIRECT_NODES)
    out.at("kind").fail(std::to_string(nodes) + " nodes are more than a direct-connect network here may join (" +
                            std::to_string(MAX_DIRECT_NODES) + ": its routes are tabled per pair of nodes)",
                        "at most " + std::to_string(MAX_DIRECT_NODES) + " nodes, or a fat-tree");
  if (nodes > 1 && ports < 2)
    out.at("nics_per_node")
        .fail("gives each node " + std::to_string(ports) +
                  " port; its circuits need at least 2 (one to the node "
                  "before it in a ring, one to the node after)",
              "nics_per_node >= 2");
  const auto st = out.find("strides");
  if (!st) return c.reset_circuits();
  if (!st->is_array() || st->size() < 1)
    st->fail("is not a list of strides", "strides s in [1, nodes), e.g. [1, 3]: node i joins i + s and i - s");
  if (nodes < 2) st->fail("needs two nodes or more; the cluster has one", "no strides");
  const int64_t shortest = key_spec("/cluster/scale_out/strides/*").min;
  for (size_t i = 0; i < st->size(); ++i) c.scale_out.strides.push_back((*st)[i].as_count(shortest, nodes - 1));
  int64_t common = nodes;  // the nodes fall into this many rings apart
  for (int64_t x : c.scale_out.strides) common = std::gcd(common, x);
  if (common != 1)
    st->fail("leave the " + std::to_string(nodes) + " nodes in " + std::to_string(common) +
                 " groups no circuit joins (every stride shares the factor " + std::to_string(common) + ")",
             "strides one of which, at least, is coprime with the node count (e.g. 1)");
  const auto needed = 2 * static_cast<int64_t>(c.scale_out.strides.size());
  if (needed > ports)
    st->fail(std::to_string(c.scale_out.strides.size()) + " strides take " + std::to_string(needed) +
                 " ports of each node (two per stride); a node has " + std::to_string(ports) + " (nics_per_node)",
             "at most " + std::to_string(ports / 2) + " strides, or more nics_per_node");
  c.reset_circuits();
}

ClusterSpec ClusterSpec::parse(const ParamReader& r, const std::string& data_dir) {
  schema_expect_keys(r, "/cluster");
  if (auto k = r.find("kind")) k->as_choice(schema_choices("/cluster/kind"));
  ClusterSpec c;
  c.name = schema_value(r, "/cluster/name")->as_string();
  c.device = load_device(r.at("gpu"), data_dir);
  c.gpus = schema_count(r, "/cluster/gpus");
  c.gpus_per_node = schema_count(r, "/cluster/gpus_per_node");
  if (c.gpus % c.gpus_per_node != 0 && c.gpus > c.gpus_per_node)
    r.at("gpus").fail(std::to_string(c.gpus) + " GPUs do not fill whole nodes of " + std::to_string(c.gpus_per_node),
                      "a multiple of gpus_per_node");
  const int64_t node_gpus = c.gpus_per_node;  // as the node is built
  if (c.gpus < c.gpus_per_node) c.gpus_per_node = c.gpus;

  auto up = r.at("scale_up");
  schema_expect_keys(up, "/cluster/scale_up");
  c.scale_up.kind = up.at("kind").as_choice(schema_choices("/cluster/scale_up/kind"));
  const bool torus = c.scale_up.chip_grid();
  for (const char* key : {"dims", "twisted", "cube", "ocs"})
    if ((!torus || (!c.scale_up.wraps() && std::string(key) == "twisted")) && up.has(key))
      up.at(key).fail(std::string("applies to a torus only, not to scale_up.kind '") + c.scale_up.kind + "'",
                      std::string("no '") + key + "', or kind \"torus\"");
  if (torus && up.has("domain_gpus"))
    up.at("domain_gpus")
        .fail("a " + c.scale_up.kind + "'s domain is its dims' product",
              "no domain_gpus with kind \"" + c.scale_up.kind + "\"");
  c.scale_up.bandwidth = up.at("bandwidth").as_bandwidth();
  if (auto l = up.find("latency")) c.scale_up.latency = l->as_seconds(schema_range("/cluster/scale_up/latency"));
  c.scale_up.nvls = schema_bool(up, "/cluster/scale_up/nvls");
  // A domain is whole nodes and the cluster whole domains; a cluster smaller than one domain is
  // one (as one smaller than a node is one node).
  if (up.has("domain_gpus")) {
    const auto d = up.at("domain_gpus");
    const int64_t domain = schema_count(up, "/cluster/scale_up/domain_gpus");
    if (domain % node_gpus != 0)
      d.fail(std::to_string(domain) + " is not a multiple of gpus_per_node=" + std::to_string(node_gpus) +
                 " (an NVLink domain is whole nodes)",
             "a multiple of gpus_per_node");
    if (c.gpus > domain && c.gpus % domain != 0)
      d.fail(std::to_string(domain) + " does not divide the cluster's " + std::to_string(c.gpus) +
                 " GPUs (an NVLink domain is whole)",
             "a divisor of gpus");
    c.scale_up.domain_gpus = std::min(domain, c.gpus);
  }
  if (torus) parse_torus(up, node_gpus, c);

  auto out = r.at("scale_out");
  schema_expect_keys(out, "/cluster/scale_out");
  c.scale_out.kind = out.at("kind").as_choice(schema_choices("/cluster/scale_out/kind"));
  const bool ocs = c.scale_out.kind == "ocs", direct = c.scale_out.kind == "direct";
  // Each kind's own keys: the fat-tree's pods, the switch's ports and reconfiguration, the
  // direct-connect network's strides.
  const std::vector<std::pair<std::string, std::string>> own = {{"oversubscription", "fat-tree"},
                                                                {"pod_gpus", "fat-tree"},
                                                                {"ports", "ocs"},
                                                                {"reconfiguration", "ocs"},
                                                                {"strides", "direct"}};
  for (const auto& [key, kind] : own)
    if (out.has(key) && kind != c.scale_out.kind)
      out.at(key).fail("applies to scale_out.kind '" + kind + "', not to '" + c.scale_out.kind + "'",
                       "no '" + key + "' here");
  c.scale_out.nics_per_node = schema_count(out, "/cluster/scale_out/nics_per_node");
  c.scale_out.nic_bandwidth = out.at("nic_bandwidth").as_bandwidth();
  if (auto o = out.find("oversubscription")) {
    c.scale_out.oversubscription = o->as_number();
    if (!schema_range("/cluster/scale_out/oversubscription").contains(c.scale_out.oversubscription))
      o->fail("is out of range", "a ratio >= 1 (1 = full bisection)");
  }
  c.scale_out.pod_gpus = out.has("pod_gpus") ? schema_count(out, "/cluster/scale_out/pod_gpus") : c.gpus;
  if (auto l = out.find("latency")) c.scale_out.latency = l->as_seconds(schema_range("/cluster/scale_out/latency"));
  // The tiers' ports must add up: a GPU sends through one NIC, which GPUs share evenly, and pods
  // (Placement::pod, the fat-tree's spines) are whole nodes.
  if (c.scale_out.nics_per_node > node_gpus)
    out.at("nics_per_node")
        .fail(std::to_string(c.scale_out.nics_per_node) + " NICs for " + std::to_string(node_gpus) +
                  " GPUs per node: each GPU sends through one NIC here",
              "at most gpus_per_node; several NICs of one GPU as one NIC of their summed bandwidth");
  if (node_gpus % c.scale_out.nics_per_node != 0)
    out.at("nics_per_node")
        .fail("does not pair evenly with gpus_per_node=" + std::to_string(node_gpus), "a divisor of gpus_per_node");
  // A cluster smaller than one node keeps its GPUs' share of the node's NICs.
  c.scale_out.nics_per_node = std::max<int64_t>(1, c.scale_out.nics_per_node * c.gpus_per_node / node_gpus);
  if (c.gpus_per_node > 0 && c.scale_out.pod_gpus % c.gpus_per_node != 0)
    out.at("pod_gpus")
        .fail(std::to_string(c.scale_out.pod_gpus) + " GPUs do not fill whole nodes of " +
                  std::to_string(c.gpus_per_node),
              "a multiple of gpus_per_node");
  if (ocs) {
    // Every NIC takes a port: a circuit is a dedicated path from one port to another.
    c.scale_out.reconfiguration =
        out.at("reconfiguration").as_seconds(schema_range("/cluster/scale_out/reconfiguration"));
    const int64_t nics = c.nodes() * c.scale_out.nics_per_node;
    c.scale_out.ports = out.has("ports") ? schema_count(out, "/cluster/scale_out/ports") : nics;
    if (c.scale_out.ports < nics)
      out.at("ports").fail(
          std::to_string(nics) + " NICs need a port each; the switch has " + std::to_string(c.scale_out.ports),
          "at least nodes x nics_per_node ports");
  }
  if (direct) parse_direct(out, node_gpus, c);
  // Llama 3's 2 TB/s sustained over 16,384 GPUs (The Llama 3 Herd of Models, arXiv:2407.21783, §3.3.4), per GPU.
  constexpr double STORAGE_BYTES_PER_S_PER_GPU = 2e12 / 16384;
  c.storage_bandwidth = r.has("storage_bandwidth") ? r.at("storage_bandwidth").as_bandwidth()
                                                   : BytesPerSecond(STORAGE_BYTES_PER_S_PER_GPU * c.gpus);
  if (r.has("host_link")) c.host_link = r.at("host_link").as_bandwidth();
  return c;
}

void ClusterSpec::reset_circuits() {
  ScaleOut& o = scale_out;
  o.circuits.clear();
  o.ring_strides.clear();
  const int64_t n = nodes();
  if (o.kind != "direct" || n < 2) return;
  int64_t common = n;
  for (int64_t s : o.strides)
    if (s % n != 0) {
      o.ring_strides.push_back(s % n);
      common = std::gcd(common, s % n);
    }
  if (common != 1)  // no strides, or none that join every node: as many (or the ports') TotientPerms rings
    o.ring_strides =
        totient_strides(n, o.strides.empty() ? o.nics_per_node / 2 : static_cast<int64_t>(o.strides.size()));
  o.circuits = stride_circuits(n, o.ring_strides);
}

int64_t ClusterSpec::domain_gpus() const {
  const int64_t d = std::min(gpus, scale_up.domain_gpus > 0 ? scale_up.domain_gpus : gpus_per_node);
  return d > 0 ? std::gcd(d, gpus) : d;
}

const std::vector<TopologyKind>& scale_up_kinds() {
  static const std::vector<TopologyKind> kinds = {
      {"nvswitch",
       "NVLink domains through NVSwitch: one per node (DGX/HGX A100, H100, B200) or domain_gpus (GB200 NVL72)"},
      {"torus", "1-3 dimensional tori of dims chips on their neighbours' links, twisted if asked (TPU v4 ICI)"},
      {"mesh",
       "1-3 dimensional meshes of dims chips: a torus without wrap-around links (a slice of a static torus, no "
       "optical switch to close its rings)"}};
  return kinds;
}

const std::vector<TopologyKind>& scale_out_kinds() {
  static const std::vector<TopologyKind> kinds = {
      {"fat-tree", "rail-optimised fat-tree of NICs, full bisection inside a pod, oversubscription above it"},
      {"ocs",
       "optical circuit switch joining every NIC's port by circuits set per phase of the step (pipeline sends, then "
       "the gradient reduction), dark for `reconfiguration` at each change (mFabric style)"},
      {"direct",
       "direct-connect nodes: each node's ports carry circuits to other nodes, set once for the job and designed "
       "with its parallelism plan (TopoOpt), traffic between unjoined nodes forwarded by the nodes between"}};
  return kinds;
}

}  // namespace sim
