// The fitter recovers known parameters from synthetic measurements: times
// generated here from a made-up GPU by the closed forms of fit.hpp (written out
// below, not through the cost model), with Gaussian noise, must give back every
// parameter within 1 % (issue "Done when"), for twenty different noise draws.
// The noise is 0.5 %: what a median of 50 timed repetitions with a 3 %
// run-to-run spread carries (1.25 * 3 % / sqrt(50) = 0.53 %).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "sim/calibrate/check.hpp"
#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/profile_writer.hpp"
#include "sim/core/params.hpp"
#include "sim/core/rng.hpp"
#include "sim/cost/compute_model.hpp"
#include "test/unit/input_error_of.hpp"

using namespace sim;

namespace {

const std::string kBase = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices/h100-sxm.json";

// The made-up GPU (values unlike any shipped profile).
struct Truth {
  double gemm_eta = 0.72, gemm_half = 3.1e9;  // FLOP
  double fp8_eta = 0.64, fp8_half = 7.3e9;    // FP8 GEMMs, against the fp8 peak
  double mem_eta = 0.83, mem_half = 1.7e6;    // bytes
  double fa_eta = 0.55, fa_half = 700;        // tokens
  double base_lat = 11e-6, step_lat = 2.1e-6, eff = 0.78;
  double host_alpha = 8e-6, host_bw = 24e9;
};

struct Synth {
  Measurements m;
  DeviceSpec base;
};

Synth synthesize(const Truth& t, double noise, uint64_t seed) {
  Synth s{{}, DeviceSpec::parse(ParamReader::load_file(kBase))};
  const double P = 989e12, P8 = 1979e12, BW = 3350e9,
               L = 450e9;  // the H100 profile's datasheet figures
  REQUIRE(s.base.dense_peak.at(Precision::BF16).value == P);
  REQUIRE(s.base.dense_peak.at(Precision::FP8).value == P8);
  REQUIRE(s.base.hbm_bandwidth.value == BW);
  auto rng = make_stream(seed, "calibrate-fit-test");
  std::normal_distribution<double> gauss(0.0, noise);
  auto noisy = [&](double x) { return Seconds(x * (1.0 + gauss(rng))); };
  Measurements& m = s.m;
  m.file = "synthetic.json";
  m.gpu = "synthetic";
  m.scale_up_bandwidth = BytesPerSecond(L);
  auto mem_time = [&](double bytes) { return bytes / (BW * t.mem_eta * bytes / (bytes + t.mem_half)); };
  for (double bytes = 65536; bytes <= 4.3e9; bytes *= 2)
    m.memory.push_back({{}, "copy", Bytes(bytes), noisy(mem_time(bytes))});
  const double dims[] = {256, 512, 1024, 2048, 4096, 8192, 16384};
  for (double a : dims)
    for (double b : dims)
      for (double k : {1024.0, 4096.0}) {
        const double F = 2 * a * b * k, bytes = 2 * (a * k + k * b + a * b);
        // roofline: the larger of compute and memory time (GEMM inputs read
        // once, output written once)
        const double t_flop = (F + t.gemm_half) / (P * t.gemm_eta);
        m.gemm.push_back({{}, a, b, k, 1, "bf16", noisy(std::max(t_flop, mem_time(bytes)))});
        // FP8: 1-byte inputs, a 16-bit output, its own curve against its own peak
        const double bytes8 = a * k + k * b + 2 * a * b;
        const double t_flop8 = (F + t.fp8_half) / (P8 * t.fp8_eta);
        m.gemm.push_back({{}, a, b, k, 1, "fp8", noisy(std::max(t_flop8, mem_time(bytes8)))});
      }
  for (double seq = 256; seq <= 32768; seq *= 2)
    for (double head_dim : {64.0, 128.0})
      for (bool causal : {false, true}) {
        AttentionMeasurement a{{},     16384 / std::min(seq, 16384.0), 2048 / head_dim, seq, head_dim,
                               causal, AttentionPass::FWD_BWD,         "bf16",          "",  Seconds(0)};
        const double F = 3.5 * 4 * a.batch * seq * seq * a.heads * a.head_dim / (causal ? 2 : 1);
        a.time = noisy(F * (seq + t.fa_half) / (P * t.fa_eta * seq));
        m.attention.push_back(a);
      }
  for (int n : {4, 8})
    for (auto op : {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER})
      for (double bytes = 4096; bytes <= 4.3e9; bytes *= 2) {
        const double steps = op == CollectiveKind::ALL_REDUCE ? 2.0 * (n - 1) : n - 1.0;
        const double per_rank = (op == CollectiveKind::ALL_REDUCE ? 2.0 : 1.0) * (n - 1.0) / n * bytes;
        m.collectives.push_back(
            {{}, op, n, Bytes(bytes), "ring", noisy(t.base_lat + steps * t.step_lat + per_rank / (L * t.eff))});
      }
  for (double bytes = 4096; bytes <= 1.1e9; bytes *= 2)
    m.host_copy.push_back({{}, "h2d", true, Bytes(bytes), noisy(t.host_alpha + bytes / t.host_bw)});
  return s;
}

}  // namespace

