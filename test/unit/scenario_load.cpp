// Loading scenarios (sim/scenario/scenario.hpp): name resolution against the data folder, defaults,
// "auto", --set overrides, cross-checks, and the shared validation table.
//
// Scenario files are written into a fresh temporary folder (mkdtemp); named models and devices come
// from the repository's data (TRAINSIM_SOURCE_DIR: models/, topologies/, topologies/devices/).
// Expected values come from those data files (each cites its source) and from DESIGN.md "Scenario
// file", as stated at each check.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string DATA = TRAINSIM_SOURCE_DIR;

// Korthikanti et al. 2022 Table 5, 175B row (validation/published-a100.json "k22-175B-full"),
// with the model named instead of inline.
const char* GPT3_175B_ON_64 = R"({
  "name": "k22-175b", "seed": 7,
  "model": "gpt3-175b",
  "cluster": {"gpu": "a100-sxm-80gb", "gpus": 64, "gpus_per_node": 8,
              "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
              "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s",
                            "oversubscription": 1}},
  "parallelism": {"tp": 8, "pp": 8, "dp": 1, "virtual_stages": 3},
  "training": {"seq_len": 2048, "global_batch": 64, "micro_batch": 1, "recompute": "full", "precision": "bf16"}
})";

// The smallest scenario the contract allows: every optional field omitted.
const char* MINIMAL = R"({
  "model": {"layers": 4, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "vocab": 32000, "activation": "swiglu"},
  "cluster": {"gpu": "a100-sxm-80gb", "gpus": 8, "gpus_per_node": 8,
              "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
              "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
  "parallelism": {"tp": 2, "pp": 2, "dp": 2},
  "training": {"seq_len": 1024, "global_batch": 16}
})";

}  // namespace

TEST_CASE("a named model and an inline cluster resolve against the data folder", "[scenario]") {
  TempDir dir;
  auto path = dir.write("s.json", GPT3_175B_ON_64);
  auto s = sim::load_scenario(path, {}, DATA);
  CHECK(s.name == "k22-175b");
  CHECK(s.file == path);
  CHECK(s.seed == 7);
  // models/gpt3-175b.json (Brown et al. 2020 Table 2.1): 96 layers, d_model 12288, 96 heads, d_ff 4*d_model.
  CHECK(s.model.name == "gpt3-175b");
  CHECK(s.model.layers == 96);
  CHECK(s.model.hidden == 12288);
  CHECK(s.model.heads == 96);
  CHECK(s.model.kv_heads == 96);
  CHECK(s.model.ffn_hidden == 4 * 12288);
  CHECK(s.model.head_dim() == 128);
  CHECK(s.model.activation == sim::Activation::GELU);
  CHECK_FALSE(s.model.moe);
  // Per layer, a GPT layer with biases and LayerNorm has 12h^2 + 13h parameters (Narayanan et al.
  // 2021, the parameter count behind their Eq. 3); plus the tied V*h embedding and the final norm (2h)
  // the whole model is the "175B" of the name.
  const double h = 12288.0;
  CHECK(s.model.layer_params() == 12.0 * h * h + 13.0 * h);
  CHECK(s.model.total_params() == 96.0 * (12.0 * h * h + 13.0 * h) + 51200.0 * h + 2.0 * h);
  CHECK(s.model.total_params() == Approx(175e9).epsilon(0.01));
  // topologies/devices/a100-sxm-80gb.json (NVIDIA A100 datasheet): 312 TFLOP/s dense BF16/FP16, no
  // FP8, 80 GiB, 2039 GB/s.
  CHECK(s.cluster.device.name == "a100-sxm-80gb");
  CHECK(s.cluster.device.dense_peak.at(sim::Precision::BF16).value == 312e12);
  CHECK(s.cluster.device.dense_peak.at(sim::Precision::FP16).value == 312e12);
  CHECK(s.cluster.device.dense_peak.count(sim::Precision::FP8) == 0);
  CHECK(s.cluster.device.hbm_capacity.value == 80.0 * 1073741824.0);
  CHECK(s.cluster.device.hbm_bandwidth.value == 2039e9);
  // The scenario's cluster: 300 GB/s per direction (NVLink3), 200 Gb/s = 25 GB/s per NIC.
  CHECK(s.cluster.gpus == 64);
  CHECK(s.cluster.nodes() == 8);
  CHECK(s.cluster.scale_up.bandwidth.value == 300e9);
  CHECK(s.cluster.scale_out.nic_bandwidth.value == 25e9);
  CHECK(s.cluster.scale_out.pod_gpus == 64);  // cluster.hpp: pod_gpus absent = the whole cluster
  // DESIGN.md: schedule defaults to interleaved when virtual_stages > 1.
  CHECK(s.plan.virtual_stages.value == 3);
  CHECK(s.plan.schedule == sim::Schedule::INTERLEAVED);
  CHECK_FALSE(s.plan.schedule_given);
  CHECK(s.training.recompute == sim::Recompute::FULL);
  CHECK(s.training.precision == sim::Precision::BF16);
  // global_batch / (dp * micro_batch) = 64 / (1 * 1).
  CHECK(s.microbatches() == 64);
}

