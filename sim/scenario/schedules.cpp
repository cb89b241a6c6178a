#include "sim/scenario/schedules.hpp"

namespace sim {

const std::vector<ScheduleChoice>& pipeline_schedules() {
  static const std::vector<ScheduleChoice> schedules{
      {{Schedule::GPIPE, "gpipe", "all forwards, then all backwards (Huang et al. 2019)"}},
      {{Schedule::ONE_F_ONE_B, "1f1b", "one-forward-one-backward (PipeDream-Flush, Narayanan et al. 2021)"}},
      {{Schedule::INTERLEAVED, "interleaved", "1F1B over virtual stages (Narayanan et al. 2021)"}},
      {{Schedule::ZB_H1, "zb_h1",
        "zero bubble H1: backward split into input and weight gradients, the weight gradients filling 1F1B's "
        "bubble at 1F1B's activation memory; stages start their next step as they finish (Qi et al. 2024)"}},
      {{Schedule::ZB_H2, "zb_h2",
        "zero bubble H2: as zb_h1 with up to 2p-1 microbatches in flight, which fills the warm-up too (Qi et al. "
        "2024)"}},
      {{Schedule::ZB_V, "zb_v",
        "zero bubble V: two chunks per rank in a V (the first rank holds the first and last stage, virtual_stages "
        "2), the backward split as zb_h1's, 1F1B's activation memory (Qi et al. 2024)"},
       true},
      // deepseek-ai/DualPipe dualpipe.py@3da1bbe: `assert num_ranks % 2 == 0`, `num_chunks % 2 == 0
      // and num_chunks >= num_ranks * 2`; dualpipev.py: `num_chunks >= num_ranks * 2`.
      {{Schedule::DUALPIPE, "dualpipe",
        "DeepSeek's bidirectional pipeline: each rank holds stage r of one model copy and stage pp-1-r of the "
        "other (twice the parameters), micro-batches fed from both ends, a forward and a backward of two "
        "micro-batches run side by side so each hides the other's expert-parallel all-to-all (DeepSeek-V3 report "
        "3.2.1; deepseek-ai/DualPipe)"},
       true,
       true,
       2,
       true},
      {{Schedule::DUALPIPE_V, "dualpipe_v",
        "DualPipe cut in half: one model copy in a V of two stages per rank (as zb_v), DualPipe's order and its "
        "overlapped forward-backward pairs (deepseek-ai/DualPipe, DualPipeV)"},
       true,
       false,
       2},
  };
  return schedules;
}

const ScheduleChoice& schedule_choice(Schedule kind) { return registry_entry(pipeline_schedules(), kind); }

}  // namespace sim