TEST_CASE(
    "the fit recovers a known GPU from noisy synthetic measurements "
    "within 1%") {
  const Truth t;
  const uint64_t seed = GENERATE(range(1, 21));
  INFO("noise draw " << seed);
  Synth s = synthesize(t, 0.005, seed);
  Calibration c = calibrate(s.m, s.base);
  const DeviceSpec& d = c.device;
  CHECK(c.gemm.fitted);
  CHECK(d.gemm.eta_max == Approx(t.gemm_eta).epsilon(0.01));
  CHECK(d.gemm.x_half == Approx(t.gemm_half).epsilon(0.01));
  CHECK(c.gemm_fp8.fitted);
  CHECK(d.gemm_fp8.eta_max == Approx(t.fp8_eta).epsilon(0.01));
  CHECK(d.gemm_fp8.x_half == Approx(t.fp8_half).epsilon(0.01));
  CHECK(d.memory.eta_max == Approx(t.mem_eta).epsilon(0.01));
  CHECK(d.memory.x_half == Approx(t.mem_half).epsilon(0.01));
  CHECK(d.attention.at(Attention::FLASH).eta_max == Approx(t.fa_eta).epsilon(0.01));
  CHECK(d.attention.at(Attention::FLASH).x_half == Approx(t.fa_half).epsilon(0.01));
  CHECK(c.collectives.fitted);
  CHECK(d.collectives.base_latency.value == Approx(t.base_lat).epsilon(0.01));
  CHECK(d.collectives.scale_up_step_latency.value == Approx(t.step_lat).epsilon(0.01));
  CHECK(d.collectives.scale_up_efficiency == Approx(t.eff).epsilon(0.01));
  REQUIRE(c.host_copies.size() == 1);
  CHECK(c.host_copies[0].alpha.value == Approx(t.host_alpha).epsilon(0.01));
  CHECK(c.host_copies[0].bandwidth.value == Approx(t.host_bw).epsilon(0.01));
  // What the fit cannot see stays as it was.
  CHECK(d.dense_peak == s.base.dense_peak);
  CHECK(d.collectives.scale_out_efficiency == s.base.collectives.scale_out_efficiency);
  // The fit error the user sees is the measurement noise: mean |error| 0.8 x
  // 0.5 % per class.
  for (const auto& e : class_errors(check_profile(s.m, d).predictions)) {
    INFO(e.kernel_class);
    CHECK(e.mean_abs < 0.01);
  }
}

TEST_CASE("without noise the fit is exact") {
  const Truth t;
  Synth s = synthesize(t, 0.0, 1);
  Calibration c = calibrate(s.m, s.base);
  CHECK(c.device.gemm.eta_max == Approx(t.gemm_eta).epsilon(1e-9));
  CHECK(c.device.gemm.x_half == Approx(t.gemm_half).epsilon(1e-6));
  CHECK(c.device.gemm_fp8.eta_max == Approx(t.fp8_eta).epsilon(1e-9));
  CHECK(c.device.gemm_fp8.x_half == Approx(t.fp8_half).epsilon(1e-6));
  CHECK(c.gemm_fp8.rms < 1e-9);
  CHECK(c.device.memory.x_half == Approx(t.mem_half).epsilon(1e-6));
  CHECK(c.device.collectives.scale_up_step_latency.value == Approx(t.step_lat).epsilon(1e-6));
  CHECK(c.gemm.rms < 1e-9);
  // Some of the small GEMMs are memory-bound under these curves and were left
  // out.
  CHECK_THAT(c.gemm.note, Catch::Contains("memory-bound"));
}

