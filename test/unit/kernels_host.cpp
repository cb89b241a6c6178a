// The CUDA-free pieces of the kernel suite (sim/kernels/host): statistics, the shapes-file
// parser, options, numeric decoding, comparisons and the measurements writer, whose output must
// load through the reader trainsim calibrate uses (sim/calibrate/measurements.hpp).
//
// Expected values are worked out by hand in comments: nearest-rank percentiles take the sample of
// 1-based rank ceil(p/100 * n); bf16 is the top half of an IEEE float; fp8 E4M3 has bias 7.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>

#include "sim/calibrate/measurements.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/dtype.hpp"
#include "sim/kernels/host/json_writer.hpp"
#include "sim/kernels/host/options.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/host/shapes.hpp"
#include "sim/kernels/host/stats.hpp"

using namespace sim::kernels;

namespace {

ShapeList parse(const std::string& text) {
  std::istringstream in(text);
  return parse_shapes(in, "shapes.txt");
}

std::string shapes_error(const std::string& text) {
  try {
    parse(text);
  } catch (const ShapesError& e) {
    return e.what();
  }
  return "(no error)";
}

Stats stats(double median_s, double p10_s, double p90_s, int reps) {
  Stats s;
  s.median = median_s;
  s.p10 = p10_s;
  s.p90 = p90_s;
  s.reps = reps;
  return s;
}

}  // namespace

TEST_CASE("stats: nearest-rank median, p10 and p90", "[kernels]") {
  // n = 10, samples 1..10 shuffled: p10 -> rank ceil(1) = 1, p50 -> rank 5, p90 -> rank 9.
  Stats s = summarize({7, 3, 10, 1, 9, 2, 8, 4, 6, 5});
  CHECK(s.p10 == 1.0);
  CHECK(s.median == 5.0);
  CHECK(s.p90 == 9.0);
  CHECK(s.reps == 10);
  // n = 5: p10 -> ceil(0.5) = 1, p50 -> ceil(2.5) = 3, p90 -> ceil(4.5) = 5.
  s = summarize({50, 10, 40, 20, 30});
  CHECK(s.p10 == 10.0);
  CHECK(s.median == 30.0);
  CHECK(s.p90 == 50.0);
  // n = 4: the median is the lower middle sample (rank ceil(2) = 2).
  CHECK(summarize({4, 1, 3, 2}).median == 2.0);
  // n = 20: p90 -> rank 18 exactly (0.9 * 20 must not round up to rank 19).
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  CHECK(summarize(twenty).p90 == 18.0);
  CHECK(summarize(twenty).p10 == 2.0);
  // n = 1: every percentile is the sample.
  s = summarize({0.25});
  CHECK((s.p10 == 0.25 && s.median == 0.25 && s.p90 == 0.25));
  CHECK_THROWS_AS(summarize({}), std::invalid_argument);
  CHECK_THROWS_AS(nearest_rank({1.0}, 0.0), std::invalid_argument);
}

TEST_CASE("stats: repetition budget is target / estimate clamped to [min, max]", "[kernels]") {
  CHECK(rep_budget(1e-3, 0.1, 5, 100) == 100);  // 100 fits exactly
  CHECK(rep_budget(1e-4, 0.1, 5, 100) == 100);  // 1000, clamped
  CHECK(rep_budget(10e-3, 0.1, 5, 100) == 10);
  CHECK(rep_budget(30e-3, 0.1, 5, 100) == 5);  // floor(3.3) = 3, raised to the minimum
  CHECK(rep_budget(0.0, 0.1, 5, 100) == 100);  // too short to estimate
}

TEST_CASE("shapes: gemm and attention lines, comments and blank lines", "[kernels]") {
  const ShapeList s = parse(
      "# model shapes\n"
      "\n"
      "gemm 8192 8192 8192 1\n"
      "  gemm\t128 2048 2048 12   # batched\n"
      "attention 1 8 8192 128 1\n"
      "attention 2 16 2048 64 0\n");
  REQUIRE(s.gemm.size() == 2);
  CHECK(s.gemm[0] == GemmShape{8192, 8192, 8192, 1});
  CHECK(s.gemm[1] == GemmShape{128, 2048, 2048, 12});
  REQUIRE(s.attention.size() == 2);
  CHECK(s.attention[0] == AttentionShape{1, 8, 8192, 128, true});
  CHECK(s.attention[1] == AttentionShape{2, 16, 2048, 64, false});
  CHECK(parse("# nothing\n\n").gemm.empty());
}

