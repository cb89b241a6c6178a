#include "sim/kernels/host/records.hpp"

namespace sim::kernels {

Record gemm_record(const GemmShape& s, const std::string& dtype, const std::string& algo, const Stats& t) {
  Record r;
  r.integer("m", s.m).integer("n", s.n).integer("k", s.k).integer("batch", s.batch).text("dtype", dtype);
  r.text("layout", "TN").text("algo", algo).timing(t);
  if (dtype == "fp8") r.text("note", "e4m3 A and B, bf16 D, fp32 accumulation without fast-accumulate");
  return r;
}

Record memory_record(const std::string& kernel, int64_t bytes, int64_t tokens, int64_t hidden, const Stats& t) {
  Record r;
  r.text("kernel", kernel).integer("bytes", bytes);
  if (tokens > 0) r.integer("tokens", tokens);
  if (hidden > 0) r.integer("hidden", hidden);
  return r.text("dtype", "bf16").timing(t);
}

Record attention_record(const AttentionShape& s, const std::string& pass, const std::string& impl, const Stats& t) {
  Record r;
  r.integer("batch", s.batch).integer("heads", s.heads).integer("seq_len", s.seq_len).integer("head_dim", s.head_dim);
  r.flag("causal", s.causal).text("pass", pass).text("dtype", "bf16").text("impl", impl).timing(t);
  if (pass == "fwd_bwd") r.text("note", "sum of the fwd and bwd records' times, p10s and p90s");
  return r;
}

Record host_copy_record(const std::string& direction, bool pinned, int64_t bytes, const std::string& method,
                        const Stats& t) {
  Record r;
  r.text("direction", direction).flag("pinned", pinned).integer("bytes", bytes).timing(t).text("method", method);
  return r;
}

Record collective_record(const std::string& op, int ranks, int64_t bytes, const std::string& algo, const Stats& t) {
  Record r;
  r.text("op", op).integer("ranks", ranks).integer("bytes", bytes).text("algo", algo).text("dtype", "bf16");
  return r.timing(t);
}

}  // namespace sim::kernels
