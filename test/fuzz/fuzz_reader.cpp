// fuzz_reader: arbitrary bytes through every reader of user input.
//
// The input is JSON text, optionally followed by a NUL byte and `--set` lines ("path=value", one
// per line). Every unit parser reads the raw bytes; the JSON goes through the strict reader, the
// --set overrides, and each parser that takes a ParamReader: the whole scenario (with named models
// and clusters resolved in the repository), and the model, cluster, device, parallelism and
// training sections on their own. See fuzz_check.hpp for what counts as a finding.
//
// The reader's own refusals (json_text.hpp) are properties checked on every input: the whole
// input with its NUL byte is refused; the JSON text nested in 65-72 more arrays is refused for its
// depth; the text as the value of a key that came before is refused for the repeated key; every
// quantity a --set value or a line of the input holds, once read, lies in the reader's window
// (no overflow to infinity or underflow to zero after unit conversion).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/calibrate/check.hpp"
#include "sim/calibrate/fit.hpp"
#include "sim/core/json_text.hpp"
#include "sim/core/params.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/device.hpp"
#include "sim/scenario/model.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/fuzz/fuzz_check.hpp"

namespace {

using namespace sim;

void units(std::string_view text) {
  // The formatters take any parsed value, however large or small.
  if (auto v = parse_seconds(text)) (void)format_seconds(*v);
  if (auto v = parse_bytes(text)) (void)format_bytes(*v);
  (void)parse_bandwidth(text);
  (void)parse_flops_rate(text);
  (void)parse_flops(text);
}

std::vector<std::pair<std::string, std::string>> set_lines(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos && eq > 0) out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// Must be refused: `f` returns normally, or throws an InputError lacking `fragment`, is a finding.
template <class F>
void expect_refusal(const char* what, const char* fragment, F f) {
  try {
    f();
  } catch (const InputError& e) {
    if (std::string_view(e.what()).find(fragment) == std::string_view::npos) fuzz::finding(what, e.what());
    return;
  }
  fuzz::finding(what, "accepted");
}

// The reader's properties on `json_text` (the input before its NUL) and `bytes` (all of it).
void reader_properties(std::string_view bytes, const std::string& json_text) {
  if (bytes.find('\0') != std::string_view::npos)
    expect_refusal("a document with a NUL byte was accepted", "",
                   [&] { ParamReader::from_text(std::string(bytes), "f"); });
  const size_t extra = size_t(sim::MAX_JSON_DEPTH) + 1 + (bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]) % 8);
  expect_refusal("nesting past MAX_JSON_DEPTH was accepted", "nested more than",
                 [&] { ParamReader::from_text(std::string(extra, '[') + json_text + std::string(extra, ']'), "f"); });
  // The text after an object's key "a" that is given twice: refused, for the key or for the text.
  expect_refusal("a repeated key was accepted", "",
                 [&] { ParamReader::from_text(R"({"a": 1, "a": )" + json_text + "}", "f"); });
}

// A quantity that the reader returns is inside its window, whatever the text.
void quantity_properties(std::string_view text) {
  if (text.size() > 64) return;
  std::string doc;
  try {
    doc = nlohmann::json{{"q", std::string(text)}}.dump();  // refuses text that is not UTF-8
  } catch (const nlohmann::json::exception&) {
    return;
  }
  const ParamReader r = ParamReader::from_text(doc, "f").at("q");
  const auto in_window = [](double v) {
    if (!(v >= 1e-15 && v <= 1e24))
      fuzz::finding("a quantity outside the reader's window was accepted", std::to_string(v).c_str());
  };
  fuzz::expect_input_errors_only([&] { in_window(r.as_seconds().value); });
  fuzz::expect_input_errors_only([&] { in_window(r.as_bytes().value); });
  fuzz::expect_input_errors_only([&] { in_window(r.as_bandwidth().value); });
  fuzz::expect_input_errors_only([&] { in_window(r.as_flops_rate().value); });
  fuzz::expect_input_errors_only([&] { in_window(r.as_flops().value); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  units(bytes);
  const size_t nul = bytes.find('\0');
  const std::string text(bytes.substr(0, nul));
  const auto sets = nul == std::string_view::npos ? decltype(set_lines("")){} : set_lines(bytes.substr(nul + 1));
  for (const auto& [path, value] : sets) units(value), quantity_properties(value);
  quantity_properties(text);
  reader_properties(bytes, text);

  fuzz::expect_input_errors_only([&] {
    ParamReader r = ParamReader::from_text(text, "fuzz.json");
    for (const auto& [path, value] : sets) r = r.with_value(path, value);
    const std::string data_dir = default_data_dir();
    fuzz::expect_input_errors_only([&] { (void)parse_scenario(r, data_dir); });
    fuzz::expect_input_errors_only([&] { (void)ModelSpec::parse(r); });
    fuzz::expect_input_errors_only([&] { (void)ClusterSpec::parse(r, data_dir); });
    fuzz::expect_input_errors_only([&] { (void)DeviceSpec::parse(r); });
    fuzz::expect_input_errors_only([&] { (void)ParallelPlan::parse(r); });
    fuzz::expect_input_errors_only([&] { (void)TrainingSpec::parse(r); });
    // Kernel measurements (trainsim calibrate): read, fitted to a shipped profile, checked.
    fuzz::expect_input_errors_only([&] {
      const Measurements m = Measurements::parse(r);
      static const DeviceSpec base = DeviceSpec::parse(ParamReader::load_file(device_file("h100-sxm", data_dir)));
      (void)check_profile(m, base);
      (void)check_profile(m, calibrate(m, base).device);
    });
    // The sections of a scenario, where it has them.
    for (const char* key : {"model", "cluster", "parallelism", "training"})
      if (auto s = r.find(key)) {
        fuzz::expect_input_errors_only([&] { (void)ModelSpec::parse(*s); });
        fuzz::expect_input_errors_only([&] { (void)ClusterSpec::parse(*s, data_dir); });
        fuzz::expect_input_errors_only([&] { (void)ParallelPlan::parse(*s); });
        fuzz::expect_input_errors_only([&] { (void)TrainingSpec::parse(*s); });
      }
  });
  return 0;
}
