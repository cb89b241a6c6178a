// The subcommands of `trainsim` (DESIGN.md "Command line"). Each returns the process exit code;
// InputError propagates to main, which prints it as one line and exits 2; WallTimeExceeded
// (--max-wall) likewise, with exit code 3.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sim::cli {

struct RunArgs {
  std::string config;
  std::string output;             // report JSON, "" for none
  std::string trace;              // Chrome/Perfetto trace, "" for none
  std::string trials_csv;         // one row per reliability trial, "" for none
  std::vector<std::string> sets;  // "path=value"
  std::string fidelity = "class";
  bool quiet = false;
  std::string format = "table";  // what goes to stdout: the summary ("table"), the report ("json"), "csv"
  double max_wall = 0;           // --max-wall seconds; 0 for no bound
  std::string max_memory;        // --max-memory, "" for the default
  bool strict_memory = false;    // --strict-memory: refuse a plan over the GPU's memory (exit 2)
};

// `trainsim check`: run's options that decide what run refuses before it simulates.
struct CheckArgs {
  std::string config;
  std::vector<std::string> sets;  // "path=value"
  std::string fidelity = "class";
  double max_wall = 0;         // --max-wall seconds (raises the simulation's time budget); 0 for none
  std::string max_memory;      // --max-memory, "" for the default
  bool strict_memory = false;  // --strict-memory, as run's
};

struct CalibrateArgs {
  std::string measurements;
  std::string output;                // fitted profile JSON, "" for none
  std::string base;                  // device profile name or path; "" = the one the measurements name
  std::string name;                  // name written into the fitted profile; "" = output file's stem
  bool check = false;                // only predict the measurements with `device` and print the errors
  std::string device;                // profile for --check; "" = base
  std::string csv;                   // every prediction as CSV here; "" for none
  std::vector<std::string> exclude;  // kernels / attention impls left out of the fits
};

struct SearchArgs {
  std::string config;
  std::vector<std::string> sets;   // "path=value", applied before the search
  int64_t top = 5;                 // how many of the best estimates to simulate
  std::string objective = "step";  // "step" (time) or "memory" (peak per GPU)
  double max_sim_wall = 20;        // a plan whose one-step simulation would take longer cannot run here
  std::string output;              // the best plan as a scenario, "" for none
  std::string fidelity = "class";
  double max_wall = 0;
  std::string max_memory;  // --max-memory, "" for the default
};

int run(const RunArgs& a);
int search(const SearchArgs& a);
int calibrate(const CalibrateArgs& a);
int shapes(const std::vector<std::string>& configs);
// strict_memory (--strict-memory): a plan over the GPU's memory is refused (check: exit 2;
// validate: a failed row) instead of simulated and reported as not fitting.
int check(const CheckArgs& a);
int validate(const std::string& table, const std::string& fidelity, double max_wall = 0,
             const std::string& max_memory = "", bool strict_memory = false);
int list();
// `trainsim keys [SECTION|KEY]`: the scenario schema as text, markdown or JSON (FORMAT).
int keys(const std::string& what, const std::string& format);
// `trainsim report FILE...`: the summary of saved reports, or them as JSON or CSV.
int report(const std::vector<std::string>& files, const std::string& format);

}  // namespace sim::cli
