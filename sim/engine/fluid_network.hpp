// Engine-internal: the links' sharing among flows as SimGrid's CM02 model computes it (the
// engine's network/model, replay.cpp), for the flows a folded step launches (replay.cpp,
// "Folding"): the same max-min allocation with the same weights, kept by our own bookkeeping.
//
// Why not SimGrid's own flows: SimGrid 3.32 files every host-to-host flow in one list of all
// flows in flight and unlinks each finished one by walking the whole list, so a step whose
// gradient reduction runs trees over thousands of nodes spends its time in that walk (the square
// of the flows in flight). Here a flow's start and end touch only the flows that share links with
// it, transitively (its component), as SimGrid's selective update does.
//
// The model, as CM02 has it (SimGrid's src/surf/network_cm02.cpp, lmm/maxmin.cpp), with
// network/crosstraffic off and no TCP window (replay.cpp sets both):
// - a flow first waits out its route's latency, then shares its links' bandwidth;
// - the rates are the weighted max-min fair allocation: every link carries at most its capacity,
//   and a flow's rate is its weight times the fair share of its most loaded link (progressive
//   filling); a flow's weight is 1 / its sharing penalty, which is its route's latency (1 for a
//   route of no latency);
// - the rates hold until a flow starts or ends; then its component is solved again.
// Flows on one route have one weight on the same links, so one rate: the solve fills routes, each
// loading its links by its flows in flight, and a flow's bytes are brought up to date only when its
// rate changes (a route whose rate stands and no flow joined keeps its flows' ends queued).
// Time is SimGrid's clock: the engine calls advance() whenever it interacts (starting flows,
// waiting), and a daemon actor sleeps until next_event(). Flows whose events fall within
// `kTimeTolerance` of each other are handled together, as SimGrid's surf precision does.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace sim {

class FluidNetwork {
 public:
  // Events closer than this (relative to the clock, at least 1 ns) are simultaneous; SimGrid's
  // surf/precision default, 1e-9.
  static constexpr double kTimeTolerance = 1e-9;

  // Called when the last flow of a group has ended (from within advance()).
  explicit FluidNetwork(std::function<void(int32_t group)> on_group_done) : on_done_(std::move(on_group_done)) {}

  int32_t add_link(double capacity);
  // A route: the links a flow crosses and its latency; `load`, when given, how many times its rate
  // each link carries (1 for each when empty). A flow standing for a class of k flows that are the
  // same system under a renaming of links (a cell of the fold's quotient) loads a link that stands
  // for a class of links k x (its class's flows per link of that class) / (its flows) times.
  int32_t add_route(std::vector<int32_t> links, double latency, std::vector<double> load = {});
  // A link that groups of flows share, simulated as one link per group (the fold's split,
  // sim/comm/shared_links.hpp): each group's link has the shared link's capacity times the
  // group's weight over the weights of the groups in use, a group being in use while its link
  // carries a flow; when a group starts or stops using it, the others' capacities change.
  int32_t add_shared_link(double capacity);
  // `link` stands for a group of `weight` on shared link `shared`: its own (`own`: its capacity
  // follows its share) or a group simulated by it (a twin's, in use whenever it is).
  void add_share(int32_t shared, int32_t link, double weight, bool own);
  // A set of flows waited for together; flows may be added to it until it is waited for.
  int32_t new_group();
  // Starts a flow of `bytes` on `route` at time `now` (no earlier than any call before), into
  // `group`.
  void start(double now, double bytes, int32_t route, int32_t group);
  // Handles every event up to `now`.
  void advance(double now);
  // The time of the next event (a latency paid, a flow's end); infinity when nothing is in flight.
  double next_event();
  // Flows of the group not yet ended.
  int64_t pending(int32_t group) const { return groups_[static_cast<size_t>(group)]; }
  // Rates as last solved (bytes per second), for tests: flows are numbered from 0 as they start,
  // an ended flow's number going to the next flow started (a step starts 10^8 of them).
  double rate(int64_t flow) const { return flows_[static_cast<size_t>(flow)].rate; }

 private:
  enum class Phase : uint8_t { LATENCY, ACTIVE, DONE };
  // Flows on one route share its links alike: the same weight, so the same rate. The solve works
  // on routes (each with its active flows' count), the links list the routes that carry flows.
  struct Route {
    std::vector<int32_t> links;
    std::vector<double> load;  // per link
    double weight = 1;         // CM02's: 1 / sharing penalty, the route's latency (1 for none)
    double latency = 0;
    uint32_t slots = 0;            // where its slots start in slots_: its index in each link's list of routes
    std::vector<int32_t> active;   // its flows sharing links now
    double rate = 0;               // each one's, as last solved
    double solved = 0;             // the rate its flows had before the solve running now
    bool fresh = false;            // a flow has joined it since its last solve
    uint64_t seen = 0, fixed = 0;  // the solve that last reached it, that fixed its rate
  };
  struct Flow {
    int32_t route = 0;
    int32_t slot = -1;     // its index in its route's active flows, -1 for none
    double remaining = 0;  // bytes at `since`
    double since = 0;
    double rate = 0;
    double at = 0;        // its next event (a latency paid, its end), when queued
    int32_t queued = -1;  // its place in the event queue, -1 for none
    Phase phase = Phase::LATENCY;
    int32_t group = 0;
    uint64_t serial = 0;  // its start's place among all starts: simultaneous events go in that order
  };
  struct Link {
    double capacity = 0;
    std::vector<int32_t> active;  // routes carrying flows
    // The solver's scratch: capacity left, weight and count of unfixed routes, the solve that last
    // reached it.
    double left = 0, weight = 0;
    int64_t unfixed = 0;
    uint64_t seen = 0;
    // The shared links it stands for groups of, with their weights; the one it is a group's own
    // link of (-1 for none).
    std::vector<std::pair<int32_t, double>> stands;
    int32_t shared = -1;
    double share = 0;  // its group's weight there
  };
  struct Shared {
    double capacity = 0;
    double in_use = 0;             // the weights of the groups in use
    std::vector<int32_t> members;  // the groups' own links
  };
  // The event queue: a binary heap of flows by (event time, flow), each flow at most once.
  bool before(int32_t a, int32_t b) const;
  void place(size_t i);  // restores the heap around position i
  void schedule(int32_t f, double at);
  void unschedule(int32_t f);
  void activate(int32_t f, double t);
  void finish(int32_t f);
  // Link l has started (or stopped) carrying flows: the shares of the shared links it stands for change.
  void use(int32_t l, bool on);
  void set_share(int32_t l);
  // Solves the component of the links touched since the last solve, at time t.
  void solve(double t);

  std::function<void(int32_t)> on_done_;

  std::vector<Flow> flows_;
  std::vector<int32_t> ended_;  // flows' numbers free for the next starts
  uint64_t started_ = 0;
  std::vector<Route> routes_;
  std::vector<Link> links_;
  std::vector<Shared> shared_;
  std::vector<int32_t> slots_;
  std::vector<int64_t> groups_;
  std::vector<int32_t> events_;
  std::vector<int32_t> touched_;  // links whose flows changed since the last solve
  double touched_at_ = 0;         // when they changed
  uint64_t solves_ = 0;
  // The solver's scratch.
  std::vector<int32_t> component_links_, component_routes_;
  struct Share {  // a link's fair share, as the progressive filling queues it
    double share;
    int32_t link;
    bool operator>(const Share& o) const { return share != o.share ? share > o.share : link > o.link; }
  };
  std::vector<Share> queue_;
};

}  // namespace sim
