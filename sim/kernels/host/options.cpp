#include "sim/kernels/host/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace sim::kernels {

namespace {

// "450 GB/s", "1.8 TB/s", "400Gb/s": a number followed by a rate unit.
bool looks_like_bandwidth(const std::string& s) {
  size_t i = 0;
  bool digits = false;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    digits = digits || s[i] != '.';
    ++i;
  }
  return digits && s.size() > i + 2 && s.compare(s.size() - 2, 2, "/s") == 0;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i], value;
    bool has_value = false;
    if (name.rfind("--", 0) == 0) {
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.erase(eq);
        has_value = true;
      }
    }
    auto take = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= args.size()) throw UsageError("option " + name + " needs a value");
      return args[++i];
    };
    if (name == "-h" || name == "--help") {
      o.help = true;
    } else if (name == "-o" || name == "--output") {
      o.output = take();
      if (o.output.empty()) throw UsageError("--output is empty");
    } else if (name == "--shapes") {
      o.shapes = take();
      o.shapes_given = true;
    } else if (name == "--profile") {
      o.profile = take();
    } else if (name == "--git-commit") {
      o.git_commit = take();
    } else if (name == "--scale-up-bandwidth") {
      o.scale_up_bandwidth = take();
      if (!looks_like_bandwidth(o.scale_up_bandwidth))
        throw UsageError("--scale-up-bandwidth '" + o.scale_up_bandwidth + "' is not a rate such as \"450 GB/s\"");
    } else if (name == "--only") {
      for (const std::string& g : split_list(take())) {
        const auto& names = suite_names();
        if (std::find(names.begin(), names.end(), g) == names.end())
          throw UsageError("--only: unknown group '" + g +
                           "' (expected a comma-separated subset of gemm,memory,attention,host_copy,collectives)");
        o.only.insert(g);
      }
    } else if (name == "--gemm-best-of-4") {
      if (has_value) throw UsageError("--gemm-best-of-4 takes no value");
      o.gemm_best_of_4 = true;
    } else if (name == "--device") {
      std::string v = take();
      auto res = std::from_chars(v.data(), v.data() + v.size(), o.device);
      if (res.ec != std::errc() || res.ptr != v.data() + v.size() || o.device < 0)
        throw UsageError("--device '" + v + "' is not a device number");
    } else {
      throw UsageError("unknown option '" + args[i] + "' (see --help)");
    }
  }
  return o;
}

std::string usage() {
  return R"(Usage: trainsim-kernels [options]

Measures cuBLASLt GEMMs (bf16, fp8), memory-bound kernels (norms, softmax, activations, copies),
a tiled attention kernel, host<->device copies and, with NCCL and several GPUs, collectives; checks
every result against a reference; writes one measurements file (sim/calibrate/measurements.hpp).

Options:
  -o, --output FILE            file to write (default: measurements.json)
      --shapes FILE            extra shapes, lines 'gemm M N K BATCH' and
                               'attention BATCH HEADS SEQ HEAD_DIM CAUSAL' (default:
                               sim/kernels/shapes.txt; when that is missing, sweeps only)
      --profile NAME           default profile these measurements refine (provenance)
      --git-commit SHA         commit of the suite (default: $TRAINSIM_GIT_COMMIT)
      --scale-up-bandwidth BW  nominal per-GPU NVLink rate, e.g. "450 GB/s" (written as given)
      --only LIST              comma-separated subset of gemm,memory,attention,host_copy,collectives
      --gemm-best-of-4         also time the best of cuBLASLt's top 4 algorithms (algo "best_of_4")
      --device N               GPU to measure (default: 0); collectives use all visible GPUs
  -h, --help                   print this text

Exit status: 0 file written; 1 CUDA, cuBLASLt or NCCL error; 2 bad option or shapes file, or no
CUDA device; 3 a result failed its correctness check (no file is written).
)";
}

}  // namespace sim::kernels
