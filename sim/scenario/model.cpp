#include "sim/scenario/model.hpp"

#include "sim/core/params.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

namespace {

// A layer's widths: hidden, the queries', the K and V projections', the (expert) MLP's, its
// weight matrices (3 with SwiGLU) and experts (1 without MoE).
struct LayerWidths {
  double h, q, kv, ffn, mats, experts;
};

LayerWidths widths(const ModelSpec& m) {
  return {static_cast<double>(m.hidden),
          static_cast<double>(m.query_width()),
          static_cast<double>(m.kv_heads * m.head_dim()),
          static_cast<double>(m.moe ? m.moe->expert_ffn_hidden : m.ffn_hidden),
          m.activation == Activation::SWIGLU ? 3.0 : 2.0,
          m.moe ? static_cast<double>(m.moe->experts) : 1.0};
}

}  // namespace

double ModelSpec::linear_params() const {
  const auto [h, q, kv, ffn, mats, experts] = widths(*this);
  return h * (q + 2 * kv) + q * h + mats * h * ffn * experts;
}

double ModelSpec::rank_kv_heads(int64_t tp) const {
  return kv_heads >= tp ? static_cast<double>(kv_heads) / static_cast<double>(tp) : 1.0;
}

double ModelSpec::layer_params_per_rank(int64_t tp) const {
  const double t = static_cast<double>(tp);
  const double extra_heads = rank_kv_heads(tp) - static_cast<double>(kv_heads) / t;  // 0 when sharded
  const double per_head = 2.0 * static_cast<double>(head_dim()) * (static_cast<double>(hidden) + (rmsnorm ? 0.0 : 1.0));
  return layer_params() / t + extra_heads * per_head;
}

double ModelSpec::layer_params() const {
  const auto [h, q, kv, ffn, mats, experts] = widths(*this);
  const double biases = rmsnorm ? 0.0 : (q + 2 * kv) + h + (ffn * (mats - 1.0) + h) * experts;
  const double router = moe ? h * experts : 0.0;
  const double norms = rmsnorm ? 2 * h : 4 * h;
  return linear_params() + biases + router + norms;
}

double ModelSpec::total_params() const {
  double emb = embedding_params() * (tied_embeddings ? 1.0 : 2.0);
  double final_norm = rmsnorm ? static_cast<double>(hidden) : 2.0 * static_cast<double>(hidden);
  return static_cast<double>(layers) * layer_params() + emb + final_norm;
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
    m.moe = s;
  }
  return m;
}

}  // namespace sim
