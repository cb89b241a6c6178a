#include "sim/scenario/model.hpp"

#include <algorithm>

#include "sim/core/params.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

namespace {

// A layer's widths: hidden, the queries', the K and V projections', the MLP's (an expert's in an
// MoE layer), its weight matrices (3 with SwiGLU) and experts (routed and shared; 1 for a dense
// MLP), and of those the ones a token passes (top_k and the shared ones).
struct LayerWidths {
  double h, q, kv, ffn, mats, experts, active;
};

LayerWidths widths(const ModelSpec& m, bool moe_layer) {
  const bool moe = moe_layer && m.moe;
  return {static_cast<double>(m.hidden),
          static_cast<double>(m.query_width()),
          static_cast<double>(m.kv_heads * m.head_dim()),
          static_cast<double>(moe ? m.moe->expert_ffn_hidden : m.ffn_hidden),
          m.activation == Activation::SWIGLU ? 3.0 : 2.0,
          moe ? static_cast<double>(m.moe->experts + m.moe->shared_experts) : 1.0,
          moe ? static_cast<double>(m.moe->top_k + m.moe->shared_experts) : 1.0};
}

// The attention's weight matrices: Q, K, V and the output projection, or MLA's (MlaSpec).
double attention_linear(const ModelSpec& m) {
  const auto [h, q, kv, ffn, mats, experts, active] = widths(m, false);
  if (!m.mla) return h * (q + 2 * kv) + q * h;
  const MlaSpec& a = *m.mla;
  const auto heads = static_cast<double>(m.heads);
  const auto qk = static_cast<double>(a.qk_head_dim());
  const auto q_rank = static_cast<double>(a.q_lora_rank), kv_rank = static_cast<double>(a.kv_lora_rank);
  const double query = a.q_lora_rank > 0 ? h * q_rank + q_rank * heads * qk : h * heads * qk;
  return query + h * (kv_rank + static_cast<double>(a.qk_rope_head_dim)) +
         kv_rank * heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim) +
         heads * static_cast<double>(a.v_head_dim) * h;
}

// One layer's parameters: an MoE layer's (where the model has them) or a dense one's, all of
// them or those one token passes.
double layer_params_of(const ModelSpec& m, bool moe_layer, bool only_active) {
  const auto [h, q, kv, ffn, mats, experts, active] = widths(m, moe_layer);
  const double n = only_active ? active : experts;
  const double linear = attention_linear(m) + mats * h * ffn * n;
  const double biases = m.rmsnorm ? 0.0 : (q + 2 * kv) + h + (ffn * (mats - 1.0) + h) * n;
  const double router = moe_layer && m.moe ? h * static_cast<double>(m.moe->experts) : 0.0;
  const double latent_norms = m.mla ? static_cast<double>(m.mla->q_lora_rank + m.mla->kv_lora_rank) : 0.0;
  const double norms = (m.rmsnorm ? 2 * h : 4 * h) + latent_norms;
  return linear + biases + router + norms;
}

// The layers', the embeddings' (two matrices unless tied) and the final norm's.
double model_params(const ModelSpec& m, bool only_active) {
  const auto moe = static_cast<double>(m.moe_layers()), dense = static_cast<double>(m.layers) - moe;
  const double emb = m.embedding_params() * (m.tied_embeddings ? 1.0 : 2.0);
  const double final_norm = m.rmsnorm ? static_cast<double>(m.hidden) : 2.0 * static_cast<double>(m.hidden);
  return moe * layer_params_of(m, true, only_active) + dense * layer_params_of(m, false, only_active) + emb +
         final_norm;
}

}  // namespace

double ModelSpec::linear_params(bool moe_layer) const {
  const auto [h, q, kv, ffn, mats, experts, active] = widths(*this, moe_layer);
  return attention_linear(*this) + mats * h * ffn * experts;
}

