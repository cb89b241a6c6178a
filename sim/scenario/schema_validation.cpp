// The schema of a validation table (validation/*.json; `trainsim validate` reads it,
// sim/cli/validate.cpp), a file of its own: its paths start at "@validation", the file's root.
// Each row runs exactly its scenario; `extra` is documentation, but for the published peak memory
// that is compared with the prediction.
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_validation_keys() {
  const std::string R = "@validation/runs/*";
  return {
      {"@validation", "object", "", "", "", "", "the validation table file", 0, 0},
      {"@validation/kind", "choice", "", "", "required", "validation", "what the file is", 0, 0},
      {"@validation/description", "string", "", "", "documentation only", "", "the table's sources and scope", 0, 0},
      {"@validation/runs", "array", "", "", "required", "at least one row", "the published runs", 0, 0},
      {R, "object", "", "", "", "", "one published run", 0, 0},
      {R + "/name", "string", "", "", "required", "", "the row's name", 0, 0},
      {R + "/group", "string", "", "", "required", "", "the rows a MAPE is given for together", 0, 0},
      {R + "/note", "string", "", "", "documentation only", "", "what the row is and where it comes from", 0, 0},
      {R + "/scenario", "object", "", "", "required", "a scenario (trainsim keys scenario)",
       "the run, every setting stated: validate runs exactly this", 0, 0},
      {R + "/published", "object", "", "", "required", "", "the published figures the prediction is compared with", 0,
       0},
      {R + "/published/step_time_s", "number", "s", "", "required", "", "published time of one training step", 0, 0,
       "0.001..86400", "no published training step is under a millisecond or over a day"},
      {R + "/extra", "object or null", "", "", "documentation only", "",
       "the source's settings and figures, as published (not applied)", 0, 0},
      {R + "/extra/published_peak_memory_gib", "number", "GiB", "", "none", "",
       "published peak reserved memory per GPU, compared with the prediction (torchtitan's rows)", 0, 0, "0.01..1e6",
       "an input bound: from 10 MiB to a million GiB, beyond any GPU's memory"},
  };
}

}  // namespace sim
