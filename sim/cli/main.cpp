// trainsim: predict the step time, MFU and memory of LLM training on a GPU cluster.
//
// Exit codes: 0 success; 1 internal error (a bug); 2 the input is wrong (one line on stderr);
// 3 the run was stopped by --max-wall or from outside, its simulation process killed by a signal
// (one line on stderr; no output file written).
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/report_output.hpp"
#include "sim/core/allocator_tuning.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/deadline.hpp"
#include "sim/core/error.hpp"
#include "sim/core/interrupt.hpp"
#include "sim/core/text_escape.hpp"

namespace {

// CLI::PositiveNumber lets "nan" through (nan <= 0 is false) and takes "inf".
const CLI::Validator finite_positive(
    [](std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
        return sim::quote_value(text) + " is not a finite positive number";
      return std::string();
    },
    "POSITIVE");

// Everything printed reached standard output, or the command fails: a full disk or a closed pipe
// behind it is one line and exit code 2, never a success with the output lost.
int finish_stdout(int rc) {
  std::cout.flush();
  const bool cout_ok = !std::cout.fail();
  const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int err = errno;
  const bool closed = std::fclose(stdout) == 0;
  if (cout_ok && flushed && closed) return rc;
  std::fprintf(stderr, "trainsim: error: writing to standard output failed: %s (expected a writable standard output)\n",
               std::strerror(flushed ? errno : err));
  return rc == 0 ? 2 : rc;
}

int run_command(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) { return finish_stdout(run_command(argc, argv)); }

namespace {

int run_command(int argc, char** argv) {
  sim::tune_allocator(argv);  // may re-execute the program once: first, before anything runs
  sim::interrupt::install();  // SIGINT/SIGTERM/SIGHUP: no simulation process or temporary file left behind
  // Every argument is UTF-8: names and values reach JSON reports, which hold UTF-8 only.
  for (int i = 1; i < argc; ++i)
    if (const size_t bad = sim::invalid_utf8_offset(argv[i]); bad != std::string::npos) {
      std::fprintf(stderr, "trainsim: error: argument %d (%s) is not valid UTF-8 at byte %zu (expected UTF-8 text)\n",
                   i, sim::quote_value(argv[i]).c_str(), bad);
      return 2;
    }
  CLI::App app{"trainsim: a discrete-event simulator of LLM training on GPU clusters"};
  app.require_subcommand(1);
  sim::cli::RunArgs run;
  auto* r = app.add_subcommand("run", "simulate one training step of a scenario and report it");
  r->add_option("config", run.config, "scenario JSON file")->required();
  r->add_option("-o,--output", run.output, "write the JSON report here");
  r->add_option("--trace", run.trace, "write a Chrome/Perfetto timeline of one step here");
  r->add_option(
      "--trials-csv", run.trials_csv,
      "write one CSV row per reliability trial here (wall, useful, ETTR, interruptions, time lost per cause)");
  r->add_option("--set", run.sets, "override a scenario value, e.g. --set parallelism.tp=4");
  r->add_option("--fidelity", run.fidelity, "class: one simulated rank per rank class; full: every rank")
      ->check(CLI::IsMember({"class", "full"}));
  auto* quiet = r->add_flag("-q,--quiet", run.quiet, "print nothing but errors");
  const char* format_help =
      "what to print: the summary (\"table\", the default; colour only on a terminal), the report (\"json\") or "
      "one CSV row of its scalar fields (\"csv\")";
  r->add_option("--format", run.format, format_help)
      ->check(CLI::IsMember(sim::cli::REPORT_FORMATS))
      ->excludes(quiet);  // -q prints nothing: a format asked for with it would be lost
  const char* max_wall_help = "stop the run (exit code 3, no output files) after this many seconds of wall-clock time";
  r->add_option("--max-wall", run.max_wall, max_wall_help)->check(finite_positive);
  const CLI::Validator bytes(sim::cli::check_max_memory, "BYTES");
  const std::string max_memory_help = sim::cli::max_memory_help();
  r->add_option("--max-memory", run.max_memory, max_memory_help)->check(bytes);
  const char* strict_memory_help =
      "refuse a plan whose reserved memory is over what the GPU leaves (HBM less the CUDA context and NCCL's "
      "buffers) instead of simulating it and reporting it as not fitting";
  r->add_flag("--strict-memory", run.strict_memory, strict_memory_help);
  sim::cli::CheckArgs check;
  auto* c = app.add_subcommand("check", "load and cross-check a scenario without simulating");
  c->add_option("config", check.config, "scenario JSON file")->required();
  c->add_option("--set", check.sets, "override a scenario value");
  // run's options that decide what it refuses before it simulates: check refuses the same.
  c->add_option("--fidelity", check.fidelity, "as run's: the fidelity whose simulation must fit the budget")
      ->check(CLI::IsMember({"class", "full"}));
  c->add_option("--max-wall", check.max_wall, "as run's: the time budget of the simulation it would start")
      ->check(finite_positive);
  c->add_option("--max-memory", check.max_memory, "as run's: " + max_memory_help)->check(bytes);
  c->add_flag("--strict-memory", check.strict_memory, strict_memory_help);
  std::string table, vfidelity = "class";
  auto* v = app.add_subcommand("validate", "run a validation table and compare with the published step times");
  v->add_option("table", table, "validation JSON (e.g. validation/published-a100.json)")->required();
  v->add_option("--fidelity", vfidelity, "class or full")->check(CLI::IsMember({"class", "full"}));
  double vmax_wall = 0;
  v->add_option("--max-wall", vmax_wall, max_wall_help)->check(finite_positive);
  std::string vmax_memory;
  v->add_option("--max-memory", vmax_memory, max_memory_help)->check(bytes);
  bool vstrict_memory = false;
  v->add_flag("--strict-memory", vstrict_memory,
              "a row whose plan is over the GPU's memory (HBM less the CUDA context and NCCL's buffers) is a failed "
              "row instead of simulated");
  sim::cli::CalibrateArgs cal;
  auto* k =
      app.add_subcommand("calibrate", "fit a device profile to kernel measurements (sim/kernels), or --check one");
  k->add_option("measurements", cal.measurements,
                "measurements JSON (the kernel suite's output, or calibration/published/*.json)")
      ->required();
  auto* cal_output = k->add_option("-o,--output", cal.output, "write the fitted device profile here");
  k->add_option("--base", cal.base,
                "profile the fit starts from (a name in topologies/devices or a path; default: the one the "
                "measurements name)");
  auto* cal_name = k->add_option("--name", cal.name, "name of the fitted profile (default: the output file's name)");
  auto* cal_check =
      k->add_flag("--check", cal.check, "do not fit: predict every measurement with a profile and print the errors");
  k->add_option("--device", cal.device, "profile to check (default: the base profile)")->needs(cal_check);
  auto* cal_exclude =
      k->add_option("--exclude", cal.exclude,
                    "leave these memory-bound kernels or attention implementations out of the fits (still checked), "
                    "e.g. --exclude rmsnorm_bwd,layernorm_bwd")
          ->delimiter(',');
  // --check fits nothing: a profile to write, its name or kernels left out of the fit would be ignored.
  cal_check->excludes(cal_output)->excludes(cal_name)->excludes(cal_exclude);
  k->add_option("--csv", cal.csv, "write every prediction (measured, predicted, error) as CSV here");
  std::vector<std::string> shape_configs;
  auto* sh = app.add_subcommand("shapes", "list the GEMM and attention shapes of scenarios, for the kernel suite");
  sh->add_option("configs", shape_configs, "scenario JSON files")->required();
  sim::cli::SearchArgs search;
  auto* se = app.add_subcommand("search",
                                "find the fastest parallel plan (tp, cp, pp, dp, sequence parallel, recompute, ZeRO, "
                                "precision; ep and dispatcher "
                                "on an MoE model)");
  se->add_option("config", search.config, "scenario JSON file (its model, cluster and training)")->required();
  se->add_option("--set", search.sets, "override a scenario value first");
  se->add_option("--top", search.top, "simulate this many of the best estimates (default 5)")
      ->check(CLI::Range(1, 100));
  se->add_option("--objective", search.objective,
                 "rank by \"step\" time (default) or by peak \"memory\" per GPU (the most headroom)")
      ->check(CLI::IsMember({"step", "memory"}));
  se->add_option("--max-sim-wall", search.max_sim_wall,
                 "a plan whose one-step simulation is estimated to take longer than this many seconds cannot run "
                 "here (default 20)")
      ->check(finite_positive);
  se->add_option("-o,--output", search.output, "write the fastest plan as a scenario here");
  se->add_option("--fidelity", search.fidelity, "class or full")->check(CLI::IsMember({"class", "full"}));
  se->add_option("--max-wall", search.max_wall, max_wall_help)->check(finite_positive);
  se->add_option("--max-memory", search.max_memory, max_memory_help)->check(bytes);
  std::vector<std::string> report_files;
  std::string report_format = "table";
  auto* rep = app.add_subcommand("report", "print saved reports (trainsim run -o) as a summary, JSON or CSV");
  rep->add_option("reports", report_files, "report JSON files")->required();
  rep->add_option("--format", report_format, format_help)->check(CLI::IsMember(sim::cli::REPORT_FORMATS));
  auto* l = app.add_subcommand("list", "list models, devices, topologies, schedules and collectives");
  std::string keys_what, keys_format = "text";
  auto* ks = app.add_subcommand("keys", "print the scenario keys: path, type, unit, default, allowed values, meaning");
  ks->add_option("what", keys_what, "a section (model, parallelism, ...) or a key (/parallelism/tp or parallelism.tp)");
  ks->add_option("--format", keys_format, "text, markdown or json")
      ->check(CLI::IsMember(std::vector<std::string>{"text", "markdown", "json"}));
  // Every command that reads data files (models/, topologies/, ...) takes --data (sim/core/data_dir.hpp).
  std::string data;
  std::vector<CLI::Option*> data_options;
  for (auto* sub : {r, c, v, k, sh, se, l})
    data_options.push_back(sub->add_option(
        "--data", data,
        "read models/, topologies/ and the other data files from this folder (default: $TRAINSIM_DATA, "
        "else the installed share/trainsim, else the source tree of a binary run from its build tree)"));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "trainsim: error: %s (see trainsim --help)\n", sim::bounded(e.what(), 4000).c_str());
    return 2;
  }
  try {
    for (const auto* o : data_options)  // an empty --data "" is refused too, not passed over
      if (o->count() > 0) sim::set_data_dir_option(data);
    if (*r) return sim::cli::run(run);
    if (*c) return sim::cli::check(check);
    if (*se) return sim::cli::search(search);
    if (*v) return sim::cli::validate(table, vfidelity, vmax_wall, vmax_memory, vstrict_memory);
    if (*k) return sim::cli::calibrate(cal);
    if (*sh) return sim::cli::shapes(shape_configs);
    if (*rep) return sim::cli::report(report_files, report_format);
    if (*l) return sim::cli::list();
    if (*ks) return sim::cli::keys(keys_what, keys_format);
  } catch (const sim::InputError& e) {
    std::fprintf(stderr, "trainsim: error: %s\n", sim::bounded(e.what(), 4000).c_str());
    return 2;
  } catch (const sim::RunStopped& e) {  // --max-wall (WallTimeExceeded), or a signal from outside
    std::fprintf(stderr, "trainsim: error: %s\n", sim::bounded(e.what(), 4000).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim: internal error: %s\n", sim::bounded(e.what(), 4000).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