double ModelSpec::rank_kv_heads(int64_t tp) const {
  return kv_heads >= tp ? static_cast<double>(kv_heads) / static_cast<double>(tp) : 1.0;
}

double ModelSpec::layer_params_per_rank(int64_t tp, bool moe_layer, int64_t ep, int64_t etp) const {
  const double t = static_cast<double>(tp);
  const double extra_heads = rank_kv_heads(tp) - static_cast<double>(kv_heads) / t;  // 0 when sharded
  const double per_head = 2.0 * static_cast<double>(head_dim()) * (static_cast<double>(hidden) + (rmsnorm ? 0.0 : 1.0));
  if (moe_layer && etp > 0 && etp != tp) {  // the routed experts split otherwise than the rest
    const double routed = routed_expert_params();
    return (layer_params(true) - routed) / t + routed / static_cast<double>(ep * etp) + extra_heads * per_head;
  }
  double params = layer_params(moe_layer);
  if (moe_layer && ep > 1) params -= routed_expert_params() * (1.0 - 1.0 / static_cast<double>(ep));
  return params / t + extra_heads * per_head;
}

double ModelSpec::routed_expert_params() const {
  if (!moe) return 0.0;
  const auto [h, q, kv, ffn, mats, experts, active] = widths(*this, true);
  const auto routed = static_cast<double>(moe->experts);
  return (mats * h * ffn + (rmsnorm ? 0.0 : ffn * (mats - 1.0) + h)) * routed;
}

double ModelSpec::routed_expert_linear_params() const {
  if (!moe) return 0.0;
  const auto [h, q, kv, ffn, mats, experts, active] = widths(*this, true);
  return mats * h * ffn * static_cast<double>(moe->experts);
}

double ModelSpec::layer_params(bool moe_layer) const { return layer_params_of(*this, moe_layer, false); }

bool ModelSpec::moe_layer(int64_t i) const {
  return moe && i >= moe->dense_layers && (i - moe->dense_layers) % moe->layer_interval == moe->layer_interval - 1;
}

int64_t ModelSpec::moe_layers() const {
  if (!moe || layers <= moe->dense_layers) return 0;
  return (layers - moe->dense_layers) / moe->layer_interval;
}

double ModelSpec::total_params() const { return model_params(*this, false); }

double ModelSpec::active_params() const { return model_params(*this, true); }

double ModelSpec::mtp_routed_expert_params() const {
  return moe_layer(layers - 1) ? static_cast<double>(mtp_layers) * routed_expert_params() : 0.0;
}

double ModelSpec::mtp_params() const {
  const auto h = static_cast<double>(hidden);
  const double norms = rmsnorm ? 2 * h : 4 * h;
  return static_cast<double>(mtp_layers) * (layer_params_of(*this, moe_layer(layers - 1), false) + 2 * h * h + norms);
}

