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

namespace sim {

namespace {

// A time from the step's start: like ParamReader::as_seconds, but 0 is allowed.
Seconds non_negative_seconds(const ParamReader& r) {
  const char* expected = "a time >= 0 with a unit, e.g. \"0.8 s\"";
  const std::string text = r.as_string();
  auto t = parse_seconds(text);
  if (!t) r.fail(quote_value(text) + " does not parse", expected);
  if (!(t->value >= 0.0 && t->value <= 1e9)) r.fail(quote_value(text) + " is out of range", "a time from 0 s to 1e9 s");
  return *t;
}

// A component at most a million times slower: a GPU then still computes at a TFLOP/s-class
// device's 1 MFLOP/s, and a step of seconds takes weeks.
constexpr double MAX_SLOWDOWN = 1e6;

double slow_factor(const ParamReader& f) {
  const double v = f.as_number();
  if (!(v >= 1.0 && v <= MAX_SLOWDOWN))
    f.fail(fmt::format("{:g} is out of range", v), fmt::format("a slowdown factor from 1 to {:g}", MAX_SLOWDOWN));
  return v;
}

// Refuses slowdowns whose product on one component passes MAX_SLOWDOWN, at the event that passes
// it (`listed` events come from `events`, the rest were drawn by `stragglers`). The factors are
// summed as logarithms: sixty factors of 10^6 multiply to more than double can hold.
void check_products(const std::vector<StepFaultEvent>& all, size_t listed, const ParamReader& r) {
  std::map<std::pair<FaultTarget, int64_t>, double> log_product;
  const double limit = std::log(MAX_SLOWDOWN) * (1 + 1e-12);  // 1000 x 1000 is allowed despite rounding
  for (size_t i = 0; i < all.size(); ++i) {
    const StepFaultEvent& e = all[i];
    if (e.kind != StepFaultKind::SLOW) continue;
    double& l = log_product[{e.target, e.index}];
    l += std::log(e.factor);
    if (l <= limit) continue;
    const ParamReader where = i < listed ? r.at("events")[i] : r.at("stragglers");
    where.fail(fmt::format("the slowdowns on {} multiply to 10^{:.1f}, more than {:g}", to_string(e.target, e.index),
                           l / std::log(10.0), MAX_SLOWDOWN),
               fmt::format("slow factors on one component whose product is at most {:g}; slower, it has failed: "
                           "a \"fail\" event",
                           MAX_SLOWDOWN));
  }
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
  r.expect_keys({"count", "fraction", "factor"});
  if (r.has("count") == r.has("fraction"))
    r.fail(r.has("count") ? "gives both count and fraction" : "gives neither count nor fraction",
           "\"count\": N or \"fraction\": F of the GPUs");
  int64_t n = 0;
  const int64_t limit = std::min(MAX_STRAGGLERS, c.gpus);
  if (auto k = r.find("count")) {
    n = k->as_count(1, limit);
  } else {
    auto f = r.at("fraction");
    const double x = f.as_number();
    if (!(x > 0 && x <= 1)) f.fail(fmt::format("{:g} is out of range", x), "a fraction of the GPUs in (0, 1]");
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
    f.expect_keys({"min", "max"});
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
  r.expect_keys({"nccl_timeout", "events", "stragglers"});
  if (!r.has("events") && !r.has("stragglers"))
    r.fail("has neither events nor stragglers", "\"events\": [...] and/or \"stragglers\": {...}");
  StepFaults f;
  if (auto t = r.find("nccl_timeout")) f.nccl_timeout = t->as_seconds();
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
