// `trainsim calibrate MEASUREMENTS [-o device.json] [--base PROFILE]` and
// `--check`.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "sim/calibrate/check.hpp"
#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/profile_writer.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"

namespace sim::cli {
namespace {

std::string profile_file(const std::string& option, const std::string& name) {
  std::string path = device_file(name, default_data_dir());
  if (path.empty()) {
    auto [what, expected] = unknown_device(name, default_data_dir());
    throw InputError(option, "", what, expected);
  }
  return path;
}

// --name, else the output file's name without ".json"; the base profile's name with "-fitted"
// when the profile goes to standard output.
// The name must read back as a profile's name does (`run` refuses a control character in it).
std::string profile_name(const CalibrateArgs& a, const DeviceSpec& base) {
  std::string name = !a.name.empty()   ? a.name
                     : a.output == "-" ? base.name + "-fitted"
                                       : std::filesystem::path(a.output).stem().string();
  check_printable(name, a.name.empty() ? "-o " + a.output : "--name", "");
  if (name.empty()) throw InputError("--name", "", "is empty", "a profile name");
  return name;
}

void print_curve(const char* what, const ParameterFit& f, const SaturatingCurve& before, const SaturatingCurve& after,
                 const char* half_unit, double half_scale) {
  if (!f.fitted) {
    std::printf("  %-16s kept: %s\n", what, f.note.c_str());
    return;
  }
  std::printf(
      "  %-16s eta_max %.4f -> %.4f, half %.4g -> %.4g %s  (%zu "
      "points, rms %.1f%%)%s%s\n",
      what, before.eta_max, after.eta_max, before.x_half / half_scale, after.x_half / half_scale, half_unit, f.points,
      100 * f.rms, f.note.empty() ? "" : "; ", f.note.c_str());
}

}  // namespace

int calibrate(const CalibrateArgs& a) {
  Measurements m = Measurements::load(a.measurements);
  std::string base_name = !a.base.empty() ? a.base : m.profile;
  if (base_name.empty())
    throw InputError(a.measurements, "/provenance/profile", "names no device profile to start from",
                     "a \"profile\" entry, or --base NAME (e.g. --base h200-sxm)");
  const std::string base_file = profile_file("--base", base_name);
  const DeviceSpec base = DeviceSpec::parse(device_profile(base_file, default_data_dir()));
  const std::string device_file = a.device.empty() ? base_file : profile_file("--device", a.device);
  const DeviceSpec checked =
      a.device.empty() ? base : DeviceSpec::parse(device_profile(device_file, default_data_dir()));
  check_outputs({{"-o", a.output}, {"--csv", a.csv}}, {a.measurements});
  const std::string name = a.output.empty() ? std::string() : profile_name(a, base);

  if (a.check) {
    const std::string& file = device_file;
    const DeviceSpec& d = checked;
    std::printf("profile %s against %s (%s; %zu measurements)\n\n", file.c_str(), m.file.c_str(), m.gpu.c_str(),
                m.size());
    const CheckResult r = check_profile(m, d);
    std::fputs(error_table(r).c_str(), stdout);
    if (!a.csv.empty()) write_output(a.csv, predictions_csv(r));
    return 0;
  }

  Calibration c = calibrate(m, base, FitOptions{a.exclude});
  std::printf("calibrating %s from %s (%s; %zu measurements)\n\n", base.name.c_str(), m.file.c_str(), m.gpu.c_str(),
              m.size());
  std::printf("fitted parameters (base -> fitted):\n");
  print_curve("gemm", c.gemm, base.gemm, c.device.gemm, "GFLOP", 1e9);
  print_curve("gemm_fp8", c.gemm_fp8, base.gemm_fp8, c.device.gemm_fp8, "GFLOP", 1e9);
  print_curve("memory_ops", c.memory, base.memory, c.device.memory, "MB", 1e6);
  for (const auto& [kind, fit] : c.attention) {
    const SaturatingCurve none{0, 0};
    const SaturatingCurve* before = base.attention_curve(kind);
    const SaturatingCurve* after = c.device.attention_curve(kind);
    print_curve(attention_kernel(kind).profile_key, fit, before ? *before : none, after ? *after : none, "tokens", 1);
  }
  if (c.device.sustained_compute != base.sustained_compute)
    std::printf("  %-16s %.4g -> %.4g: the curves are fitted to back-to-back timings, at a step's clock\n",
                "sustained_compute", base.sustained_compute, c.device.sustained_compute);
  if (c.collectives.fitted) {
    const auto &b = base.collectives, &k = c.device.collectives;
    std::printf(
        "  %-16s base %.3g -> %.3g us, step %.3g -> %.3g us, "
        "efficiency %.3f -> %.3f  (%zu points, rms "
        "%.1f%%)%s%s\n",
        "collectives", b.base_latency.value * 1e6, k.base_latency.value * 1e6, b.scale_up_step_latency.value * 1e6,
        k.scale_up_step_latency.value * 1e6, b.scale_up_efficiency, k.scale_up_efficiency, c.collectives.points,
        100 * c.collectives.rms, c.collectives.note.empty() ? "" : "; ", c.collectives.note.c_str());
  } else {
    std::printf("  %-16s kept: %s\n", "collectives", c.collectives.note.c_str());
  }
  if (c.nvls.fitted)
    std::printf("  %-16s latency %.3g -> %.3g us, efficiency %.3f -> %.3f  (%zu points, rms %.1f%%)%s%s\n", "nvls",
                base.collectives.nvls_latency.value * 1e6, c.device.collectives.nvls_latency.value * 1e6,
                base.collectives.nvls_efficiency, c.device.collectives.nvls_efficiency, c.nvls.points, 100 * c.nvls.rms,
                c.nvls.note.empty() ? "" : "; ", c.nvls.note.c_str());
  else
    std::printf("  %-16s kept: %s\n", "nvls", c.nvls.note.c_str());
  if (!c.regimes.empty()) {
    std::printf(
        "\ncollectives, alpha-beta per size regime (t = alpha + "
        "bytes/algbw):\n");
    for (const auto& r : c.regimes)
      std::printf(
          "  %-15s n=%-3lld %-8s %10s .. %-10s alpha %8.2f us  busbw "
          "%7.1f GB/s  (%zu points, rms %.1f%%)\n",
          to_string(r.op), static_cast<long long>(r.ranks), r.algo.c_str(), format_bytes(r.from).c_str(),
          format_bytes(r.to).c_str(), r.alpha.value * 1e6, r.busbw.value / 1e9, r.points, 100 * r.rms);
  }
  if (!c.host_copies.empty()) {
    std::printf("\nhost copies (t = alpha + bytes/bandwidth):\n");
    for (const auto& h : c.host_copies)
      std::printf(
          "  %s %-8s alpha %8.2f us  bandwidth %7.2f GB/s  (%zu "
          "points, rms %.1f%%)\n",
          h.direction.c_str(), h.pinned ? "pinned" : "pageable", h.alpha.value * 1e6, h.bandwidth.value / 1e9, h.points,
          100 * h.rms);
  }
  std::printf("\nfit error (the fitted profile predicting the same measurements):\n");
  const CheckResult fit_check = check_profile(m, c.device);
  std::fputs(error_table(fit_check).c_str(), stdout);
  if (!a.csv.empty()) write_output(a.csv, predictions_csv(fit_check));
  if (!a.output.empty()) {
    write_output(a.output, fitted_profile_json(base_file, c, m, name));
    std::printf("\nwrote %s\n", a.output.c_str());
  }
  return 0;
}

}  // namespace sim::cli
