#include "sim/calibrate/measurements.hpp"

#include <cstdio>

#include "sim/core/params.hpp"

namespace sim {

const char* to_string(AttentionPass p) {
  switch (p) {
    case AttentionPass::FWD: return "fwd";
    case AttentionPass::BWD: return "bwd";
    case AttentionPass::FWD_BWD: return "fwd_bwd";
  }
  return "?";
}

Bytes GemmMeasurement::min_bytes() const {
  const double in = dtype == "fp8" ? 1.0 : 2.0;
  return Bytes(((m * k + k * n) * in + m * n * 2.0) * batch);
}

Flops AttentionMeasurement::flops() const {
  double fwd = 4.0 * batch * seq_len * seq_len * heads * head_dim / (causal ? 2.0 : 1.0);
  switch (pass) {
    case AttentionPass::FWD: return Flops(fwd);
    case AttentionPass::BWD: return Flops(2.5 * fwd);
    case AttentionPass::FWD_BWD: return Flops(3.5 * fwd);
  }
  return Flops(fwd);
}

Flops AttentionMeasurement::kernel_flops(Attention kind) const {
  return flops() * (kernel_head_dim(kind, head_dim) / head_dim);
}

Bytes AttentionMeasurement::min_bytes() const {
  const double tensor = 2.0 * batch * seq_len * heads * head_dim;  // one bf16/fp16 [B,S,H,D] tensor
  // fwd reads Q, K, V and writes O; bwd reads Q, K, V, O, dO and writes dQ, dK,
  // dV.
  switch (pass) {
    case AttentionPass::FWD: return Bytes(4.0 * tensor);
    case AttentionPass::BWD: return Bytes(8.0 * tensor);
    case AttentionPass::FWD_BWD: return Bytes(12.0 * tensor);
  }
  return Bytes(4.0 * tensor);
}

namespace {

// Keys every record may carry besides its own.
constexpr const char* kSpread[] = {"source", "p10", "p90", "reps", "note"};

void expect_record_keys(const ParamReader& r, std::initializer_list<const char*> own) {
  std::vector<std::string> all(own.begin(), own.end());
  all.insert(all.end(), std::begin(kSpread), std::end(kSpread));
  r.expect_keys(all);
}

// The record's time: "time" directly, or `amount` divided by the rate under
// `rate_key`. Exactly one of them must be present.
// The memory-bound kernels the suite measures (sim/kernels/memory_suite.cpp, copy_suite.cpp) and
// the published files hold: all priced by the memory curve, the name a label for --exclude and the
// error table. Another name is most likely a typo, which would enter the fit unnoticed.
const std::vector<std::string>& memory_kernel_names() {
  static const std::vector<std::string> names = {
      "copy",        "copy_sm",  "rmsnorm_fwd", "rmsnorm_bwd", "layernorm_fwd", "layernorm_bwd", "softmax_fwd",
      "softmax_bwd", "gelu_fwd", "gelu_bwd",    "swiglu_fwd",  "swiglu_bwd",    "residual_add"};
  return names;
}

template <class Amount, class Rate>
Seconds time_of(const ParamReader& r, Amount amount, const char* rate_key, Rate (ParamReader::*as_rate)() const,
                double rate_scale = 1.0) {
  const bool has_time = r.has("time"), has_rate = r.has(rate_key);
  if (has_time == has_rate)
    r.fail(has_time ? std::string("gives both 'time' and '") + rate_key + "'" : std::string("gives no measurement"),
           std::string("exactly one of \"time\" or \"") + rate_key + "\"");
  Seconds t = has_time ? r.at("time").as_seconds() : amount / ((r.at(rate_key).*as_rate)() * rate_scale);
  if (r.has("reps")) r.count("reps", 1, int64_t(1) << 40);  // a median of no repetition measures nothing
  if (r.has("p10") && r.has("p90")) {
    Seconds lo = r.at("p10").as_seconds(), hi = r.at("p90").as_seconds();
    if (lo > hi) r.at("p10").fail("is larger than p90", "p10 <= p90");
  }
  return t;
}

RecordRef ref(const ParamReader& r) { return {r.file(), r.path()}; }

double dimension(const ParamReader& r, const char* key) {
  return static_cast<double>(r.count(key, 1, int64_t(1) << 31));
}

GemmMeasurement parse_gemm(const ParamReader& r) {
  expect_record_keys(r, {"m", "n", "k", "batch", "dtype", "time", "rate", "layout", "algo"});
  GemmMeasurement g;
  g.at = ref(r);
  g.m = dimension(r, "m");
  g.n = dimension(r, "n");
  g.k = dimension(r, "k");
  g.batch = r.has("batch") ? static_cast<double>(r.count("batch", 1, 1 << 20)) : 1.0;
  g.dtype = r.at("dtype").as_choice({"bf16", "fp16", "fp8"});
  g.time = time_of(r, Flops(2.0 * g.m * g.n * g.k * g.batch), "rate", &ParamReader::as_flops_rate);
  return g;
}

MemoryMeasurement parse_memory(const ParamReader& r) {
  expect_record_keys(r, {"kernel", "bytes", "time", "bandwidth", "tokens", "hidden", "dtype"});
  MemoryMeasurement m;
  m.at = ref(r);
  m.kernel = r.at("kernel").as_choice(memory_kernel_names());
  m.bytes = Bytes(static_cast<double>(r.count("bytes", 1, int64_t(1) << 50)));
  m.time = time_of(r, m.bytes, "bandwidth", &ParamReader::as_bandwidth);
  return m;
}

AttentionMeasurement parse_attention(const ParamReader& r) {
  expect_record_keys(r, {"batch", "heads", "seq_len", "head_dim", "causal", "pass", "dtype", "impl", "time", "rate"});
  AttentionMeasurement a;
  a.at = ref(r);
  a.batch = dimension(r, "batch");
  a.heads = dimension(r, "heads");
  a.seq_len = dimension(r, "seq_len");
  a.head_dim = static_cast<double>(r.count("head_dim", 1, 1024));
  a.causal = r.boolean("causal");
  std::string pass = r.at("pass").as_choice({"fwd", "bwd", "fwd_bwd"});
  a.pass = pass == "fwd" ? AttentionPass::FWD : pass == "bwd" ? AttentionPass::BWD : AttentionPass::FWD_BWD;
  a.dtype = r.at("dtype").as_choice({"bf16", "fp16", "fp8"});
  if (auto impl = r.find("impl")) a.impl_name = impl->as_string();
  a.time = time_of(r, a.flops(), "rate", &ParamReader::as_flops_rate);
  return a;
}

HostCopyMeasurement parse_host_copy(const ParamReader& r) {
  expect_record_keys(r, {"direction", "pinned", "bytes", "time", "bandwidth", "method"});
  HostCopyMeasurement h;
  h.at = ref(r);
  h.direction = r.at("direction").as_choice({"h2d", "d2h"});
  h.pinned = r.boolean("pinned");
  h.bytes = Bytes(static_cast<double>(r.count("bytes", 1, int64_t(1) << 50)));
  h.time = time_of(r, h.bytes, "bandwidth", &ParamReader::as_bandwidth);
  return h;
}

CollectiveMeasurement parse_collective(const ParamReader& r) {
  expect_record_keys(r, {"op", "ranks", "bytes", "algo", "dtype", "time", "busbw", "algbw"});
  CollectiveMeasurement c;
  c.at = ref(r);
  std::string op = r.at("op").as_choice({"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"});
  c.op = op == "all_reduce"       ? CollectiveKind::ALL_REDUCE
         : op == "all_gather"     ? CollectiveKind::ALL_GATHER
         : op == "reduce_scatter" ? CollectiveKind::REDUCE_SCATTER
         : op == "all_to_all"     ? CollectiveKind::ALL_TO_ALL
                                  : CollectiveKind::SEND_RECV;
  c.ranks = r.count("ranks", 2, 1 << 20);
  if (c.op == CollectiveKind::SEND_RECV && c.ranks != 2)
    r.at("ranks").fail("is " + std::to_string(c.ranks) + " for send_recv", "2");
  c.bytes = Bytes(static_cast<double>(r.count("bytes", 1, int64_t(1) << 50)));
  c.algo = r.has("algo") ? r.string("algo") : "default";
  if (r.has("busbw") && r.has("algbw")) r.fail("gives both 'busbw' and 'algbw'", "one of them");
  if (r.has("busbw"))
    c.time = time_of(r, c.bytes, "busbw", &ParamReader::as_bandwidth, 1.0 / busbw_factor(c.op, c.ranks));
  else
    c.time = time_of(r, c.bytes, "algbw", &ParamReader::as_bandwidth);
  return c;
}

template <class Record, class Parse>
void parse_list(const ParamReader& r, const char* key, std::vector<Record>& out, Parse parse) {
  auto list = r.find(key);
  if (!list) return;
  if (!list->is_array()) list->fail("is not a list", "a list of measurement records");
  for (size_t i = 0; i < list->size(); ++i) {
    ParamReader item = (*list)[i];
    item.expect_object();
    out.push_back(parse(item));
  }
}

}  // namespace

Measurements Measurements::parse(const ParamReader& r) {
  r.expect_object();
  r.expect_keys({"kind", "schema", "provenance", "scale_up_bandwidth", "gemm", "memory", "attention", "host_copy",
                 "collectives"});
  r.at("kind").as_choice({"measurements"});
  if (r.count("schema", 1, 1000) != 1) r.at("schema").fail("is not supported", "1");
  Measurements m;
  m.file = r.file();
  ParamReader prov = r.at("provenance");
  prov.expect_object();
  m.gpu = prov.string("gpu");
  m.source = prov.string("source");
  if (auto p = prov.find("profile")) m.profile = p->as_string();
  if (auto t = prov.find("timing")) m.burst = t->as_choice({"burst", "back-to-back"}) == "burst";
  m.provenance_json = prov.dump();
  if (auto b = r.find("scale_up_bandwidth")) m.scale_up_bandwidth = b->as_bandwidth();
  parse_list(r, "gemm", m.gemm, parse_gemm);
  parse_list(r, "memory", m.memory, parse_memory);
  parse_list(r, "attention", m.attention, parse_attention);
  parse_list(r, "host_copy", m.host_copy, parse_host_copy);
  parse_list(r, "collectives", m.collectives, parse_collective);
  if (m.size() == 0)
    r.fail("holds no measurements",
           "at least one record in gemm, memory, "
           "attention, host_copy or collectives");
  return m;
}

Measurements Measurements::load(const std::string& path) { return parse(ParamReader::load_file(path)); }

}  // namespace sim