TEST_CASE("shapes: a malformed line is reported with its file and line number", "[kernels]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(shapes_error("gemm 1 2 3 4\n# ok\ngemm 1 2 x 4\n"),
             Contains("shapes.txt:3:") && Contains("K 'x' is not a whole number"));
  CHECK_THAT(shapes_error("gemm 1 2 3\n"), Contains("shapes.txt:1:") && Contains("takes 4 numbers, got 3"));
  CHECK_THAT(shapes_error("\n\nattention 1 8 1024 128 2\n"),
             Contains("shapes.txt:3:") && Contains("CAUSAL 2 is out of range"));
  CHECK_THAT(shapes_error("gemm 0 2 3 4\n"), Contains("M 0 is out of range"));
  CHECK_THAT(shapes_error("conv 1 2 3\n"), Contains("shapes.txt:1: unknown shape kind 'conv'"));
  CHECK_THROWS_AS(load_shapes("/nonexistent/shapes.txt"), ShapesError);
}

TEST_CASE("options: values, lists and errors", "[kernels]") {
  Options o = parse_options({"-o", "out.json", "--only=gemm,memory", "--scale-up-bandwidth", "450 GB/s", "--profile",
                             "h200-sxm", "--device=1", "--gemm-best-of-4"});
  CHECK(o.output == "out.json");
  CHECK(o.runs("gemm"));
  CHECK(o.runs("memory"));
  CHECK_FALSE(o.runs("collectives"));
  CHECK(o.scale_up_bandwidth == "450 GB/s");
  CHECK(o.profile == "h200-sxm");
  CHECK(o.device == 1);
  CHECK(o.gemm_best_of_4);
  CHECK_FALSE(o.shapes_given);
  CHECK(parse_options({}).runs("collectives"));
  CHECK_THROWS_AS(parse_options({"--only", "gemm,fft"}), UsageError);
  CHECK_THROWS_AS(parse_options({"--scale-up-bandwidth", "450"}), UsageError);
  CHECK_THROWS_AS(parse_options({"--device", "-1"}), UsageError);
  CHECK_THROWS_AS(parse_options({"--shapes"}), UsageError);
  CHECK_THROWS_AS(parse_options({"--frobnicate"}), UsageError);
}

