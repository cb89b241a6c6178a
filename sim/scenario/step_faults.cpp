#include "sim/scenario/step_faults.hpp"

#include <fmt/format.h>

#include "sim/core/params.hpp"
#include "sim/scenario/cluster.hpp"

namespace sim {

namespace {

// A time from the step's start: like ParamReader::as_seconds, but 0 is allowed.
Seconds non_negative_seconds(const ParamReader& r) {
  const char* expected = "a time >= 0 with a unit, e.g. \"0.8 s\"";
  const std::string text = r.as_string();
  auto t = parse_seconds(text);
  if (!t) r.fail("'" + text + "' does not parse", expected);
  if (!(t->value >= 0.0 && t->value <= 1e9)) r.fail("'" + text + "' is out of range", "a time from 0 s to 1e9 s");
  return *t;
}

StepFaultEvent parse_event(const ParamReader& e, const ClusterSpec& c) {
  e.expect_object();
  StepFaultEvent ev;
  ev.kind = e.at("kind").as_choice({"slow", "fail"}) == "slow" ? StepFaultKind::SLOW : StepFaultKind::FAIL;
  if (ev.kind == StepFaultKind::SLOW)
    e.expect_keys({"kind", "gpu", "nic", "factor"});
  else
    e.expect_keys({"kind", "gpu", "nic", "at"});
  if (e.has("gpu") == e.has("nic"))
    e.fail(e.has("gpu") ? "names both a gpu and a nic" : "names no component",
           "exactly one of \"gpu\": INDEX or \"nic\": INDEX");
  const int64_t nics = c.nodes() * c.scale_out.nics_per_node;
  if (e.has("gpu")) {
    ev.target = FaultTarget::GPU;
    ev.index = e.count("gpu", 0, c.gpus - 1);
  } else {
    ev.target = FaultTarget::NIC;
    ev.index = e.count("nic", 0, nics - 1);
  }
  if (ev.kind == StepFaultKind::SLOW) {
    auto f = e.at("factor");
    ev.factor = f.as_number();
    if (!(ev.factor >= 1.0 && ev.factor <= 1e6))
      f.fail(fmt::format("{:g} is out of range", ev.factor), "a slowdown factor from 1 to 1e6");
  } else {
    ev.at = non_negative_seconds(e.at("at"));
  }
  return ev;
}

}  // namespace

bool StepFaults::has_slow() const {
  for (const auto& e : events)
    if (e.kind == StepFaultKind::SLOW) return true;
  return false;
}

std::optional<StepFaultEvent> StepFaults::failure() const {
  for (const auto& e : events)
    if (e.kind == StepFaultKind::FAIL) return e;
  return std::nullopt;
}

double StepFaults::slowdown(FaultTarget target, int64_t index) const {
  double f = 1.0;
  for (const auto& e : events)
    if (e.kind == StepFaultKind::SLOW && e.target == target && e.index == index) f *= e.factor;
  return f;
}

StepFaults StepFaults::slow_only() const {
  StepFaults out = healthy();
  for (const auto& e : events)
    if (e.kind == StepFaultKind::SLOW) out.events.push_back(e);
  return out;
}

StepFaults StepFaults::healthy() const {
  StepFaults out;
  out.nccl_timeout = nccl_timeout;
  return out;
}

StepFaults StepFaults::parse(const ParamReader& r, const ClusterSpec& c) {
  r.expect_object();
  r.expect_keys({"nccl_timeout", "events"});
  StepFaults f;
  if (auto t = r.find("nccl_timeout")) f.nccl_timeout = t->as_seconds();
  auto events = r.at("events");
  int64_t failures = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    f.events.push_back(parse_event(events[i], c));
    if (f.events.back().kind == StepFaultKind::FAIL && ++failures > 1)
      events[i].fail("a second \"fail\" event: the first failure stalls the step, so nothing after it happens in it",
                     "at most one \"fail\" event per scenario");
  }
  return f;
}

std::string to_string(FaultTarget target, int64_t index) {
  return (target == FaultTarget::GPU ? "gpu " : "nic ") + std::to_string(index);
}

}  // namespace sim
