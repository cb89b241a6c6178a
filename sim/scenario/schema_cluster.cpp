// The schema of the `cluster` section (topologies/*.json): GPUs, nodes and the two networks.
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_cluster_keys() {
  const int64_t G = MAX_CLUSTER_GPUS;
  // A link's latency per hop (scale_up.latency, scale_out.latency; the engine's links carry it, the
  // closed-form estimate takes NCCL's latencies from the device profile): from 1 ns, under one
  // NVLink or switch hop, to 1 s, 10^6 times the shipped clusters' 1 us (an InfiniBand switch adds
  // 0.1 to 0.3 us). SimGrid aborts on far longer hops ("The Impossible Did Happen" at 10^5 s on a
  // 4x4x4 torus, where 3*10^4 s still ran; fuzz_platform).
  const std::string hop = "a latency from 1 ns to 1 s";
  const std::string hop_why = "1 ns is under one NVLink or switch hop; SimGrid aborts on far longer hops than 1 s";
  const std::string G_why = "MAX_CLUSTER_GPUS (cluster.hpp)";
  return {
      {"/cluster/kind", "choice", "", "", "optional", "cluster", "what the file is", 0, 0},
      {"/cluster/name", "string", "", "\"cluster\"", "", "", "the cluster's name in reports", 0, 0},
      {"/cluster/description", "string", "", "", "documentation only", "", "free text", 0, 0},
      {"/cluster/source", "string", "", "", "documentation only", "", "where the cluster's figures come from", 0, 0},
      {"/cluster/gpu", "string", "", "", "required", "a device profile in topologies/devices/, or a path",
       "the GPU (trainsim list: devices; its keys: trainsim keys device)", 0, 0},
      {"/cluster/gpus", "count", "", "", "required", "", "GPUs in the cluster (whole nodes)", 1, G},
      {"/cluster/gpus_per_node", "count", "", "", "required", "", "GPUs per node", 1, 1024},
      {"/cluster/storage_bandwidth", "quantity", "B/s", "", "= 2 TB/s per 16,384 GPUs (Llama 3's Tectonic)", "",
       "sustained bandwidth to checkpoint storage", 0, 0},
      {"/cluster/host_link", "quantity", "B/s", "", "none (no activation offload)", "",
       "between one GPU and its host's memory, per direction (PCIe, NVLink-C2C): what offload_modules copy over", 0, 0},
      {"/cluster/scale_up", "object", "", "", "required", "", "the network inside an NVLink domain or torus", 0, 0},
      {"/cluster/scale_up/kind", "choice", "", "", "required", registry_names(scale_up_kinds()),
       "scale-up network kind", 0, 0},
      {"/cluster/scale_up/bandwidth", "quantity", "B/s", "", "required", "", "per GPU per direction", 0, 0},
      {"/cluster/scale_up/latency", "quantity", "s", "", "0 s", "", "per hop", 0, 0, hop, hop_why},
      {"/cluster/scale_up/nvls", "bool", "", "true", "NCCL's default where the device has NVLink SHARP", "",
       "use NVLink SHARP (false: NCCL_NVLS_ENABLE=0)", 0, 0},
      {"/cluster/scale_up/domain_gpus", "count", "", "", "= gpus_per_node (nvswitch only)", "",
       "GPUs per NVLink domain, whole nodes (GB200 NVL72: 72)", 1, G},
      {"/cluster/scale_up/dims", "array of counts", "", "", "required for torus and mesh", "1 to 3 entries",
       "chips along each dimension of one torus or mesh (min, max: the entries)", 1, 3, "",
       "TPU v4's 3D torus is the most dimensions built"},
      {"/cluster/scale_up/dims/*", "count", "", "", "", "", "chips along one dimension (their product too)", 1, G, "",
       G_why},
      {"/cluster/scale_up/twisted", "bool", "", "false", "", "", "twisted torus (TPU v4's k x k x 2k shapes)", 0, 0},
      {"/cluster/scale_up/cube", "array of counts", "", "", "none", "one divisor per entry of dims",
       "extent of the building-block cubes whose faces optical switches join", 0, 0},
      {"/cluster/scale_up/cube/*", "count", "", "", "", "", "cube extent along one dimension", 1, G, "", G_why},
      {"/cluster/scale_up/ocs", "bool", "", "false", "", "", "cubes joined by optical circuit switches (TPU v4)", 0, 0},
      {"/cluster/scale_out", "object", "", "", "required", "", "the network between nodes", 0, 0},
      {"/cluster/scale_out/kind", "choice", "", "", "required", registry_names(scale_out_kinds()),
       "scale-out network kind (direct: at most " + std::to_string(MAX_DIRECT_NODES) + " nodes)", 0, 0},
      {"/cluster/scale_out/nics_per_node", "count", "", "", "required", "", "NICs per node (divides gpus_per_node)", 1,
       64},
      {"/cluster/scale_out/nic_bandwidth", "quantity", "B/s", "", "required", "", "per NIC per direction", 0, 0},
      {"/cluster/scale_out/oversubscription", "number", "", "1", "full bisection", "",
       "fat-tree oversubscription above a pod", 0, 0, "1..1024",
       "1 is full bisection; 1024 is beyond any fat-tree built (an input bound)"},
      {"/cluster/scale_out/pod_gpus", "count", "", "", "= gpus (one pod)", "", "GPUs under one fat-tree pod", 1, G},
      {"/cluster/scale_out/latency", "quantity", "s", "", "0 s", "", "per hop", 0, 0, hop, hop_why},
      {"/cluster/scale_out/ports", "count", "", "", "= nodes x nics_per_node (ocs only)", "",
       "optical circuit switch ports", 1, G},
      {"/cluster/scale_out/reconfiguration", "quantity", "s", "", "required with ocs", "",
       "time circuits are dark at each change", 0, 0, "a reconfiguration time from 100 ps to 1 h",
       "below Sirius's 3.84 ns (Ballani et al., SIGCOMM'20); a robotic patch panel takes minutes (TopoOpt, NSDI'23)"},
      {"/cluster/scale_out/strides", "array of counts", "", "", "designed for the plan (direct only)", "",
       "direct-connect strides: node i joins i + s and i - s", 0, 0},
      {"/cluster/scale_out/strides/*", "count", "", "", "", "1..nodes-1", "one stride", 1, G, "",
       "a stride of 0 or of nodes joins a node to itself"},
  };
}

}  // namespace sim
