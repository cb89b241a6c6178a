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
      {"/model/moe", "object", "", "", "none (dense)", "", "mixture of experts in the layers' MLPs", 0, 0},
      {"/model/moe/experts", "count", "", "", "required", "", "experts per layer", 1, MAX_MODEL_EXPERTS},
      {"/model/moe/top_k", "count", "", "", "required", "1..experts", "experts each token is routed to", 1,
       MAX_MODEL_EXPERTS},
      {"/model/moe/expert_ffn_hidden", "count", "", "", "= ffn_hidden", "", "one expert's MLP inner width", 1,
       MAX_MODEL_WIDTH},
      {"/model/moe/shared_experts", "count", "", "0", "", "",
       "experts every token passes beside its top_k (DeepSeekMoE), each expert_ffn_hidden wide", 0, MAX_MODEL_EXPERTS},
      {"/model/moe/dense_layers", "count", "", "0", "", "0..layers-1",
       "the first layers keep a dense MLP of ffn_hidden (DeepSeek's first_k_dense_replace)", 0, MAX_MODEL_LAYERS},
      {"/model/moe/node_limit", "count", "", "0", "0: none", "",
       "the most nodes of its expert-parallel group a token's experts may span (DeepSeek-V3's node-limited "
       "routing, M = 4); the deepep dispatcher sends a token once to each",
       0, MAX_MODEL_EXPERTS},
      {"/model/moe/layer_interval", "count", "", "1", "", "1..layers-dense_layers",
       "every n-th layer after the dense ones is MoE, the others dense (Llama 4's interleave_moe_layer_step)", 1,
       MAX_MODEL_LAYERS},
      {"/model/mtp_layers", "count", "", "0", "", "",
       "multi-token prediction modules (DeepSeek-V3): one more layer each, trained beside the model", 0,
       MAX_MODEL_LAYERS},
      {"/model/sliding_window", "count", "tokens", "0", "0: every layer attends over the whole sequence", "",
       "the keys a query of a sliding-window layer attends to, its own and those just before it (GPT-OSS: 128); "
       "fused attention kernels skip the key blocks outside it, unfused attention masks them",
       0, MAX_MODEL_WIDTH},
      {"/model/full_attention_interval", "count", "", "0", "0: every layer slides", "0..layers",
       "with a sliding_window, every n-th layer (layers n, 2n, ...) attends over the whole sequence instead "
       "(Megatron-Core's window_attn_skip_freq; GPT-OSS: 2)",
       0, MAX_MODEL_LAYERS},
      {"/model/mla", "object", "", "", "none (multi-head or grouped-query attention)", "",
       "multi-head latent attention (DeepSeek-V2): low-rank query and joint key-value projections", 0, 0},
      {"/model/mla/q_lora_rank", "count", "", "0", "", "", "the queries' latent rank (0: one query projection)", 0,
       MAX_MODEL_WIDTH},
      {"/model/mla/kv_lora_rank", "count", "", "", "required", "", "the keys' and values' joint latent rank", 1,
       MAX_MODEL_WIDTH},
      {"/model/mla/qk_nope_head_dim", "count", "", "", "required", "", "a head's query and key width without rotary", 1,
       MAX_MODEL_WIDTH},
      {"/model/mla/qk_rope_head_dim", "count", "", "", "required", "",
       "a head's decoupled rotary query and key width (the rotary key shared by the heads)", 0, MAX_MODEL_WIDTH},
      {"/model/mla/v_head_dim", "count", "", "", "required", "", "a head's value width", 1, MAX_MODEL_WIDTH},
  };
}

}  // namespace sim