TEST_CASE("omitted fields take the documented defaults", "[scenario]") {
  TempDir dir;
  auto s = sim::load_scenario(dir.write("min.json", MINIMAL), {}, DATA);
  // DESIGN.md "Omitted fields take defaults": seed 0, cp 1, ep 1, zero 0, sequence_parallel false,
  // virtual_stages 1, schedule 1f1b, kv_heads = heads.
  CHECK(s.seed == 0);
  CHECK(s.plan.cp == 1);
  CHECK(s.plan.ep == 1);
  CHECK(s.plan.zero == 0);
  CHECK_FALSE(s.plan.sequence_parallel);
  CHECK(s.plan.virtual_stages.value == 1);
  CHECK(s.plan.schedule == sim::Schedule::ONE_F_ONE_B);
  CHECK(s.model.kv_heads == s.model.heads);
  CHECK(s.model.activation == sim::Activation::SWIGLU);
  CHECK(s.plan.layers_per_stage.empty());
  // plan.hpp / model.hpp defaults (DESIGN.md names none): micro_batch 1, no recompute, bf16; for a
  // gated (SwiGLU) model RMSNorm and RoPE, as Llama is built; tied embeddings, fused elementwise
  // kernels, the names "scenario" and "model".
  CHECK(s.training.micro_batch.value == 1);
  CHECK(s.training.recompute == sim::Recompute::NONE);
  CHECK(s.training.precision == sim::Precision::BF16);
  CHECK(s.model.rmsnorm);
  CHECK(s.model.rope);
  CHECK(s.model.tied_embeddings);
  CHECK(s.training.elementwise == sim::Elementwise::FUSED);
  CHECK(s.name == "scenario");
  CHECK(s.model.name == "model");
  // 16 / (dp 2 * micro_batch 1) = 8 microbatches.
  CHECK(s.microbatches() == 8);
}

TEST_CASE("auto counts", "[scenario]") {
  TempDir dir;
  auto path = dir.write("auto.json", MINIMAL);
  auto base = sim::ParamReader::load_file(path);
  // DESIGN.md: micro_batch and virtual_stages take "auto"; "auto" with pp = 1 means 1.
  auto pp2 = sim::parse_scenario(
      base.with_value("parallelism.virtual_stages", "auto").with_value("training.micro_batch", "auto"), DATA);
  CHECK(pp2.plan.virtual_stages.is_auto());
  CHECK(pp2.training.micro_batch.is_auto());
  auto pp1 = sim::parse_scenario(base.with_value("parallelism.pp", "1")
                                     .with_value("parallelism.dp", "4")
                                     .with_value("parallelism.virtual_stages", "auto"),
                                 DATA);
  CHECK(pp1.plan.virtual_stages.value == 1);
  CHECK_FALSE(pp1.plan.virtual_stages.is_auto());
  // dp "auto" is what tp*pp*cp leave of the GPUs: 8 GPUs / (tp 2 * pp 2 * cp 1) = 2 (and
  // "chosen.dp" in the report).
  auto dp = sim::parse_scenario(base.with_value("parallelism.dp", "auto"), DATA);
  CHECK(dp.plan.dp == 2);
  CHECK(dp.plan.dp_auto);
  // Any other string is rejected, naming "auto".
  CHECK_THAT(error_of([&] { sim::parse_scenario(base.with_value("training.micro_batch", "\"max\""), DATA); }),
             Contains("/training/micro_batch: 'max' is not known"));
}

