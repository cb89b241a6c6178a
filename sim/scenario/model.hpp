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

struct MoeSpec {
  int64_t experts = 1;
  int64_t top_k = 1;
  int64_t expert_ffn_hidden = 0;
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

  // `head_dim`: each head's width; 0 (absent): hidden / heads. PaLM's are 256 wide at hidden 18,432
  // over 48 heads, so its queries span 12,288 (Chowdhery et al. 2022 Table 1).
  int64_t explicit_head_dim = 0;
  int64_t head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  // The queries' width, heads x head_dim: the Q projection's output and the attention output
  // projection's input (hidden unless head_dim says otherwise).
  int64_t query_width() const { return heads * head_dim(); }
  // Parameters of one transformer layer (weights + biases + norms), the whole model, and the
  // embedding matrix (vocab x hidden).
  double layer_params() const;
  // K/V heads one tensor-parallel rank holds: kv_heads / tp, or, when tp is a multiple of kv_heads
  // (multi-query attention at PaLM's tp 12, grouped-query past the groups), one whole head each,
  // replicated over tp / kv_heads ranks (Megatron-Core's num_query_groups < tp; vLLM's
  // "replicate the KV heads"). `kv_shardable` says whether either holds.
  double rank_kv_heads(int64_t tp) const;
  bool kv_shardable(int64_t tp) const { return kv_heads % tp == 0 || tp % kv_heads == 0; }
  // One layer's parameters one tensor-parallel rank holds: layer_params() / tp, plus the K/V
  // weights (and biases) it holds beyond its share when they are replicated.
  double layer_params_per_rank(int64_t tp) const;
  // The weight matrices of one layer (QKV, projection, MLP; every expert's): no bias, norm or router.
  double linear_params() const;
  double embedding_params() const { return static_cast<double>(vocab) * static_cast<double>(hidden); }
  double total_params() const;

  static ModelSpec parse(const ParamReader& r);
};

}  // namespace sim
