#include "sim/workload/stage_layout.hpp"

#include <numeric>
#include <string>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/scenario/model.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/workload/schedule.hpp"

namespace sim {

int64_t StageLayout::layers_on_rank(int64_t rank) const {
  int64_t n = 0;
  for (int64_t c = 0; c < virtual_stages; ++c) n += layers_of(rank, c);
  return n;
}

int64_t StageLayout::moe_layers_on_rank(int64_t rank) const {
  int64_t n = 0;
  for (int64_t c = 0; c < virtual_stages; ++c) n += moe_layers_of(rank, c);
  return n;
}

int64_t virtual_stage(int64_t pp, bool v_shape, int64_t rank, int64_t chunk) {
  return v_shape && chunk == 1 ? 2 * pp - 1 - rank : chunk * pp + rank;
}

int64_t stage_rank(int64_t pp, bool v_shape, int64_t stage) {
  return v_shape && stage >= pp ? 2 * pp - 1 - stage : stage % pp;
}

int64_t StageLayout::first_layer(int64_t rank, int64_t chunk) const {
  const auto at = static_cast<std::ptrdiff_t>(model_stage(stage(rank, chunk)));
  return std::accumulate(layers.begin(), layers.begin() + at, int64_t{0});
}

namespace {

// Counts each stage's MoE layers and, of its dense and MoE layers, the sliding-window ones, in
// model order; with two model copies, repeats the copy's stages for the second.
StageLayout with_moe(StageLayout out, const ModelSpec& model) {
  out.moe.assign(out.layers.size(), 0);
  out.windowed_dense.assign(out.layers.size(), 0);
  out.windowed_moe.assign(out.layers.size(), 0);
  int64_t i = 0;
  for (size_t j = 0; j < out.layers.size(); ++j)
    for (int64_t k = 0; k < out.layers[j]; ++k, ++i) {
      const bool moe = model.moe_layer(i);
      out.moe[j] += moe ? 1 : 0;
      if (model.windowed_layer(i)) ++(moe ? out.windowed_moe : out.windowed_dense)[j];
    }
  if (out.copies == 2)
    for (std::vector<int64_t>* v : {&out.layers, &out.moe, &out.windowed_dense, &out.windowed_moe}) {
      const std::vector<int64_t> copy = *v;  // not inserted from itself
      v->insert(v->end(), copy.begin(), copy.end());
    }
  return out;
}

}  // namespace

StageLayout make_stage_layout(const ModelSpec& model, const ParallelPlan& plan, int64_t virtual_stages,
                              const std::string& file, const std::string& pointer) {
  StageLayout out;
  out.pp = plan.pp;
  out.virtual_stages = virtual_stages;
  out.v_shape = schedule_choice(plan.schedule).v_shape && virtual_stages == 2;
  out.copies = out.v_shape && schedule_choice(plan.schedule).two_copies ? 2 : 1;
  // The stages of one copy; the second copy's repeat them (StageLayout::model_stage).
  const int64_t stages = plan.pp * virtual_stages / out.copies;
  if (!plan.layers_per_stage.empty()) {
    if (static_cast<int64_t>(plan.layers_per_stage.size()) != stages)
      throw InputError(file, pointer + "/parallelism/layers_per_stage",
                       "has " + std::to_string(plan.layers_per_stage.size()) + " entries",
                       std::to_string(stages) + (out.copies == 2 ? " = pp (a stage per rank of each model copy)"
                                                                 : " = pp * virtual_stages"));
    int64_t sum = std::accumulate(plan.layers_per_stage.begin(), plan.layers_per_stage.end(), int64_t{0});
    if (sum != model.layers)
      throw InputError(file, pointer + "/parallelism/layers_per_stage", "sums to " + std::to_string(sum),
                       std::to_string(model.layers) + " = model.layers");
    out.layers = plan.layers_per_stage;
    return with_moe(std::move(out), model);
  }
  if (model.layers < stages)
    throw InputError(file, pointer + "/parallelism/pp",
                     std::to_string(model.layers) + " layers cannot fill " + std::to_string(stages) +
                         " pipeline stages (pp * virtual_stages)",
                     "at least one layer per stage");
  const int64_t per = (model.layers + stages - 1) / stages;
  out.layers.assign(static_cast<size_t>(stages), per);
  int64_t deficit = per * stages - model.layers;
  // Take one layer at a time from the outermost stages inwards: first, last, second, second-last...
  for (int64_t k = 0; deficit > 0; ++k) {
    int64_t idx = (k % 2 == 0) ? k / 2 : stages - 1 - k / 2;
    idx = idx % stages;
    if (out.layers[static_cast<size_t>(idx)] > 1) {
      --out.layers[static_cast<size_t>(idx)];
      --deficit;
    }
  }
  return with_moe(std::move(out), model);
}

}  // namespace sim
