// The measurements reader: unit conversions follow the conventions in
// measurements.hpp (closed forms written out here), and malformed files are
// rejected naming file and JSON path.
#include <catch2/catch.hpp>
#include <string>

#include "sim/calibrate/measurements.hpp"
#include "sim/core/params.hpp"
#include "test/unit/input_error_of.hpp"

using namespace sim;

namespace {

Measurements parse(const std::string& body) {
  return Measurements::parse(ParamReader::from_text(
      R"({"kind": "measurements", "schema": 1, "provenance": {"gpu": "test GPU", "source": "test"}, )" + body + "}",
      "m.json"));
}

}  // namespace

TEST_CASE("rates and bandwidths become times by the documented conventions") {
  auto m = parse(
      R"("gemm": [{"m": 1024, "n": 10240, "k": 5120, "dtype": "bf16", "rate": "271.2 TFLOP/s"}],
    "memory": [{"kernel": "copy", "bytes": 8600000000, "bandwidth": "4.3 TB/s"}],
    "attention": [{"batch": 8, "heads": 16, "seq_len": 2048, "head_dim": 128, "causal": true, "pass": "fwd_bwd",
                   "dtype": "bf16", "rate": "187 TFLOP/s"}],
    "collectives": [{"op": "all_reduce", "ranks": 8, "bytes": 1073741824, "busbw": "229.3 GB/s"},
                    {"op": "all_gather", "ranks": 4, "bytes": 1048576, "algbw": "100 GB/s"},
                    {"op": "send_recv", "ranks": 2, "bytes": 1000000, "time": "20 us"}])");
  REQUIRE(m.size() == 6);
  CHECK(m.gemm[0].time.value == Approx(2.0 * 1024 * 10240 * 5120 / 271.2e12).epsilon(1e-12));
  CHECK(m.memory[0].time.value == Approx(2.0e-3).epsilon(1e-12));
  // FlashAttention benchmark convention: fwd = 4 B S^2 H D, halved when causal;
  // fwd+bwd = 3.5 x fwd.
  const double fwd = 4.0 * 8 * 2048.0 * 2048.0 * 16 * 128 / 2;
  CHECK(m.attention[0].flops().value == Approx(3.5 * fwd).epsilon(1e-12));
  CHECK(m.attention[0].time.value == Approx(3.5 * fwd / 187e12).epsilon(1e-12));
  // nccl-tests: busbw = algbw * 2(n-1)/n for all-reduce; vTrain's 1 GiB n=8
  // row: 229.3 GB/s, 8193 us (VIA-Research/vTrain@f8dda84 trace/a100/AR_GPU8_1M_1024M_LUT).
  CHECK(m.collectives[0].time.value == Approx(1073741824.0 / (229.3e9 / (2.0 * 7 / 8))).epsilon(1e-12));
  CHECK(m.collectives[0].time.value * 1e6 == Approx(8193).epsilon(0.002));
  CHECK(m.collectives[1].time.value == Approx(1048576.0 / 100e9).epsilon(1e-12));
  CHECK(m.collectives[2].time.value == Approx(20e-6));
  CHECK(m.collectives[2].op == CollectiveKind::SEND_RECV);
}

TEST_CASE("bus bandwidth factors are nccl-tests' (NVIDIA/nccl-tests src/*.cu)") {
  CHECK(busbw_factor(CollectiveKind::ALL_REDUCE, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(CollectiveKind::ALL_GATHER, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(CollectiveKind::REDUCE_SCATTER, 4) == Approx(3.0 / 4));
  CHECK(busbw_factor(CollectiveKind::ALL_TO_ALL, 2) == Approx(0.5));
  CHECK(busbw_factor(CollectiveKind::SEND_RECV, 2) == 1.0);
}

TEST_CASE("the provenance, profile and scale-up bandwidth are kept") {
  auto m = Measurements::parse(ParamReader::from_text(
      R"({"kind": "measurements", "schema": 1, "scale_up_bandwidth": "450 GB/s",
          "provenance": {"gpu": "NVIDIA H200", "source": "suite", "profile": "h200-sxm", "driver": "580.1"},
          "memory": [{"kernel": "copy", "bytes": 1048576, "time": "1 us", "p10": "0.9 us", "p90": "1.2 us", "reps": 50}]})",
      "m.json"));
  CHECK(m.gpu == "NVIDIA H200");
  CHECK(m.profile == "h200-sxm");
  CHECK(m.scale_up_bandwidth.value == 450e9);
  CHECK(m.provenance_json.find("580.1") != std::string::npos);
}