TEST_CASE(
    "the written profile reads back as a device with the fitted values "
    "and the provenance") {
  Synth s = synthesize(Truth{}, 0.01, 7);
  s.m.provenance_json = R"({"gpu":"synthetic","source":"test","driver":"580.1"})";
  Calibration c = calibrate(s.m, s.base);
  std::string text = fitted_profile_json(kBase, c, s.m, "synthetic-gpu");
  auto r = ParamReader::from_text(text, "fitted.json");
  DeviceSpec d = DeviceSpec::parse(r);
  CHECK(d.name == "synthetic-gpu");
  CHECK(d.gemm.eta_max == Approx(c.device.gemm.eta_max).epsilon(1e-4));  // 5 significant digits
  CHECK(d.gemm.x_half == Approx(c.device.gemm.x_half).epsilon(1e-4));
  CHECK(d.gemm_fp8.eta_max == Approx(c.device.gemm_fp8.eta_max).epsilon(1e-4));
  CHECK(d.gemm_fp8.x_half == Approx(c.device.gemm_fp8.x_half).epsilon(1e-4));
  CHECK_THAT(r.at("gemm_fp8").at("half_flops").source(), Catch::Contains("fp8 GEMMs"));
  CHECK(d.memory.x_half == Approx(c.device.memory.x_half).epsilon(1e-4));
  CHECK(d.attention.at(Attention::FLASH).x_half == Approx(c.device.attention.at(Attention::FLASH).x_half).margin(0.5));
  CHECK(d.collectives.scale_up_efficiency == Approx(c.device.collectives.scale_up_efficiency).epsilon(1e-4));
  CHECK(d.collectives.base_latency.value == Approx(c.device.collectives.base_latency.value).epsilon(1e-3));
  CHECK_THAT(r.at("gemm").at("efficiency_max").source(), Catch::Contains("synthetic.json"));
  CHECK(r.at("calibration").at("provenance").string("driver") == "580.1");
  CHECK(r.at("hbm").at("bandwidth").source() == ParamReader::load_file(kBase).at("hbm").at("bandwidth").source());
}

TEST_CASE("without FP8 GEMMs measured the FP8 curve stays the base profile's, and a bf16 fit leaves it alone") {
  Synth s = synthesize(Truth{}, 0.0, 1);
  std::vector<GemmMeasurement> bf16;
  for (const auto& g : s.m.gemm)
    if (g.dtype != "fp8") bf16.push_back(g);
  s.m.gemm = bf16;
  Calibration c = calibrate(s.m, s.base);
  CHECK_FALSE(c.gemm_fp8.fitted);
  CHECK_THAT(c.gemm_fp8.note, Catch::Contains("no fp8 GEMMs measured"));
  CHECK(c.device.gemm_fp8.eta_max == s.base.gemm_fp8.eta_max);
  CHECK(c.device.gemm_fp8.x_half == s.base.gemm_fp8.x_half);
  CHECK(c.device.gemm.eta_max == Approx(Truth{}.gemm_eta).epsilon(1e-9));
}

TEST_CASE("measurements that contradict the base profile are rejected") {
  Synth s = synthesize(Truth{}, 0.0, 3);
  for (auto& g : s.m.gemm) g.time = g.time * 0.5;  // twice as fast: 1.44 x the datasheet peak
  CHECK_THAT(error_of([&] { calibrate(s.m, s.base); }),
             Catch::Contains("synthetic.json: /: GEMMs imply an efficiency of 1.44"));
  Synth r = synthesize(Truth{}, 0.0, 3);
  r.m.scale_up_bandwidth = BytesPerSecond(200e9);  // a ring at 0.78 x 450 GB/s is faster than 200 GB/s
  CHECK_THAT(error_of([&] { calibrate(r.m, r.base); }), Catch::Contains("a ring cannot beat the line rate"));
}

TEST_CASE(
    "with one GEMM size only the maximum is fitted and the half point is "
    "kept") {
  Synth s = synthesize(Truth{}, 0.0, 5);
  s.m.gemm.resize(1);
  s.m.gemm[0] = {{}, 8192, 8192, 8192, 1, "bf16", Seconds(2.0 * 8192 * 8192 * 8192 / 700e12)};
  Calibration c = calibrate(s.m, s.base);
  CHECK(c.device.gemm.x_half == s.base.gemm.x_half);
  const double F = 2.0 * 8192 * 8192 * 8192;
  CHECK(c.device.gemm.at(F) * 989e12 == Approx(700e12).epsilon(1e-9));
  CHECK_THAT(c.gemm.note, Catch::Contains("half_flops kept from the base profile (1 distinct size)"));
}

