#include "sim/engine/fluid_network.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sim {
namespace {

double tolerance(double t) { return FluidNetwork::kTimeTolerance * std::max(1.0, std::abs(t)); }

}  // namespace

int32_t FluidNetwork::add_link(double capacity) {
  links_.push_back({});
  links_.back().capacity = capacity;
  return static_cast<int32_t>(links_.size() - 1);
}

int32_t FluidNetwork::add_route(std::vector<int32_t> links, double latency, std::vector<double> load) {
  if (load.empty()) load.assign(links.size(), 1.0);
  const auto slots = static_cast<uint32_t>(slots_.size());
  slots_.resize(slots_.size() + links.size(), -1);
  routes_.push_back(
      {std::move(links), std::move(load), latency > 0 ? 1.0 / latency : 1.0, latency, slots, {}, 0, 0, false, 0, 0});
  return static_cast<int32_t>(routes_.size() - 1);
}

int32_t FluidNetwork::add_shared_link(double capacity) {
  shared_.push_back({capacity, 0, {}});
  return static_cast<int32_t>(shared_.size() - 1);
}

void FluidNetwork::add_share(int32_t shared, int32_t link, double weight, bool own) {
  Link& l = links_[static_cast<size_t>(link)];
  l.stands.emplace_back(shared, weight);
  if (!l.active.empty()) shared_[static_cast<size_t>(shared)].in_use += weight;
  if (own && l.shared < 0) {  // (a link standing for a cell of representatives is each one's)
    l.shared = shared;
    l.share = weight;
    shared_[static_cast<size_t>(shared)].members.push_back(link);
  }
  for (int32_t m : shared_[static_cast<size_t>(shared)].members) set_share(m);
}

// A group's link: the shared link's capacity times its weight over those in use (its own counted).
void FluidNetwork::set_share(int32_t l) {
  Link& k = links_[static_cast<size_t>(l)];
  const Shared& x = shared_[static_cast<size_t>(k.shared)];
  double in_use = x.in_use;
  if (k.active.empty())
    for (const auto& [y, w] : k.stands) in_use += y == k.shared ? w : 0.0;
  k.capacity = in_use > 0 ? x.capacity * k.share / in_use : x.capacity;
}

void FluidNetwork::use(int32_t l, bool on) {
  for (const auto& [y, w] : links_[static_cast<size_t>(l)].stands) {
    Shared& x = shared_[static_cast<size_t>(y)];
    x.in_use += on ? w : -w;
    for (int32_t m : x.members) {
      set_share(m);
      if (m != l && !links_[static_cast<size_t>(m)].active.empty()) touched_.push_back(m);
    }
  }
}

int32_t FluidNetwork::new_group() {
  groups_.push_back(0);
  return static_cast<int32_t>(groups_.size() - 1);
}

void FluidNetwork::start(double now, double bytes, int32_t route, int32_t group) {
  advance(now);
  int32_t f = static_cast<int32_t>(flows_.size());
  if (ended_.empty()) {
    flows_.push_back({});
  } else {
    f = ended_.back();
    ended_.pop_back();
    flows_[static_cast<size_t>(f)] = {};
  }
  const Route& r = routes_[static_cast<size_t>(route)];
  Flow& x = flows_[static_cast<size_t>(f)];
  x.serial = started_++;
  x.route = route;
  x.remaining = std::max(0.0, bytes);
  x.since = now;
  x.group = group;
  ++groups_[static_cast<size_t>(group)];
  if (r.latency > 0)
    schedule(f, now + r.latency);
  else
    activate(f, now);
}

bool FluidNetwork::before(int32_t a, int32_t b) const {
  const Flow &x = flows_[static_cast<size_t>(a)], &y = flows_[static_cast<size_t>(b)];
  return x.at != y.at ? x.at < y.at : x.serial < y.serial;
}

