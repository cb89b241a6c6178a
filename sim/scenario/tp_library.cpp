#include "sim/scenario/tp_library.hpp"

#include "sim/scenario/named_choice.hpp"

namespace sim {

const std::vector<TpLibraryEntry>& tp_libraries() {
  // Megatron-Core keeps activations sequence-first, [s, b, h]: sequence parallelism shards dim 0,
  // and its all-gathers and reduce-scatters (tensor_parallel/mappings.py, _gather_along_first_dim,
  // _reduce_scatter_along_first_dim) run on the tensor as it lies. PyTorch's DTensor, as
  // torchtitan's SequenceParallel uses it, shards batch-first [b, s, h] tensors on dim 1: a
  // redistribute calls funcol's all_gather_tensor / reduce_scatter_tensor with that dim
  // (torch/distributed/_functional_collectives.py), and both go through dim 0 -- "res =
  // torch.cat(torch.chunk(res, group_size, dim=0), dim=gather_dim)" after the all-gather,
  // "tensor_list = torch.chunk(self, group_size, dim=scatter_dim); self = torch.cat(tensor_list)"
  // before the reduce-scatter: one copy of the whole tensor each.
  static const std::vector<TpLibraryEntry> libraries{
      {{TpLibrary::MEGATRON, "megatron",
        "Megatron-Core: sequence-first activations, sequence-parallel collectives in place (Megatron-LM, NeMo)"},
       false},
      {{TpLibrary::DTENSOR, "dtensor",
        "PyTorch DTensor: batch-first activations sharded on dim 1, each sequence-parallel all-gather and "
        "reduce-scatter copying the whole tensor through dim 0 (torchtitan)"},
       true},
  };
  return libraries;
}

const TpLibraryEntry& tp_library(TpLibrary kind) { return registry_entry(tp_libraries(), kind); }

}  // namespace sim