TEST_CASE("records left out of the fits do not move them: --exclude names and the suite's own attention kernels") {
  const Truth t;
  Synth clean = synthesize(t, 0.0, 1);
  Synth mixed = synthesize(t, 0.0, 1);
  // Five times too slow: a badly written norm kernel and the suite's reference attention.
  size_t slow_kernels = 0;
  for (double bytes = 65536; bytes <= 4.3e9; bytes *= 4, ++slow_kernels) {
    const double slow = 5 * bytes / (3350e9 * t.mem_eta * bytes / (bytes + t.mem_half));
    mixed.m.memory.push_back({{}, "rmsnorm_bwd", Bytes(bytes), Seconds(slow)});
  }
  for (auto a : clean.m.attention) {
    a.impl_name = kSuiteAttentionImpl;
    a.time = a.time * 5.0;
    mixed.m.attention.push_back(a);
  }
  const Calibration want = calibrate(clean.m, clean.base);
  const Calibration got = calibrate(mixed.m, mixed.base, FitOptions{{"rmsnorm_bwd"}});
  CHECK(got.device.memory.eta_max == Approx(want.device.memory.eta_max).epsilon(1e-9));
  CHECK(got.device.memory.x_half == Approx(want.device.memory.x_half).epsilon(1e-9));
  CHECK(got.device.attention.at(Attention::FLASH).eta_max ==
        Approx(want.device.attention.at(Attention::FLASH).eta_max).epsilon(1e-9));
  CHECK_THAT(got.memory.note,
             Catch::Contains("left out by --exclude: rmsnorm_bwd (" + std::to_string(slow_kernels) + ")"));
  CHECK_THAT(got.attention.at(Attention::FLASH).note,
             Catch::Contains("records of the suite's own trainsim-tiled kernels left out"));
  CHECK(got.excluded == std::vector<std::string>{"rmsnorm_bwd"});
  // Without --exclude the slow kernel drags the memory fit down (by more than 5 %).
  CHECK(calibrate(mixed.m, mixed.base).device.memory.eta_max < 0.95 * want.device.memory.eta_max);
  // Only the suite's attention measured: the base profile's curve is kept, and the note says why.
  Synth suite_only = synthesize(t, 0.0, 1);
  for (auto& a : suite_only.m.attention) a.impl_name = kSuiteAttentionImpl;
  const Calibration kept = calibrate(suite_only.m, suite_only.base);
  CHECK_FALSE(kept.attention.at(Attention::FLASH).fitted);
  CHECK(kept.device.attention.at(Attention::FLASH).eta_max == suite_only.base.attention.at(Attention::FLASH).eta_max);
  CHECK_THAT(kept.attention.at(Attention::FLASH).note, Catch::Contains("no flash attention measured"));
}

TEST_CASE("each attention kernel is fitted from its own implementation's records: unknown ones are left out") {
  // The same shapes timed by two kernels of different speed (the H200 measured 284 and 481 TFLOP/s
  // at 8k): PyTorch SDPA's flash backend at eta 0.31, cuDNN's at 0.50, and a third implementation
  // of no registry kernel at eta 0.9 that must move neither.
  const Truth t;
  Synth s = synthesize(t, 0.0, 1);
  std::vector<AttentionMeasurement> records;
  const struct {
    const char* impl;
    double eta, half;
  } kernels[] = {{"torch-sdpa-flash", 0.31, 544}, {"torch-sdpa-cudnn", 0.50, 553}, {"FA3", 0.9, 300}};
  for (const auto& k : kernels)
    for (auto a : s.m.attention) {
      const double F = 3.5 * 4 * a.batch * a.seq_len * a.seq_len * a.heads * a.head_dim / (a.causal ? 2 : 1);
      a.impl_name = k.impl;
      a.time = Seconds(F * (a.seq_len + k.half) / (989e12 * k.eta * a.seq_len));
      records.push_back(a);
    }
  s.m.attention = records;
  const Calibration c = calibrate(s.m, s.base);
  CHECK(c.device.attention.at(Attention::FLASH).eta_max == Approx(0.31).epsilon(1e-6));
  CHECK(c.device.attention.at(Attention::FLASH).x_half == Approx(544).epsilon(1e-6));
  CHECK(c.device.attention.at(Attention::CUDNN).eta_max == Approx(0.50).epsilon(1e-6));
  CHECK(c.device.attention.at(Attention::CUDNN).x_half == Approx(553).epsilon(1e-6));
  CHECK_THAT(c.attention.at(Attention::CUDNN).note, Catch::Contains("records of torch-sdpa-cudnn"));
  CHECK_THAT(c.attention.at(Attention::FLASH).note, Catch::Contains("left out, no kernel of the registry: FA3"));
  // The fitted profile carries both curves under their registry keys, and reads back.
  const DeviceSpec d =
      DeviceSpec::parse(ParamReader::from_text(fitted_profile_json(kBase, c, s.m, "two-kernels"), "x.json"));
  CHECK(d.attention_curve(Attention::CUDNN)->eta_max == Approx(0.50).epsilon(1e-4));
  CHECK(d.attention_curve(Attention::FLASH)->eta_max == Approx(0.31).epsilon(1e-4));
}