TEST_CASE("dtype: bf16 and fp8 e4m3 decoding", "[kernels]") {
  CHECK(bf16_to_float(0x3f80) == 1.0f);
  CHECK(bf16_to_float(0xc040) == -3.0f);
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  // 1 + 2^-8 lies halfway between bf16 1.0 and 1 + 2^-7: ties to even keep 1.0.
  CHECK(float_to_bf16(1.00390625f) == 0x3f80);
  CHECK(float_to_bf16(1.01171875f) == 0x3f82);  // 1 + 3*2^-8: halfway, rounds to the even 1 + 2^-6
  CHECK(fp8_e4m3_to_float(0x38) == 1.0f);       // exponent 7 - bias 7, mantissa 0
  CHECK(fp8_e4m3_to_float(0xb8) == -1.0f);
  CHECK(fp8_e4m3_to_float(0x7e) == 448.0f);                // 2^8 * 1.75, the largest finite value
  CHECK(fp8_e4m3_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal: 1/8 * 2^-6
  CHECK(std::isnan(fp8_e4m3_to_float(0x7f)));
}

TEST_CASE("compare: tolerance, worst element, NaN", "[kernels]") {
  Comparison c = compare({1.0, 2.05, 3.0}, {1.0, 2.0, 3.0}, 0.0, 0.01);  // tolerance at [1]: 0.02
  CHECK(c.failures == 1);
  CHECK(c.worst == 1);
  CHECK_FALSE(c.ok());
  CHECK_THROWS_AS(require(c, "y"), CheckFailure);
  CHECK(compare({1.0, 2.01}, {1.0, 2.0}, 0.0, 0.01).ok());
  c = compare({1.0, std::numeric_limits<double>::quiet_NaN()}, {1.0, 2.0}, 1.0, 1.0);
  CHECK(c.failures == 1);
  CHECK(c.worst == 1);
  CHECK(compare({5.0}, {4.0}, std::vector<double>{1.0}).ok());
}

TEST_CASE("json writer: escaping, time format, rejected values", "[kernels]") {
  CHECK(json_quote("a\"b\\c\n\t\x01") == "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  CHECK(format_time(812.3451e-6) == "812.3451 us");
  CHECK(format_time(1.5) == "1500000 us");
  Record r;
  r.integer("n", 3);
  CHECK_THROWS_AS(r.integer("n", 4), std::logic_error);
  CHECK_THROWS_AS(r.number("x", std::nan("")), std::logic_error);
  CHECK(Record().text("k", "v").flag("b", true).number("x", 0.5).to_json() == R"({"k": "v", "b": true, "x": 0.5})");
  CHECK_THROWS_AS(MeasurementWriter().to_json(), std::logic_error);  // no provenance
}

TEST_CASE("json writer: the suite's records load through Measurements::load", "[kernels]") {
  MeasurementWriter w;
  Record prov;
  prov.text("gpu", "NVIDIA H200").text("source", "trainsim kernel suite, sim/kernels").text("profile", "h200-sxm");
  prov.integer("sms", 132).text("host", "node \"7\"\n");
  w.set_provenance(prov);
  w.set_scale_up_bandwidth("450 GB/s");
  // Times chosen so that 7 significant digits are needed: relative rounding stays below 1e-6.
  w.add(Section::GEMM,
        gemm_record({8192, 8192, 8192, 1}, "bf16", "heuristic", stats(1.4123457e-3, 1.41e-3, 1.42e-3, 70)));
  w.add(Section::GEMM, gemm_record({2048, 128, 2048, 16}, "fp8", "heuristic", stats(12.345678e-6, 12e-6, 13e-6, 100)));
  w.add(Section::MEMORY, memory_record("rmsnorm_fwd", 268468224, 16384, 4096, stats(61.23456e-6, 60e-6, 63e-6, 100)));
  w.add(Section::MEMORY, memory_record("copy", 8589934592, 0, 0, stats(1.987654e-3, 1.98e-3, 1.99e-3, 25)));
  w.add(Section::ATTENTION,
        attention_record({8, 16, 2048, 128, true}, "fwd", "trainsim-tiled", stats(2.5e-3, 2.4e-3, 2.6e-3, 40)));
  w.add(Section::ATTENTION,
        attention_record({8, 16, 2048, 128, true}, "fwd_bwd", "trainsim-tiled", stats(9.1e-3, 9e-3, 9.2e-3, 11)));
  w.add(Section::HOST_COPY,
        host_copy_record("h2d", true, 67108864, "cudaMemcpyAsync x4", stats(1.3421773e-3, 1.3e-3, 1.4e-3, 75)));
  w.add(Section::HOST_COPY,
        host_copy_record("d2h", false, 65536, "cudaMemcpyAsync x16", stats(7.654321e-6, 7e-6, 8e-6, 100)));
  w.add(Section::COLLECTIVES,
        collective_record("all_reduce", 8, 1048576, "default", stats(23.45678e-6, 23e-6, 24e-6, 20)));
  w.add(Section::COLLECTIVES, collective_record("send_recv", 2, 8, "default", stats(9.876543e-6, 9e-6, 10e-6, 20)));
  REQUIRE(w.size() == 10);

  const std::string path = (std::filesystem::temp_directory_path() / "trainsim_kernels_host_test.json").string();
  w.write(path);
  const sim::Measurements m = sim::Measurements::load(path);
  std::remove(path.c_str());

  CHECK(m.gpu == "NVIDIA H200");
  CHECK(m.source == "trainsim kernel suite, sim/kernels");
  CHECK(m.profile == "h200-sxm");
  CHECK(m.scale_up_bandwidth.value == Approx(450e9));
  REQUIRE(m.gemm.size() == 2);
  CHECK(m.gemm[0].m == 8192);
  CHECK(m.gemm[0].dtype == "bf16");
  CHECK(m.gemm[0].time.value == Approx(1.4123457e-3).epsilon(1e-6));
  CHECK(m.gemm[1].batch == 16);
  CHECK(m.gemm[1].dtype == "fp8");
  CHECK(m.gemm[1].time.value == Approx(12.345678e-6).epsilon(1e-6));
  REQUIRE(m.memory.size() == 2);
  CHECK(m.memory[0].kernel == "rmsnorm_fwd");
  CHECK(m.memory[0].bytes.value == 268468224.0);
  CHECK(m.memory[0].time.value == Approx(61.23456e-6).epsilon(1e-6));
  CHECK(m.memory[1].bytes.value == 8589934592.0);
  CHECK(m.memory[1].time.value == Approx(1.987654e-3).epsilon(1e-6));
  REQUIRE(m.attention.size() == 2);
  CHECK(m.attention[0].causal);
  CHECK(m.attention[0].pass == sim::AttentionPass::FWD);
  CHECK(m.attention[0].head_dim == 128);
  CHECK(m.attention[0].time.value == Approx(2.5e-3).epsilon(1e-6));
  CHECK(m.attention[1].pass == sim::AttentionPass::FWD_BWD);
  REQUIRE(m.host_copy.size() == 2);
  CHECK(m.host_copy[0].direction == "h2d");
  CHECK(m.host_copy[0].pinned);
  CHECK_FALSE(m.host_copy[1].pinned);
  CHECK(m.host_copy[0].time.value == Approx(1.3421773e-3).epsilon(1e-6));
  CHECK(m.host_copy[1].time.value == Approx(7.654321e-6).epsilon(1e-6));
  REQUIRE(m.collectives.size() == 2);
  CHECK(m.collectives[0].op == sim::CollectiveKind::ALL_REDUCE);
  CHECK(m.collectives[0].ranks == 8);
  CHECK(m.collectives[0].algo == "default");
  CHECK(m.collectives[0].time.value == Approx(23.45678e-6).epsilon(1e-6));
  CHECK(m.collectives[1].op == sim::CollectiveKind::SEND_RECV);
  CHECK(m.collectives[1].time.value == Approx(9.876543e-6).epsilon(1e-6));
}
