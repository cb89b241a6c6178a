// A transformer architecture (DESIGN.md "Scenario file", section `model`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sim {

class ParamReader;

// Upper bounds that keep every derived size inside doubles and memory (robustness, not physics).
inline constexpr int64_t MAX_MODEL_LAYERS = 100000;
inline constexpr int64_t MAX_MODEL_WIDTH = 1 << 22;
inline constexpr int64_t MAX_MODEL_VOCAB = 1 << 24;
inline constexpr int64_t MAX_MODEL_EXPERTS = 1 << 16;

enum class Activation { GELU, SWIGLU };

// Mixture-of-experts MLPs (DESIGN.md `model.moe`): `experts` routed experts of `expert_ffn_hidden`
// each, `top_k` of them per token, beside `shared_experts` that every token passes (DeepSeekMoE,
// Dai et al. 2024). The first `dense_layers` layers keep a dense MLP of ffn_hidden (DeepSeek's
// first_k_dense_replace); of the layers after them every `layer_interval`-th is MoE, the others
// dense (Llama 4's interleave_moe_layer_step: layers 1, 3, 5, ... at 2).
struct MoeSpec {
  int64_t experts = 1;
  int64_t top_k = 1;
  int64_t expert_ffn_hidden = 0;
  int64_t shared_experts = 0;
  int64_t dense_layers = 0;
  int64_t layer_interval = 1;
  // Node-limited routing (DeepSeek-V3 §3.2.2): a token's top_k experts lie on at most this many
  // nodes of its expert-parallel group; 0: anywhere.
  int64_t node_limit = 0;
};

// Multi-head latent attention (DeepSeek-V2, Liu et al. 2024 §2.1): queries through a rank
// `q_lora_rank` down-projection (0: one projection, as DeepSeek-V2-Lite), keys and values through
// one joint rank `kv_lora_rank` latent; each head's query and key are `qk_nope_head_dim` wide plus
// `qk_rope_head_dim` decoupled rotary dimensions (the rotary key shared by the heads), its value
// `v_head_dim`. Weights as deepseek-ai/DeepSeek-V3 inference/model.py's MLA: wq_a, q_norm, wq_b (or
// wq), wkv_a, kv_norm, wkv_b, wo.
struct MlaSpec {
  int64_t q_lora_rank = 0, kv_lora_rank = 0;                                   // latent ranks
  int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;          // per head
  int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }  // a head's query and key
};

struct ModelSpec {
  std::string name;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t ffn_hidden = 0;
  int64_t vocab = 0;
  Activation activation = Activation::GELU;
  bool tied_embeddings = true;  // GPT (Megatron default) ties input and output embeddings
  // Llama: RMSNorm and no biases; GPT: LayerNorm with biases. By default as the family is built:
  // gated (SwiGLU) models as Llama and PaLM (RMSNorm, no biases), GELU models as GPT.
  bool rmsnorm = false;
  // Rotary position embeddings on the queries and keys (Su et al. 2021; Llama, PaLM) rather than a
  // learned position table added to the input (GPT): `position` "rope" or "learned", by default
  // rope where the model uses RMSNorm.
  bool rope = false;
  // Trained with dropout (masks written in the forward, read in the backward, kept for it): by
  // default as the model family is trained -- GELU models as Megatron-LM's GPT (hidden and
  // attention dropout 0.1, its defaults), gated models as Llama (no dropout: Touvron et al. 2023's
  // recipe, NeMo's Llama configs and torchtitan run hidden and attention dropout 0). `dropout`
  // states it.
  bool dropout = true;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;  // none: multi-head or grouped-query attention
  // Multi-token prediction modules (DeepSeek-V3 §2.2): each one more transformer layer (as the last
  // layer: MoE where it is) behind a 2h x h projection of the hidden state and the next token's
  // embedding, two RMSNorms on its inputs; embedding and output head shared with the model.
  int64_t mtp_layers = 0;
  // Sliding-window attention (Beltagy et al. 2020, Longformer; Mistral 7B; GPT-OSS): in a windowed
  // layer each query attends to at most `sliding_window` keys, its own and those just before it;
  // 0: every layer attends over the whole sequence. With `full_attention_interval` n > 0, every n-th
  // layer (1-based: layers n, 2n, ...) attends over the whole sequence instead, as Megatron-Core's
  // window_attn_skip_freq (GPT-OSS: window 128, every 2nd layer full); 0: every layer slides.
  int64_t sliding_window = 0;
  int64_t full_attention_interval = 0;
  bool windowed_layer(int64_t i) const {
    return sliding_window > 0 && !(full_attention_interval > 0 && (i + 1) % full_attention_interval == 0);
  }

