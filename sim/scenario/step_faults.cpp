#include "sim/scenario/step_faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/core/params.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

namespace {

// A time from the step's start: like ParamReader::as_seconds, but 0 is allowed.
Seconds non_negative_seconds(const ParamReader& r) {
  const char* expected = "a time >= 0 with a unit, e.g. \"0.8 s\"";
  const std::string text = r.as_string();
  auto t = parse_seconds(text);
  if (!t) r.fail(quote_value(text) + " does not parse", expected);
  const QuantityRange times = schema_range("/step_faults/events/*/at");
  if (!times.contains(t->value))
    r.fail(quote_value(text) + " is out of range", fmt::format("a time from {:g} s to {:g} s", times.min, times.max));
  return *t;
}

// The slowdowns' range (schema_step_faults.cpp), of one factor and of their product on one component.
QuantityRange slowdowns() { return schema_range("/step_faults/events/*/factor"); }

double slow_factor(const ParamReader& f) {
  const double v = f.as_number();
  if (!slowdowns().contains(v))
    f.fail(fmt::format("{:g} is out of range", v),
           fmt::format("a slowdown factor from {:g} to {:g}", slowdowns().min, slowdowns().max));
  return v;
}

// Refuses slowdowns whose product on one component passes the largest slowdown, at the event that passes
// it (`listed` events come from `events`, the rest were drawn by `stragglers`). The factors are
// summed as logarithms: sixty factors of 10^6 multiply to more than double can hold.
void check_products(const std::vector<StepFaultEvent>& all, size_t listed, const ParamReader& r) {
  std::map<std::pair<FaultTarget, int64_t>, double> log_product;
  const double max_slowdown = slowdowns().max;
  const double limit = std::log(max_slowdown) * (1 + 1e-12);  // 1000 x 1000 is allowed despite rounding
  for (size_t i = 0; i < all.size(); ++i) {
    const StepFaultEvent& e = all[i];
    if (e.kind != StepFaultKind::SLOW) continue;
    double& l = log_product[{e.target, e.index}];
    l += std::log(e.factor);
    if (l <= limit) continue;
    const ParamReader where = i < listed ? r.at("events")[i] : r.at("stragglers");
    where.fail(fmt::format("the slowdowns on {} multiply to 10^{:.1f}, more than {:g}", to_string(e.target, e.index),
                           l / std::log(10.0), max_slowdown),
               fmt::format("slow factors on one component whose product is at most {:g}; slower, it has failed: "
                           "a \"fail\" event",
                           max_slowdown));
  }
}

StepFaultEvent parse_event(const ParamReader& e, const ClusterSpec& c) {
  e.expect_object();
  StepFaultEvent ev;
  const std::string kind = e.at("kind").as_choice(schema_choices("/step_faults/events/*/kind"));
  ev.kind = kind == "slow" ? StepFaultKind::SLOW : StepFaultKind::FAIL;
  e.expect_keys(schema_keys_for_kind("/step_faults/events/*", kind));
  if (e.has("gpu") == e.has("nic"))
    e.fail(e.has("gpu") ? "names both a gpu and a nic" : "names no component",
           "exactly one of \"gpu\": INDEX or \"nic\": INDEX");
  const int64_t nics = c.nodes() * c.scale_out.nics_per_node;
  if (e.has("gpu")) {
    ev.target = FaultTarget::GPU;
    ev.index = e.count("gpu", key_spec("/step_faults/events/*/gpu").min, c.gpus - 1);
  } else {
    ev.target = FaultTarget::NIC;
    ev.index = e.count("nic", key_spec("/step_faults/events/*/nic").min, nics - 1);
  }
  if (ev.kind == StepFaultKind::SLOW) {
    auto f = e.at("factor");
    ev.factor = slow_factor(f);
  } else {
    ev.at = non_negative_seconds(e.at("at"));
  }
  return ev;
}

// A uniform double in [0, 1) from 53 random bits (our own transform: the same draws everywhere).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// `stragglers`: the drawn GPUs as slow events, in increasing GPU order.
std::vector<StepFaultEvent> draw_stragglers(const ParamReader& r, const ClusterSpec& c, uint64_t seed) {
  r.expect_object();
  schema_expect_keys(r, "/step_faults/stragglers");
  if (r.has("count") == r.has("fraction"))
    r.fail(r.has("count") ? "gives both count and fraction" : "gives neither count nor fraction",
           "\"count\": N or \"fraction\": F of the GPUs");
  int64_t n = 0;
  const int64_t limit = std::min(key_spec("/step_faults/stragglers/count").max, c.gpus);
  if (auto k = r.find("count")) {
    n = k->as_count(key_spec("/step_faults/stragglers/count").min, limit);
  } else {
    auto f = r.at("fraction");
    const double x = f.as_number();
    const QuantityRange shares = schema_range("/step_faults/stragglers/fraction");
    if (!(x > shares.min && x <= shares.max))
      f.fail(fmt::format("{:g} is out of range", x),
             fmt::format("a fraction of the GPUs in ({:g}, {:g}]", shares.min, shares.max));
    // A fraction is of the cluster's GPUs: below one GPU's share (1e-11, 1e-320) it names no GPU,
    // and rounding it up to one would make it a count in disguise. The slack forgives 1/gpus
    // written in decimal.
    if (x * double(c.gpus) < 1 - 1e-9)
      f.fail(fmt::format("{:g} of {} GPUs is less than one GPU", x, c.gpus),
             fmt::format("a fraction of at least 1/gpus = {:g}, one GPU", 1.0 / double(c.gpus)));
    n = static_cast<int64_t>(std::ceil(x * double(c.gpus) - 1e-9));
    if (n > limit)
      f.fail(fmt::format("{:g} of {} GPUs is {} stragglers, more than {}", x, c.gpus, n, limit),
             "at most " + std::to_string(limit) + " stragglers");
  }
  double lo, hi;
  auto f = r.at("factor");
  if (f.is_object()) {
    schema_expect_keys(f, "/step_faults/stragglers/factor");
    lo = slow_factor(f.at("min"));
    hi = slow_factor(f.at("max"));
    if (hi < lo) f.at("max").fail(fmt::format("{:g} is below min {:g}", hi, lo), "max >= min");
  } else {
    lo = hi = slow_factor(f);
  }
  // Floyd's sampling of n distinct GPUs, then a factor each in GPU order.
  std::mt19937_64 rng = make_stream(seed, "stragglers");
  std::set<int64_t> chosen;
  for (int64_t j = c.gpus - n; j < c.gpus; ++j) {
    const auto t = static_cast<int64_t>(unit(rng) * double(j + 1));
    chosen.insert(chosen.count(t) ? j : t);
  }
  std::vector<StepFaultEvent> out;
  for (int64_t g : chosen) {
    StepFaultEvent e;
    e.index = g;
    e.factor = lo + (hi - lo) * unit(rng);
    out.push_back(e);
  }
  return out;
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

StepFaults StepFaults::parse(const ParamReader& r, const ClusterSpec& c, uint64_t seed) {
  r.expect_object();
  schema_expect_keys(r, "/step_faults");
  if (!r.has("events") && !r.has("stragglers"))
    r.fail("has neither events nor stragglers", "\"events\": [...] and/or \"stragglers\": {...}");
  StepFaults f;
  f.nccl_timeout = schema_value(r, "/step_faults/nccl_timeout")->as_seconds();
  if (auto events = r.find("events")) {
    events->expect_not_empty("at least one {\"kind\": \"slow\" | \"fail\", ...}, or no events");
    int64_t failures = 0;
    for (size_t i = 0; i < events->size(); ++i) {
      f.events.push_back(parse_event((*events)[i], c));
      if (f.events.back().kind == StepFaultKind::FAIL && ++failures > 1)
        (*events)[i].fail(
            "a second \"fail\" event: the first failure stalls the step, so nothing after it happens in it",
            "at most one \"fail\" event per scenario");
    }
  }
  const size_t listed = f.events.size();
  if (auto s = r.find("stragglers")) {
    const auto drawn = draw_stragglers(*s, c, seed);
    f.stragglers = static_cast<int64_t>(drawn.size());
    f.events.insert(f.events.end(), drawn.begin(), drawn.end());
  }
  check_products(f.events, listed, r);
  return f;
}

double StepFaults::worst_slowdown() const {
  double worst = 1.0;
  for (const auto& e : events)
    if (e.kind == StepFaultKind::SLOW) worst = std::max(worst, slowdown(e.target, e.index));
  return worst;
}

std::string to_string(FaultTarget target, int64_t index) {
  return (target == FaultTarget::GPU ? "gpu " : "nic ") + std::to_string(index);
}

}  // namespace sim