TEST_CASE("model and cluster by relative path, by name, and by name with overrides", "[scenario]") {
  TempDir dir;
  // DESIGN.md: a relative path resolves against the scenario file's folder first.
  dir.write("models/tiny.json", R"({"kind": "model", "name": "tiny", "layers": 2, "hidden": 256, "heads": 4,
                                    "ffn_hidden": 1024, "vocab": 1000, "activation": "gelu"})");
  auto path = dir.write("s.json", R"({
    "model": "models/tiny.json",
    "cluster": {"from": "dgx-a100-superpod", "gpus": 16},
    "parallelism": {"tp": 4, "pp": 2, "dp": 2},
    "training": {"seq_len": 512, "global_batch": 8}})");
  auto s = sim::load_scenario(path, {}, DATA);
  CHECK(s.model.name == "tiny");
  CHECK(s.model.layers == 2);
  // topologies/dgx-a100-superpod.json (DGX A100 datasheet): 8 GPUs/node, 300 GB/s NVLink3 per
  // direction, 8 x 200 Gb/s NICs; "gpus": 16 replaces its 4480.
  CHECK(s.cluster.name == "dgx-a100-superpod");
  CHECK(s.cluster.gpus == 16);
  CHECK(s.cluster.gpus_per_node == 8);
  CHECK(s.cluster.scale_up.bandwidth.value == 300e9);
  CHECK(s.cluster.scale_out.nics_per_node == 8);
  CHECK(s.cluster.scale_out.nic_bandwidth.value == 25e9);
  CHECK(s.cluster.device.name == "a100-sxm-80gb");

  // {"from": name, ...}: a named model with fields replaced (DESIGN.md: `"cluster": {"from": ...}`).
  auto from = dir.write("from.json", R"({
    "model": {"from": "gpt3-175b", "layers": 8},
    "cluster": {"from": "dgx-a100-superpod", "gpus": 64},
    "parallelism": {"tp": 8, "pp": 8, "dp": 1},
    "training": {"seq_len": 2048, "global_batch": 8}})");
  auto f = sim::load_scenario(from, {}, DATA);
  CHECK(f.model.layers == 8);
  CHECK(f.model.hidden == 12288);  // models/gpt3-175b.json
}