  // `head_dim`: each head's width; 0 (absent): hidden / heads. PaLM's are 256 wide at hidden 18,432
  // over 48 heads, so its queries span 12,288 (Chowdhery et al. 2022 Table 1).
  int64_t explicit_head_dim = 0;
  int64_t head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  // The queries' width, heads x head_dim: the Q projection's output and the attention output
  // projection's input (hidden unless head_dim says otherwise).
  int64_t query_width() const { return heads * head_dim(); }
  // Each head's query and key width, which the attention scores run over: MLA's qk_head_dim, else
  // head_dim.
  int64_t score_head_dim() const { return mla ? mla->qk_head_dim() : head_dim(); }
  // Parameters of one transformer layer (weights + biases + norms): an MoE layer's (`moe_layer`,
  // where the model has them) or a dense one's.
  double layer_params(bool moe_layer = false) const;
  // K/V heads one tensor-parallel rank holds: kv_heads / tp, or, when tp is a multiple of kv_heads
  // (multi-query attention at PaLM's tp 12, grouped-query past the groups), one whole head each,
  // replicated over tp / kv_heads ranks (Megatron-Core's num_query_groups < tp; vLLM's
  // "replicate the KV heads"). `kv_shardable` says whether either holds.
  double rank_kv_heads(int64_t tp) const;
  bool kv_shardable(int64_t tp) const { return kv_heads % tp == 0 || tp % kv_heads == 0; }
  // One layer's parameters one tensor-parallel rank holds: layer_params() / tp, plus the K/V
  // weights (and biases) it holds beyond its share when they are replicated; of an MoE layer's
  // routed experts, with expert parallelism over `ep` ranks, its 1 / ep of them, split over `etp`
  // (ParallelPlan::expert_tp; 0: tp).
  double layer_params_per_rank(int64_t tp, bool moe_layer = false, int64_t ep = 1, int64_t etp = 0) const;
  // Of `dense` dense layers and `moe` MoE layers together.
  double layers_params_per_rank(int64_t tp, int64_t dense, int64_t moe, int64_t ep = 1, int64_t etp = 0) const {
    return static_cast<double>(dense) * layer_params_per_rank(tp) +
           static_cast<double>(moe) * layer_params_per_rank(tp, true, ep, etp);
  }
  // One MoE layer's routed experts' parameters, all of them (their weights and biases): what
  // expert parallelism divides; 0 for a dense model.
  double routed_expert_params() const;
  // Their weight matrices alone (no biases): what FP8 keeps copies of.
  double routed_expert_linear_params() const;
  // The weight matrices of one layer (QKV, projection, MLP; an MoE layer's every expert): no bias,
  // norm or router.
  double linear_params(bool moe_layer = false) const;
  double embedding_params() const { return static_cast<double>(vocab) * static_cast<double>(hidden); }
  // Whether layer i (from 0) has an MoE MLP, and how many do.
  bool moe_layer(int64_t i) const;
  int64_t moe_layers() const;
  // Every parameter, and those one token passes through: the embeddings, each layer's attention,
  // norms and router, a dense layer's MLP, and of an MoE layer's experts the shared ones and top_k
  // routed ones (the convention of DeepSeek's and Mistral's "activated parameters").
  double total_params() const;
  double active_params() const;
  // The multi-token prediction modules' own parameters (none shared with the model), all of them,
  // and of those their routed experts' (each module's layer is the model's last layer's kind).
  double mtp_params() const;
  double mtp_routed_expert_params() const;

  static ModelSpec parse(const ParamReader& r);
};

}  // namespace sim