ModelSpec ModelSpec::parse(const ParamReader& r) {
  schema_expect_keys(r, "/model");
  if (auto k = r.find("kind")) k->as_choice(schema_choices("/model/kind"));
  ModelSpec m;
  m.name = schema_value(r, "/model/name")->as_string();
  m.layers = schema_count(r, "/model/layers");
  m.hidden = schema_count(r, "/model/hidden");
  m.heads = schema_count(r, "/model/heads");
  m.kv_heads = r.has("kv_heads") ? schema_count(r, "/model/kv_heads") : m.heads;
  m.ffn_hidden = schema_count(r, "/model/ffn_hidden");
  m.vocab = schema_count(r, "/model/vocab");
  m.activation = schema_choice(r, "/model/activation") == "gelu" ? Activation::GELU : Activation::SWIGLU;
  m.rmsnorm = r.has("norm") ? schema_choice(r, "/model/norm") == "rmsnorm" : m.activation == Activation::SWIGLU;
  m.rope = r.has("position") ? schema_choice(r, "/model/position") == "rope" : m.rmsnorm;
  m.tied_embeddings = schema_bool(r, "/model/tied_embeddings");
  m.dropout = r.has("dropout") ? schema_bool(r, "/model/dropout") : m.activation == Activation::GELU;
  if (r.has("head_dim")) m.explicit_head_dim = schema_count(r, "/model/head_dim");
  if (m.explicit_head_dim == 0 && m.hidden % m.heads != 0)
    r.at("heads").fail("hidden=" + std::to_string(m.hidden) + " is not divisible by heads=" + std::to_string(m.heads),
                       "heads dividing hidden, or a head_dim");
  if (m.heads > MAX_MODEL_WIDTH / m.head_dim())
    r.at("heads").fail("heads x head_dim is wider than " + std::to_string(MAX_MODEL_WIDTH), "fewer or narrower heads");
  if (m.heads % m.kv_heads != 0)
    r.at("kv_heads")
        .fail(std::to_string(m.kv_heads) + " does not divide heads=" + std::to_string(m.heads), "a divisor of heads");
  if (auto moe = r.find("moe")) {
    schema_expect_keys(*moe, "/model/moe");
    MoeSpec s;
    s.experts = schema_count(*moe, "/model/moe/experts");
    s.top_k = moe->count("top_k", key_spec("/model/moe/top_k").min, s.experts);  // at most experts
    s.expert_ffn_hidden =
        moe->has("expert_ffn_hidden") ? schema_count(*moe, "/model/moe/expert_ffn_hidden") : m.ffn_hidden;
    s.shared_experts = schema_count(*moe, "/model/moe/shared_experts");
    s.dense_layers = schema_count(*moe, "/model/moe/dense_layers");
    if (s.dense_layers >= m.layers)
      moe->at("dense_layers")
          .fail(
              std::to_string(s.dense_layers) + " dense layers leave no MoE layer of layers=" + std::to_string(m.layers),
              "fewer than layers");
    s.node_limit = schema_count(*moe, "/model/moe/node_limit");
    s.layer_interval = schema_count(*moe, "/model/moe/layer_interval");
    if (s.layer_interval > m.layers - s.dense_layers)
      moe->at("layer_interval")
          .fail("every " + std::to_string(s.layer_interval) + "th of the " + std::to_string(m.layers - s.dense_layers) +
                    " layers after the dense ones leaves no MoE layer",
                "at most layers - dense_layers");
    m.moe = s;
  }
  m.mtp_layers = schema_count(r, "/model/mtp_layers");
  m.sliding_window = schema_count(r, "/model/sliding_window");
  m.full_attention_interval = schema_count(r, "/model/full_attention_interval");
  if (m.full_attention_interval > 0 && m.sliding_window == 0)
    r.at("full_attention_interval")
        .fail("says which layers attend over the whole sequence, but no layer has a sliding window",
              "a sliding_window, or no full_attention_interval");
  if (m.full_attention_interval > m.layers)
    r.at("full_attention_interval")
        .fail("every " + std::to_string(m.full_attention_interval) + "th of the " + std::to_string(m.layers) +
                  " layers is none of them",
              "at most layers");
  if (auto mla = r.find("mla")) {
    schema_expect_keys(*mla, "/model/mla");
    MlaSpec a;
    a.q_lora_rank = schema_count(*mla, "/model/mla/q_lora_rank");
    a.kv_lora_rank = schema_count(*mla, "/model/mla/kv_lora_rank");
    a.qk_nope_head_dim = schema_count(*mla, "/model/mla/qk_nope_head_dim");
    a.qk_rope_head_dim = schema_count(*mla, "/model/mla/qk_rope_head_dim");
    a.v_head_dim = schema_count(*mla, "/model/mla/v_head_dim");
    if (m.heads > MAX_MODEL_WIDTH / std::max(a.qk_head_dim(), a.v_head_dim))
      mla->fail("heads x head widths are wider than " + std::to_string(MAX_MODEL_WIDTH), "fewer or narrower heads");
    m.mla = a;
  }
  return m;
}

}  // namespace sim
