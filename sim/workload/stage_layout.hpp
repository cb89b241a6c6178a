// How the model's layers are split over pipeline ranks and their virtual stages (chunks).
//
// Virtual stage j = chunk * pp + rank, in model order (Megatron's interleaved assignment), or, in a
// V (the two chunks per rank of Qi et al. 2024's ZB-V), rank r's chunk 0 is stage r and
// its chunk 1 stage 2 pp - 1 - r: the first rank holds the first and the last stage. Stage 0 also
// holds the embedding, the last stage the final norm, output layer and loss. When the layers do
// not divide evenly, the first and last stages take the fewer layers (Llama 3: 126 layers on 16
// stages = 7 + 14x8 + 7), alternating first/last inwards; an explicit list overrides.
//
// Under DualPipe (two model copies, PipelineSchedule::two_copies) the V's two arms are the two
// copies: stages 0 .. pp-1 the copy that runs from rank 0, stages pp .. 2pp-1 the one that runs
// from rank pp-1, stage pp + k holding the layers of stage k (model_stage); each copy has its
// embedding and its output layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

struct ModelSpec;
struct ParallelPlan;

// The virtual stage of rank `rank`'s chunk `chunk` over pp ranks, and the rank a stage is on.
int64_t virtual_stage(int64_t pp, bool v_shape, int64_t rank, int64_t chunk);
int64_t stage_rank(int64_t pp, bool v_shape, int64_t stage);

struct StageLayout {
  int64_t pp = 1;
  int64_t virtual_stages = 1;
  bool v_shape = false;         // two chunks per rank in a V (the schedule's, PipelineSchedule::v_shape)
  int64_t copies = 1;           // 2: each arm of the V a model copy of its own (DualPipe)
  std::vector<int64_t> layers;  // per virtual stage, model order; size pp * virtual_stages
  std::vector<int64_t> moe;     // of those, the MoE layers (ModelSpec::moe_layer); 0 for a dense model
  // Of each stage's dense and MoE layers, those with sliding-window attention (ModelSpec::windowed_layer).
  std::vector<int64_t> windowed_dense, windowed_moe;

  int64_t stage(int64_t rank, int64_t chunk) const { return virtual_stage(pp, v_shape, rank, chunk); }
  int64_t layers_of(int64_t rank, int64_t chunk) const { return layers[static_cast<size_t>(stage(rank, chunk))]; }
  int64_t moe_layers_of(int64_t rank, int64_t chunk) const { return moe[static_cast<size_t>(stage(rank, chunk))]; }
  int64_t dense_layers_of(int64_t rank, int64_t chunk) const {
    return layers_of(rank, chunk) - moe_layers_of(rank, chunk);
  }
  int64_t windowed_dense_layers_of(int64_t rank, int64_t chunk) const {
    return windowed_dense[static_cast<size_t>(stage(rank, chunk))];
  }
  int64_t windowed_moe_layers_of(int64_t rank, int64_t chunk) const {
    return windowed_moe[static_cast<size_t>(stage(rank, chunk))];
  }
  int64_t first_layer(int64_t rank, int64_t chunk) const;  // the model's index of its first layer
  int64_t layers_on_rank(int64_t rank) const;
  int64_t moe_layers_on_rank(int64_t rank) const;
  // The stage of the model a virtual stage holds: itself, or its place in its copy.
  int64_t model_stage(int64_t virtual_stage) const { return virtual_stage % (pp * virtual_stages / copies); }
  bool has_embedding(int64_t rank, int64_t chunk) const { return model_stage(stage(rank, chunk)) == 0; }
  bool has_output(int64_t rank, int64_t chunk) const {
    return model_stage(stage(rank, chunk)) == pp * virtual_stages / copies - 1;
  }
};

// Throws InputError (naming `file` and POINTER/parallelism/..., POINTER being where the scenario
// sits in the file) if a stage would get no layer or an explicit list does not sum to the model's
// layers (under DualPipe, an explicit list has one entry per stage of a copy: pp).
StageLayout make_stage_layout(const ModelSpec& model, const ParallelPlan& plan, int64_t virtual_stages,
                              const std::string& file, const std::string& pointer = "");

}  // namespace sim
