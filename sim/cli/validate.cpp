// `trainsim validate TABLE`: every published run of a validation table simulated and compared with
// its published step time (and, where the source gives it, its peak memory per GPU).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/schema.hpp"

namespace sim::cli {
namespace {

// A published step time the error can be taken against: 0, a negative or a subnormal time would
// print an infinite or meaningless error. No published training step is under a millisecond or
// over a day.
// The table's keys and ranges are the schema's (sim/scenario/schema_validation.cpp).
const std::string ROW = "@validation/runs/*";

double published_step_time(const ParamReader& r) {
  const double t = r.as_number();
  const QuantityRange times = schema_range(ROW + "/published/step_time_s");
  if (!times.contains(t))
    r.fail(fmt::format("{:g} s is not a step time", t),
           fmt::format("seconds, from {:g} to {:g}", times.min, times.max));
  return t;
}

// `extra.published_peak_memory_gib`, where a source publishes the peak memory per GPU
// (torchtitan's rows). This figure is only compared with the prediction, never applied: a row
// runs exactly its `scenario`, and the rest of `extra` is documentation. It is compared with the
// peak the allocator reserves (MemoryEstimate::reserved): torchtitan logs "memory: <max_reserved_gib>GiB" each step,
// from torch.cuda.memory_stats()["reserved_bytes.all.peak"] (train.py and metrics.py at 9dec370 and e7c0cae, the
// versions of the rows).
std::optional<double> published_peak_memory(const ParamReader& run) {
  const auto extra = run.find("extra");
  if (!extra || !extra->is_object()) return std::nullopt;
  const auto gib = extra->find("published_peak_memory_gib");
  if (!gib) return std::nullopt;
  const double m = gib->as_number();
  const QuantityRange peaks = schema_range(ROW + "/extra/published_peak_memory_gib");
  if (!peaks.contains(m))
    gib->fail(fmt::format("{:g} GiB is not a peak memory", m),
              fmt::format("GiB, from {:g} to {:g}", peaks.min, peaks.max));
  return m;
}

constexpr double GIB = 1024.0 * 1024 * 1024;

struct Row {
  std::string name, group;
  double published = 0, predicted = 0;
  std::optional<double> published_memory, predicted_memory;  // GiB per GPU
  std::optional<Scenario> scenario;
  std::string failure;  // why the row could not be simulated; empty when it was
};

struct Tally {
  double error = 0;
  int simulated = 0, failed = 0;
};

double relative_error(double predicted, double published) { return predicted / published - 1; }

}  // namespace

int validate(const std::string& table, const std::string& fidelity, double max_wall, const std::string& max_memory,
             bool strict_memory) {
  EngineOptions opt = engine_options(fidelity, max_wall, max_memory, table);
  opt.strict_memory = strict_memory;
  auto t = ParamReader::load_file(table);
  schema_expect_keys(t, "@validation");
  t.at("kind").as_choice(schema_choices("@validation/kind"));
  auto runs = t.at("runs");
  if (runs.size() == 0) runs.fail("has no runs", "at least one run to compare");
  // Every row is read before the first is simulated: a mistake in the table's own fields (a name,
  // a group, a published figure) stops it at once. A scenario the simulator cannot run -- a device
  // it does not know, a plan that does not fit -- is a finding about the simulator, not about the
  // table: that row is reported as failed (its message naming the row's place in the table) and
  // counted, and the others still run; so is a row past a limit of this machine (--max-memory, the
  // simulation-time estimate). --max-wall, the whole table's bound, stops it.
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto run = runs[i];
    schema_expect_keys(run, ROW);
    Row row;
    row.name = run.string("name");
    row.group = run.string("group");
    schema_expect_keys(run.at("published"), ROW + "/published");
    row.published = published_step_time(run.at("published").at("step_time_s"));
    row.published_memory = published_peak_memory(run);
    try {
      row.scenario = parse_scenario(run.at("scenario"));
    } catch (const InputError& e) {
      row.failure = e.what();
    }
    rows.push_back(std::move(row));
  }
  size_t nw = 22, gw = 26;  // the name and group columns: as wide as the longest
  for (const auto& row : rows) nw = std::max(nw, row.name.size()), gw = std::max(gw, row.group.size());
  const auto lead = [&](const Row& row) {
    return fmt::format("{:<{}} {:<{}} {:9.3f}s", row.name, nw, row.group, gw, row.published);
  };
  std::fputs(fmt::format("{:<{}} {:<{}} {:>10} {:>10} {:>8} {:>6} {:>4} {:>4}\n", "run", nw, "group", gw, "published",
                         "predicted", "error", "MFU", "mb", "v")
                 .c_str(),
             stdout);
  for (auto& row : rows) {
    if (row.scenario) try {
        RunResult r = run_scenario(*row.scenario, opt);
        row.predicted = r.step_time_s;
        std::string memory;
        if (row.published_memory) {
          // The published peaks are what the allocator reserved (published_peak_memory).
          row.predicted_memory = r.plan.memory.reserved.value / GIB;
          memory = fmt::format("  peak memory {:.1f} GiB reserved ({:.1f} allocated), published {:.1f} ({:+.1f}%)",
                               *row.predicted_memory, r.plan.memory.peak.value / GIB, *row.published_memory,
                               100 * relative_error(*row.predicted_memory, *row.published_memory));
        }
        std::fputs(fmt::format("{} {:9.3f}s {:+7.1f}% {:5.1f}% {:4} {:4}{}\n", lead(row), row.predicted,
                               100 * relative_error(row.predicted, row.published), 100 * r.mfu,
                               r.scenario.training.micro_batch.value, r.scenario.plan.virtual_stages.value, memory)
                       .c_str(),
                   stdout);
      } catch (const InputError& e) {
        // A limit of this machine (--max-memory, the simulation-time estimate) is this row's
        // failure too: the other rows still run. Only --max-wall (the table's bound) stops it.
        row.failure = e.what();
      }
    if (!row.failure.empty())
      std::fputs(fmt::format("{} {:>10}  failed: {}\n", lead(row), "-", row.failure).c_str(), stdout);
    std::fflush(stdout);
  }
  std::map<std::string, Tally> groups;
  Tally memory;
  double worst = 0, worst_memory = 0;
  int failed = 0;
  for (const auto& row : rows) {
    Tally& g = groups[row.group];
    if (!row.failure.empty()) {
      ++g.failed, ++failed;
      continue;
    }
    const double e = std::fabs(relative_error(row.predicted, row.published));
    g.error += e;
    ++g.simulated;
    worst = std::max(worst, e);
    if (row.predicted_memory) {
      const double m = std::fabs(relative_error(*row.predicted_memory, *row.published_memory));
      memory.error += m;
      ++memory.simulated;
      worst_memory = std::max(worst_memory, m);
    }
  }
  std::printf("\n");
  for (const auto& [name, g] : groups) {
    const std::string not_run = g.failed > 0 ? fmt::format(", {} failed", g.failed) : std::string();
    if (g.simulated > 0)
      std::fputs(fmt::format("{:<{}} MAPE {:5.1f}% over {} runs{}\n", name, gw, 100 * g.error / g.simulated,
                             g.simulated, not_run)
                     .c_str(),
                 stdout);
    else
      std::fputs(fmt::format("{:<{}} no run simulated{}\n", name, gw, not_run).c_str(), stdout);
  }
  std::fputs(fmt::format("{:<{}} {:5.1f}%\n", "worst row", gw, 100 * worst).c_str(), stdout);
  if (memory.simulated > 0)
    std::fputs(fmt::format("{:<{}} MAPE {:5.1f}% over {} runs, worst {:.1f}%\n", "peak memory", gw,
                           100 * memory.error / memory.simulated, memory.simulated, 100 * worst_memory)
                   .c_str(),
               stdout);
  if (failed == 0) return 0;
  std::fputs(fmt::format("{:<{}} {} of {} runs could not be simulated\n", "failed", gw, failed, rows.size()).c_str(),
             stdout);
  const auto first = std::find_if(rows.begin(), rows.end(), [](const Row& row) { return !row.failure.empty(); });
  std::fflush(stdout);
  std::fprintf(stderr, "trainsim: validate: %s: %d of %zu runs could not be simulated, the first %s (see its row)\n",
               bounded(table, 300).c_str(), failed, rows.size(), quote_value(first->name).c_str());
  return 1;
}

}  // namespace sim::cli