void FluidNetwork::place(size_t i) {
  const auto set = [&](size_t at, int32_t f) {
    events_[at] = f;
    flows_[static_cast<size_t>(f)].queued = static_cast<int32_t>(at);
  };
  const int32_t f = events_[i];
  while (i > 0 && before(f, events_[(i - 1) / 2])) {  // up
    set(i, events_[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  for (;;) {  // down
    size_t c = 2 * i + 1;
    if (c >= events_.size()) break;
    if (c + 1 < events_.size() && before(events_[c + 1], events_[c])) ++c;
    if (!before(events_[c], f)) break;
    set(i, events_[c]);
    i = c;
  }
  set(i, f);
}

void FluidNetwork::schedule(int32_t f, double at) {
  Flow& x = flows_[static_cast<size_t>(f)];
  x.at = at;
  if (x.queued < 0) {
    x.queued = static_cast<int32_t>(events_.size());
    events_.push_back(f);
  }
  place(static_cast<size_t>(x.queued));
}

void FluidNetwork::unschedule(int32_t f) {
  Flow& x = flows_[static_cast<size_t>(f)];
  if (x.queued < 0) return;
  const auto i = static_cast<size_t>(x.queued);
  x.queued = -1;
  const int32_t last = events_.back();
  events_.pop_back();
  if (last == f) return;
  events_[i] = last;
  place(i);
}

// The latency is paid: the flow starts sharing its links (one of no links or no bytes ends now).
void FluidNetwork::activate(int32_t f, double t) {
  Flow& x = flows_[static_cast<size_t>(f)];
  x.phase = Phase::ACTIVE;
  x.since = t;
  Route& r = routes_[static_cast<size_t>(x.route)];
  if (r.links.empty() || x.remaining <= 0) return finish(f);
  if (touched_.empty()) touched_at_ = t;
  x.slot = static_cast<int32_t>(r.active.size());
  r.active.push_back(f);
  r.fresh = true;
  const auto id = static_cast<int32_t>(&r - routes_.data());
  for (size_t i = 0; i < r.links.size(); ++i) {
    touched_.push_back(r.links[i]);
    if (r.active.size() > 1) continue;  // the route is on its links' lists already
    Link& l = links_[static_cast<size_t>(r.links[i])];
    slots_[r.slots + i] = static_cast<int32_t>(l.active.size());
    l.active.push_back(id);
    if (l.active.size() == 1 && !l.stands.empty()) use(r.links[i], true);
  }
}

void FluidNetwork::finish(int32_t f) {
  Flow& x = flows_[static_cast<size_t>(f)];
  const bool sharing = x.slot >= 0;
  x.phase = Phase::DONE;
  x.remaining = 0;
  x.rate = 0;
  unschedule(f);
  if (sharing) {
    Route& r = routes_[static_cast<size_t>(x.route)];
    const int32_t moved = r.active.back();  // off the route's flows
    r.active[static_cast<size_t>(x.slot)] = moved;
    flows_[static_cast<size_t>(moved)].slot = x.slot;
    r.active.pop_back();
    x.slot = -1;
    const auto id = static_cast<int32_t>(&r - routes_.data());
    for (size_t i = 0; i < r.links.size(); ++i) {
      touched_.push_back(r.links[i]);
      if (!r.active.empty()) continue;  // the route stays on its links' lists
      Link& l = links_[static_cast<size_t>(r.links[i])];
      const int32_t slot = slots_[r.slots + i];
      const int32_t other = l.active.back();
      l.active[static_cast<size_t>(slot)] = other;
      l.active.pop_back();
      if (other != id) {  // the moved route's slot on this link
        const Route& m = routes_[static_cast<size_t>(other)];
        for (size_t j = 0; j < m.links.size(); ++j)
          if (m.links[j] == r.links[i]) slots_[m.slots + j] = slot;
      }
      slots_[r.slots + i] = -1;
      if (l.active.empty() && !l.stands.empty()) use(r.links[i], false);
    }
  }
  ended_.push_back(f);
  if (--groups_[static_cast<size_t>(x.group)] == 0) on_done_(x.group);
}

void FluidNetwork::advance(double now) {
  if (!touched_.empty() && touched_at_ < now - tolerance(now)) solve(touched_at_);
  const auto next = [&] { return flows_[static_cast<size_t>(events_.front())].at; };
  while (!events_.empty() && next() <= now + tolerance(now)) {
    const double t = next();
    if (!touched_.empty()) solve(touched_at_);  // flows started before t share from then on
    // Every event at t (within the tolerance) at once: symmetric flows end together.
    while (!events_.empty() && next() <= t + tolerance(t)) {
      const int32_t f = events_.front();
      unschedule(f);
      if (flows_[static_cast<size_t>(f)].phase == Phase::LATENCY)
        activate(f, t);
      else
        finish(f);
    }
    if (!touched_.empty()) {
      touched_at_ = t;
      solve(t);
    }
  }
}

double FluidNetwork::next_event() {
  if (!touched_.empty()) solve(touched_at_);
  return events_.empty() ? std::numeric_limits<double>::infinity() : flows_[static_cast<size_t>(events_.front())].at;
}

void FluidNetwork::solve(double t) {
  const uint64_t id = ++solves_;
  // The component: links touched, their routes, those routes' links, and so on.
  auto& comp_links = component_links_;
  auto& comp_routes = component_routes_;
  comp_links.clear();
  comp_routes.clear();
  for (int32_t l : touched_)
    if (links_[static_cast<size_t>(l)].seen != id) {
      links_[static_cast<size_t>(l)].seen = id;
      comp_links.push_back(l);
    }
  touched_.clear();
  for (size_t i = 0; i < comp_links.size(); ++i)
    for (int32_t q : links_[static_cast<size_t>(comp_links[i])].active) {
      Route& r = routes_[static_cast<size_t>(q)];
      if (r.seen == id) continue;
      r.seen = id;
      r.solved = r.rate;
      comp_routes.push_back(q);
      for (int32_t l : r.links)
        if (links_[static_cast<size_t>(l)].seen != id) {
          links_[static_cast<size_t>(l)].seen = id;
          comp_links.push_back(l);
        }
    }
  // Progressive filling: the link of the smallest fair share saturates first, fixing its routes'
  // flows. Fixing flows at the smallest share leaves every other link's share the same or larger,
  // so a link's entry in the queue is a lower bound of its share: popped, it is either current
  // (the smallest share) or goes back with its share now.
  auto& queue = queue_;
  queue.clear();
  for (int32_t l : comp_links) {
    Link& k = links_[static_cast<size_t>(l)];
    k.left = k.capacity;
    k.weight = 0;
    k.unfixed = static_cast<int64_t>(k.active.size());
  }
  for (int32_t q : comp_routes) {
    const Route& r = routes_[static_cast<size_t>(q)];
    const double w = r.weight * static_cast<double>(r.active.size());
    for (size_t i = 0; i < r.links.size(); ++i) links_[static_cast<size_t>(r.links[i])].weight += r.load[i] * w;
  }
  for (int32_t l : comp_links) {
    const Link& k = links_[static_cast<size_t>(l)];
    if (k.unfixed > 0) queue.push_back({k.left / k.weight, l});
  }
  const auto later = std::greater<Share>();
  std::make_heap(queue.begin(), queue.end(), later);
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), later);
    const Share e = queue.back();
    queue.pop_back();
    Link& k = links_[static_cast<size_t>(e.link)];
    if (k.unfixed == 0) continue;
    const double share = std::max(0.0, k.left) / k.weight;
    if (share > e.share) {
      queue.push_back({share, e.link});
      std::push_heap(queue.begin(), queue.end(), later);
      continue;
    }
    for (int32_t q : k.active) {
      Route& r = routes_[static_cast<size_t>(q)];
      if (r.fixed == id) continue;
      r.fixed = id;
      r.rate = r.weight * share;
      const auto n = static_cast<double>(r.active.size());
      for (size_t i = 0; i < r.links.size(); ++i) {
        Link& o = links_[static_cast<size_t>(r.links[i])];
        o.left -= r.load[i] * r.rate * n;
        o.weight -= r.load[i] * r.weight * n;
        --o.unfixed;
      }
    }
  }
  // Bytes moved at the old rates up to t; the ends at the new ones. A flow's bytes are kept at
  // the time its rate last changed, so a route whose rate stands and has no new flow keeps its ends.
  for (int32_t q : comp_routes) {
    Route& r = routes_[static_cast<size_t>(q)];
    if (r.rate == r.solved && !r.fresh) continue;
    r.fresh = false;
    for (int32_t f : r.active) {
      Flow& x = flows_[static_cast<size_t>(f)];
      if (r.rate == x.rate && x.queued >= 0) continue;  // its end stands
      x.remaining = std::max(0.0, x.remaining - x.rate * (t - x.since));
      x.since = t;
      x.rate = r.rate;
      if (x.rate > 0)
        schedule(f, t + x.remaining / x.rate);
      else
        unschedule(f);  // no end until its rate changes
    }
  }
}

}  // namespace sim