TEST_CASE("a device file read once per process is read again when it changes", "[scenario]") {
  // sim/scenario/cluster.cpp keeps each parsed profile for the scenarios after (search, sweeps,
  // validation); an edited file must not be answered from that copy.
  TempDir dir;
  std::ifstream in(DATA + "/topologies/devices/a100-sxm-80gb.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string name = "\"name\": \"a100-sxm-80gb\"";
  REQUIRE(text.find(name) != std::string::npos);
  dir.write("dev.json", text);
  auto path = dir.write("s.json", R"({
    "model": {"layers": 4, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "vocab": 32000, "activation": "swiglu"},
    "cluster": {"gpu": "dev.json", "gpus": 8, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": 2, "pp": 2, "dp": 2},
    "training": {"seq_len": 1024, "global_batch": 16}})");
  CHECK(sim::load_scenario(path, {}, DATA).cluster.device.name == "a100-sxm-80gb");
  CHECK(sim::load_scenario(path, {}, DATA).cluster.device.name == "a100-sxm-80gb");
  std::string edited = text;
  edited.replace(edited.find(name), name.size(), "\"name\": \"a100-edited\"");
  dir.write("dev.json", edited);
  CHECK(sim::load_scenario(path, {}, DATA).cluster.device.name == "a100-edited");
}

TEST_CASE("set overrides apply before parsing", "[scenario]") {
  TempDir dir;
  auto path = dir.write("s.json", MINIMAL);
  auto s = sim::load_scenario(
      path, {{"parallelism.tp", "4"}, {"parallelism.dp", "1"}, {"seed", "42"}, {"training.recompute", "selective"}},
      DATA);
  CHECK(s.plan.tp == 4);
  CHECK(s.plan.dp == 1);
  CHECK(s.seed == 42);
  CHECK(s.training.recompute == sim::Recompute::SELECTIVE);
  // An override that breaks a cross-check is reported like any other input error.
  CHECK_THAT(error_of([&] {
               sim::load_scenario(path, {{"parallelism.tp", "4"}}, DATA);
             }),
             StartsWith(path + ": /parallelism: tp*pp*dp*cp = 4*2*2*1 = 16 but the cluster has 8 GPUs"));
}

TEST_CASE("rejections name the file and the JSON path", "[scenario]") {
  TempDir dir;
  auto path = dir.write("s.json", MINIMAL);
  auto base = sim::ParamReader::load_file(path);
  struct Case {
    std::vector<std::pair<const char*, const char*>> sets;  // --set style changes to MINIMAL
    const char* where;                                      // JSON path the message must name
    const char* fragment;                                   // what the message must say
  };
  // MINIMAL: 16 heads, hidden 1024, tp 2 pp 2 dp 2 on 8 A100-80GB, seq_len 1024, global_batch 16.
  // Each rule is from DESIGN.md "Scenario file" unless noted.
  const std::vector<Case> cases = {
      {{{"parallelism.dp", "4"}}, "/parallelism", "tp*pp*dp*cp = 2*2*4*1 = 16 but the cluster has 8 GPUs"},
      // Four degrees of 2^16 multiply to 2^64: reported, not wrapped around to 0.
      {{{"parallelism.tp", "65536"},
        {"parallelism.pp", "65536"},
        {"parallelism.dp", "65536"},
        {"parallelism.cp", "65536"}},
       "/parallelism",
       "= more than 2^63 but the cluster has 8 GPUs"},
      {{{"model.heads", "4"}, {"parallelism.tp", "8"}, {"parallelism.pp", "1"}, {"parallelism.dp", "1"}},
       "/parallelism/tp",
       "8 does not divide heads=4"},
      // tp 4 neither divides 6 KV heads (a share each) nor is a multiple of them (a whole head each).
      {{{"model.hidden", "1536"},
        {"model.heads", "24"},
        {"model.kv_heads", "6"},
        {"parallelism.tp", "4"},
        {"parallelism.dp", "1"}},
       "/parallelism/tp",
       "4 neither divides nor is a multiple of kv_heads=6"},
      {{{"model.kv_heads", "3"}}, "/model/kv_heads", "3 does not divide heads=16"},  // model.cpp: whole GQA groups
      {{{"model.heads", "6"}}, "/model/heads", "hidden=1024 is not divisible by heads=6"},  // model.cpp
      {{{"model.activation", "relu"}}, "/model/activation", "'relu' is not known"},
      {{{"training.recompute", "partial"}}, "/training/recompute", "'partial' is not known"},
      {{{"training.precision", "fp8"}}, "/training/precision", "device a100-sxm-80gb has no fp8 peak"},
      // The message names micro_batch where the user wrote one, else global_batch.
      {{{"training.global_batch", "7"}},
       "/training/global_batch",
       "global_batch=7 is not divisible by dp*micro_batch=2"},
      {{{"training.micro_batch", "3"}},
       "/training/micro_batch",
       "global_batch=16 is not divisible by dp*micro_batch=6"},
      {{{"training.micro_batch", "0"}}, "/training/micro_batch", "0 is out of range"},
      {{{"training.seq_len", "1025"}, {"parallelism.sequence_parallel", "true"}},
       "/parallelism/sequence_parallel",
       "seq_len=1025 is not divisible by tp=2"},
      {{{"parallelism.schedule", "interleaved"}}, "/parallelism/schedule", "'interleaved' needs virtual_stages > 1"},
      {{{"parallelism.virtual_stages", "2"}, {"parallelism.schedule", "1f1b"}},
       "/parallelism/schedule",
       "'1f1b' cannot run virtual stages"},
      {{{"parallelism.pp", "1"}, {"parallelism.dp", "4"}, {"parallelism.virtual_stages", "2"}},
       "/parallelism/virtual_stages",
       "virtual stages need pipeline parallelism"},
      {{{"parallelism.ep", "2"}}, "/parallelism/ep", "expert parallelism needs an MoE model"},
      {{{"parallelism.zero", "4"}}, "/parallelism/zero", "4 is out of range"},
      {{{"parallelism.tp", "\"8\""}}, "/parallelism/tp", "is string"},
      {{{"parallelism.pp", "2.5"}}, "/parallelism/pp", "is not a whole number"},
      {{{"parallelism.tpp", "2"}}, "/parallelism/tpp", "did you mean 'tp'?"},
      {{{"trainig", "{}"}}, "/trainig", "did you mean 'training'?"},
      {{{"kind", "model"}}, "/kind", "'model' is not known"},
      {{{"cluster.gpu", "a100-sxm-80g"}},
       "/cluster/gpu",
       "unknown device 'a100-sxm-80g' (did you mean 'a100-sxm-80gb'?)"},
      {{{"cluster.gpus", "0"}}, "/cluster/gpus", "0 is out of range"},
      {{{"cluster.scale_up.bandwidth", "0 GB/s"}}, "/cluster/scale_up/bandwidth", "'0 GB/s' is not positive"},
      {{{"cluster.scale_up.bandwidth", "300 GB/parsec"}}, "/cluster/scale_up/bandwidth", "does not parse"},
      {{{"cluster.scale_up", "nvlink"}}, "/cluster/scale_up", "is string (expected an object)"},
      {{{"cluster", "no-such-cluster"}}, "/cluster", "unknown cluster 'no-such-cluster'"},
      {{{"failures", "{\"kind\": \"poison\"}"}}, "/failures/kind", "(did you mean 'poisson'?)"},
      {{{"model", "no-such-model"}}, "/model", "unknown model 'no-such-model'"},
  };
  for (const auto& c : cases) {
    auto mutated = base;
    std::string what;
    for (const auto& [key, value] : c.sets) {
      mutated = mutated.with_value(key, value);
      what += std::string(key) + "=" + value + " ";
    }
    INFO("set " << what);
    auto msg = error_of([&] { sim::parse_scenario(mutated, DATA); });
    CHECK_THAT(msg, StartsWith(path + ": " + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
  }
  // The unchanged base is valid, so each rejection above is due to its own change.
  CHECK_NOTHROW(sim::parse_scenario(base, DATA));
}

TEST_CASE("an error inside a named model file names that file", "[scenario]") {
  TempDir dir;
  auto model = dir.write("bad-model.json", R"({"layers": 2, "hidden": 256, "heads": 4, "ffn_hidden": 1024,
                                              "vocab": 1000, "activation": "gelu", "layer": 3})");
  auto path = dir.write("s.json", R"({
    "model": "bad-model.json",
    "cluster": {"gpu": "a100-sxm-80gb", "gpus": 1, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": 1},
    "training": {"seq_len": 512, "global_batch": 8}})");
  auto msg = error_of([&] { sim::load_scenario(path, {}, DATA); });
  CHECK_THAT(msg, StartsWith(model + ": /layer: unknown key 'layer' (did you mean 'layers'?)"));
}

TEST_CASE("a scenario file that is not an object", "[scenario]") {
  TempDir dir;
  auto path = dir.write("array.json", "[1, 2]");
  CHECK_THAT(error_of([&] { sim::load_scenario(path, {}, DATA); }), StartsWith(path + ": /: is array"));
  auto missing = dir.path() + "/none.json";
  CHECK_THAT(error_of([&] { sim::load_scenario(missing, {}, DATA); }), StartsWith(missing + ": /: no such file"));
}

TEST_CASE("every scenario of the published A100 validation table parses and fills its cluster", "[scenario]") {
  // validation/published-a100.json: Narayanan et al. 2021 Table 1 and Korthikanti et al. 2022
  // Table 5, each a full scenario; DESIGN.md requires tp*pp*dp*cp == cluster.gpus.
  auto table = sim::ParamReader::load_file(TRAINSIM_SOURCE_DIR "/validation/published-a100.json");
  CHECK(table.string("kind") == "validation");
  auto runs = table.at("runs");
  REQUIRE(runs.size() > 0);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string name = runs[i].string("name");
    INFO("run " << i << ": " << name);
    sim::Scenario s;
    CHECK_NOTHROW(s = sim::parse_scenario(runs[i].at("scenario"), DATA));
    CHECK(s.plan.tp * s.plan.pp * s.plan.dp * s.plan.cp == s.cluster.gpus);
    CHECK(s.name == name);
    CHECK(s.cluster.device.name == "a100-sxm-80gb");
  }
}