TEST_CASE("NVLS all-reduces fit the profile's nvls constants and are checked with the NVLS closed form") {
  // t = nvls_latency + S / (L * nvls_efficiency) (cost/collective.hpp), 0.5 % noise, 8 GPUs.
  const double lat = 21e-6, eff = 0.63, L = 450e9;
  Synth s = synthesize(Truth{}, 0.0, 1);
  auto rng = make_stream(7, "calibrate-nvls-test");
  std::normal_distribution<double> gauss(0.0, 0.005);
  for (double bytes = 1 << 20; bytes <= 8.6e9; bytes *= 2)
    s.m.collectives.push_back({{},
                               CollectiveKind::ALL_REDUCE,
                               8,
                               Bytes(bytes),
                               "NVLS",
                               Seconds((lat + bytes / (L * eff)) * (1 + gauss(rng)))});
  const Calibration c = calibrate(s.m, s.base);
  REQUIRE(c.nvls.fitted);
  CHECK(c.device.collectives.nvls_efficiency == Approx(eff).epsilon(0.01));
  CHECK(c.device.collectives.nvls_latency.value == Approx(lat).epsilon(0.05));
  CHECK_THAT(c.collectives.note, Catch::Contains("in-network (NVLS/CollNet) records left out of the ring fit"));
  s.m.provenance_json = R"({"gpu": "synthetic"})";
  const std::string json = fitted_profile_json(kBase, c, s.m, "fitted");
  CHECK_THAT(json, Catch::Contains("\"nvls_efficiency\"") && Catch::Contains("over NVLS all-reduces"));
  size_t nvls_rows = 0;
  for (const auto& p : check_profile(s.m, c.device).predictions)
    if (p.kernel_class == "all-reduce n=8 NVLS") {
      ++nvls_rows;
      CHECK(std::fabs(p.error()) < 0.03);
    }
  CHECK(nvls_rows == 14);
}

TEST_CASE("attention is fitted at head dimension 128, and each other head dimension gets its factor") {
  // The synthetic GPU runs head dimension 64 at 0.87 of its head-dimension-128 efficiency (the H200
  // measured 0.89 for FlashAttention-2): the curve comes back from the 128 records alone, and the
  // factor from the 64 ones; the written profile carries it and prices a 64 record as measured.
  const Truth t;
  Synth s = synthesize(t, 0.0, 1);
  for (auto& a : s.m.attention)
    if (a.head_dim == 64) a.time = a.time * (1 / 0.87);
  s.m.provenance_json = "{}";
  const Calibration c = calibrate(s.m, s.base);
  CHECK(c.device.attention.at(Attention::FLASH).eta_max == Approx(t.fa_eta).epsilon(1e-6));
  CHECK(c.device.attention.at(Attention::FLASH).x_half == Approx(t.fa_half).epsilon(1e-6));
  REQUIRE(c.device.attention_head_dims.at(Attention::FLASH).size() == 1);
  CHECK(c.device.attention_head_dims.at(Attention::FLASH).at(64) == Approx(0.87).epsilon(1e-6));
  CHECK_THAT(c.attention.at(Attention::FLASH).note, Catch::Contains("head dimension 64"));
  const DeviceSpec d =
      DeviceSpec::parse(ParamReader::from_text(fitted_profile_json(kBase, c, s.m, "head-dims"), "x.json"));
  CHECK(d.attention_head_dim_factor(Attention::FLASH, 64) == Approx(0.87).epsilon(1e-4));
  CHECK(d.attention_head_dim_factor(Attention::FLASH, 128) == 1.0);
  const ComputeModel cm(d, Precision::BF16);
  for (const auto& a : s.m.attention)
    if (a.head_dim == 64 && a.seq_len == 4096 && a.causal)
      CHECK(cm.fused_attention(Attention::FLASH, a.flops(), a.min_bytes(), a.seq_len, 64).value ==
            Approx(a.time.value).epsilon(1e-3));
}
