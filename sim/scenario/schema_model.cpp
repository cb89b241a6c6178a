// The schema of the `model` section (models/*.json): a transformer's shape.
#include "sim/scenario/model.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_model_keys() {
  return {
      {"/model/kind", "choice", "", "", "optional", "model", "what the file is", 0, 0},
      {"/model/name", "string", "", "\"model\"", "", "", "the model's name in reports", 0, 0},
      {"/model/source", "string", "", "", "documentation only", "", "where the shape comes from (paper, config)", 0, 0},
      {"/model/description", "string", "", "", "documentation only", "", "free text", 0, 0},
      {"/model/layers", "count", "", "", "required", "", "transformer layers", 1, MAX_MODEL_LAYERS},
      {"/model/hidden", "count", "", "", "required", "", "hidden (model) width", 1, MAX_MODEL_WIDTH},
      {"/model/heads", "count", "", "", "required", "", "attention (query) heads", 1, MAX_MODEL_WIDTH},
      {"/model/kv_heads", "count", "", "", "= heads (multi-head attention)", "",
       "key/value heads (grouped-query attention when fewer than heads; must divide heads)", 1, MAX_MODEL_WIDTH},
      {"/model/head_dim", "count", "", "", "= hidden / heads", "", "width of one attention head", 1, MAX_MODEL_WIDTH},
      {"/model/ffn_hidden", "count", "", "", "required", "", "MLP inner width", 1, MAX_MODEL_WIDTH},
      {"/model/vocab", "count", "", "", "required", "", "vocabulary size", 1, MAX_MODEL_VOCAB},
      {"/model/activation", "choice", "", "", "required", "gelu, swiglu",
       "MLP activation (swiglu: three weight matrices)", 0, 0},
      {"/model/norm", "choice", "", "", "= rmsnorm with swiglu (Llama, PaLM), else layernorm (GPT)",
       "layernorm, rmsnorm", "normalisation; rmsnorm models carry no biases", 0, 0},
      {"/model/position", "choice", "", "", "= rope with rmsnorm (Llama), else learned (GPT)", "learned, rope",
       "position embedding: rotary (Su et al. 2021) or a learned table", 0, 0},
      {"/model/tied_embeddings", "bool", "", "true", "Megatron-LM's GPT default", "",
       "input and output embeddings share one matrix", 0, 0},
      {"/model/dropout", "bool", "", "", "= true with gelu (Megatron-LM's GPT: 0.1), false with swiglu (Llama)", "",
       "trained with dropout (masks kept for the backward)", 0, 0},
      {"/model/moe", "object", "", "", "none (dense)", "", "mixture of experts in every layer's MLP", 0, 0},
      {"/model/moe/experts", "count", "", "", "required", "", "experts per layer", 1, MAX_MODEL_EXPERTS},
      {"/model/moe/top_k", "count", "", "", "required", "1..experts", "experts each token is routed to", 1,
       MAX_MODEL_EXPERTS},
      {"/model/moe/expert_ffn_hidden", "count", "", "", "= ffn_hidden", "", "one expert's MLP inner width", 1,
       MAX_MODEL_WIDTH},
  };
}

}  // namespace sim