TEST_CASE("malformed measurement files name the file and the JSON path") {
  struct Case {
    const char* body;
    const char* fragment;
  };
  const Case cases[] = {
      {R"("gemm": [{"m": 1, "n": 1, "k": 1, "dtype": "bf16"}])", "m.json: /gemm/0: gives no measurement"},
      {R"("gemm": [{"m": 1, "n": 1, "k": 1, "dtype": "bf16", "time": "1 us", "rate": "1 TFLOP/s"}])",
       "/gemm/0: gives both 'time' and 'rate'"},
      {R"("gemm": [{"m": 0, "n": 1, "k": 1, "dtype": "bf16", "time": "1 us"}])", "/gemm/0/m: 0 is out of range"},
      {R"("gemm": [{"m": 1, "n": 1, "k": 1, "dtype": "int8", "time": "1 us"}])", "/gemm/0/dtype: 'int8' is not known"},
      {R"("gemm": [{"m": 1, "n": 1, "k": 1, "dtype": "bf16", "tme": "1 us"}])",
       "unknown key 'tme' (did you mean 'time'?)"},
      {R"("memory": [{"kernel": "copy", "bytes": -5, "time": "1 us"}])", "/memory/0/bytes: -5 is out of range"},
      {R"("memory": [{"kernel": "copy", "bytes": 5, "time": "fast"}])", "/memory/0/time: 'fast' does not parse"},
      {R"("memory": [{"kernel": "copy", "bytes": 5, "time": "2 us", "p10": "3 us", "p90": "1 us"}])",
       "/memory/0/p10: is larger than p90"},
      {R"("collectives": [{"op": "send_recv", "ranks": 3, "bytes": 5, "time": "1 us"}])",
       "/collectives/0/ranks: is 3 for send_recv"},
      {R"("collectives": [{"op": "allreduce", "ranks": 8, "bytes": 5, "time": "1 us"}])",
       "'allreduce' is not known (did you mean 'all_reduce'?)"},
      {R"("collectives": [{"op": "all_reduce", "ranks": 8, "bytes": 5, "busbw": "1 GB/s", "algbw": "1 GB/s"}])",
       "gives both 'busbw' and 'algbw'"},
      {R"("attention": [{"batch": 1, "heads": 1, "seq_len": 1, "head_dim": 64, "causal": "yes", "pass": "fwd",
           "dtype": "bf16", "time": "1 us"}])",
       "/attention/0/causal: is string"},
      {R"("gemm": {"m": 1})", "/gemm: is not a list"},
      {R"("gemm": [])", "m.json: /: holds no measurements"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    CHECK_THAT(error_of([&] { parse(c.body); }), Catch::Contains(c.fragment));
  }
  CHECK_THAT(error_of([] {
               Measurements::parse(ParamReader::from_text(
                   R"({"kind": "measurements", "schema": 2,
      "provenance": {"gpu": "g", "source": "s"}})",
                   "m.json"));
             }),
             Catch::Contains("/schema: is not supported"));
  CHECK_THAT(error_of([] {
               Measurements::parse(ParamReader::from_text(
                   R"({"kind": "measurements", "schema": 1,
      "provenance": {"source": "s"}})",
                   "m.json"));
             }),
             Catch::Contains("/provenance/gpu: missing required key"));
  CHECK_THAT(error_of([] { Measurements::load("/nonexistent/m.json"); }), Catch::Contains("/nonexistent/m.json"));
}
