// Small builders shared by the reliability unit tests: a failure trace and a horizon stop.
#pragma once

#include <utility>
#include <vector>

#include "sim/reliability/job_timeline.hpp"
#include "sim/scenario/reliability_spec.hpp"

namespace reliability_fixtures {

inline sim::FailureSpec trace(std::vector<sim::TracedFailure> rows) {
  sim::FailureSpec s;
  s.law = sim::FailureLaw::TRACE;
  s.trace = std::move(rows);
  return s;
}

inline sim::reliability::Stop horizon(double seconds) {
  return sim::reliability::Stop{sim::reliability::StopMode::HORIZON, sim::Seconds(seconds)};
}

}  // namespace reliability_fixtures
