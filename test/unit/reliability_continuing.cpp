// Strategies that keep training through a failure (degradation.hpp, job_timeline.hpp CONTINUING),
// asynchronous checkpoints and silent data corruption: the DownSet's rates against the formulas
// of degradation.hpp, hand-timed traces with every second accounted for, and a queueing closed
// form (M/G/∞) for the throughput lost to nodes in repair.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "reliability_fixtures.hpp"
#include "sim/reliability/degradation.hpp"
#include "sim/reliability/monte_carlo.hpp"

using sim::Seconds;
namespace rel = sim::reliability;
using reliability_fixtures::horizon;
using reliability_fixtures::trace;

namespace {

rel::Degradation layout(rel::Continuing kind, int64_t dp, int64_t units) {
  rel::Degradation d;
  d.kind = kind;
  d.dp = dp;
  d.units = units;
  d.nodes = dp * units;
  return d;
}

// A continuing job with no storage checkpoint in sight: detection 10 s, pause 20 s, rejoin 20 s,
// repair 1000 s, restart 30 s, reload 5 s.
rel::JobParams continuing(const rel::Degradation& d) {
  rel::JobParams j;
  j.nodes = d.nodes;
  j.strategy = rel::Strategy::CONTINUING;
  j.degradation = &d;
  j.interval = Seconds(1e9);
  j.detection = Seconds(10);
  j.pause = Seconds(20);
  j.rejoin = Seconds(20);
  j.repair = Seconds(1000);
  j.restart = Seconds(30);
  j.reload = Seconds(5);
  j.loses_step = false;
  return j;
}

// Asynchronous checkpoints every 1000 s of work: a 5-s snapshot, then `write` in the background.
rel::JobParams async_checkpoints(double write) {
  rel::JobParams j;
  j.interval = Seconds(1000);
  j.write = Seconds(write);
  j.async = true;
  j.snapshot = Seconds(5);
  return j;
}

}  // namespace

TEST_CASE("DownSet: reconfigure sums the replicas' template rates", "[reliability]") {
  // 4 replicas of 4 units; a replica missing j units runs at template_rate[j].
  rel::Degradation d = layout(rel::Continuing::RECONFIGURE, 4, 4);
  d.template_rate = {1.0, 0.6, 0.3, 0.0, 0.0};
  rel::DownSet s(d);
  CHECK(s.rate() == 1.0);
  s.add(0);  // replica 0, unit 0
  CHECK(s.rate() == Approx((3 + 0.6) / 4));
  s.add(1);  // replica 0 again
  CHECK(s.rate() == Approx((3 + 0.3) / 4));
  s.add(4);  // replica 1
  CHECK(s.rate() == Approx((2 + 0.3 + 0.6) / 4));
  s.add(4);  // already down: nothing changes
  CHECK(s.rate() == Approx((2 + 0.3 + 0.6) / 4));
  s.remove(1);
  CHECK(s.rate() == Approx((2 + 0.6 + 0.6) / 4));
  CHECK_FALSE(s.fatal());
  for (int64_t replica : {0, 1, 2, 3}) s.add(replica * 4 + 2), s.add(replica * 4 + 3);  // every replica at j >= 2
  s.add(8), s.add(12);                                                                  // j = 3: rate 0
  s.add(5);
  CHECK(s.rate() == 0.0);
  CHECK(s.fatal());
  s.clear();
  CHECK(s.rate() == 1.0);
}

TEST_CASE("DownSet: redundant computation survives lone failures, not adjacent ones", "[reliability]") {
  rel::Degradation d = layout(rel::Continuing::REDUNDANT, 2, 4);
  d.merged_rate = 0.55;
  rel::DownSet s(d);
  s.add(1);
  CHECK(s.rate() == 0.55);
  s.add(3);  // units 1 and 3 of replica 0: not adjacent
  CHECK_FALSE(s.fatal());
  s.add(6);  // replica 1, unit 2
  CHECK(s.rate() == 0.55);
  CHECK_FALSE(s.fatal());
  s.add(2);  // replica 0 now has 1, 2, 3: adjacent pairs
  CHECK(s.fatal());
  s.remove(2);
  CHECK_FALSE(s.fatal());
  s.add(7);  // replica 1: units 2 and 3
  CHECK(s.fatal());
}

TEST_CASE("DownSet: reroute and swarm follow the most-hit unit", "[reliability]") {
  // 10 replicas of 2 units; node n is unit n % 2 of replica n / 2.
  rel::Degradation d = layout(rel::Continuing::REROUTE, 10, 2);
  d.reroute_rate = {1.0, 0.9, 0.8};
  rel::DownSet s(d);
  s.add(0), s.add(3);  // unit 0 of replica 0, unit 1 of replica 1: one copy of each unit down
  CHECK(s.rate() == 0.9);
  s.add(2);  // unit 0 of replica 1: two copies of unit 0
  CHECK(s.rate() == 0.8);
  s.add(4), s.add(6);  // four copies of unit 0: past the table, the extra time grows as d / (dp - d)
  const double extra2 = 1 / 0.8 - 1, share2 = 2.0 / 8, share4 = 4.0 / 6;
  CHECK(s.rate() == Approx(1 / (1 + extra2 * share4 / share2)));
  for (int64_t replica = 4; replica < 10; ++replica) s.add(replica * 2);
  CHECK(s.fatal());  // every copy of unit 0
  rel::Degradation w = layout(rel::Continuing::SWARM, 10, 2);
  rel::DownSet pool(w);
  pool.add(1), pool.add(3), pool.add(5), pool.add(0);  // three peers of unit 1, one of unit 0
  CHECK(pool.rate() == Approx(7.0 / 10));
}

TEST_CASE("DownSet: nodes that hold several replicas, units that span several nodes", "[reliability]") {
  rel::Degradation d = layout(rel::Continuing::SWARM, 8, 1);
  d.replicas_per_node = 2;  // 4 nodes of 2 replicas each
  d.nodes = 4;
  rel::DownSet s(d);
  s.add(1);  // replicas 2 and 3
  CHECK(s.rate() == Approx(6.0 / 8));
  rel::Degradation e = layout(rel::Continuing::SWARM, 2, 2);
  e.nodes_per_unit = 2;  // replicas of 4 nodes: units {0, 1}, {2, 3}
  e.nodes = 8;
  rel::DownSet t(e);
  t.add(0), t.add(1);  // one unit of replica 0, counted once
  CHECK(t.rate() == Approx(1.0 / 2));
  t.remove(0);
  CHECK(t.rate() == Approx(1.0 / 2));  // node 1 still holds the unit down
  t.remove(1);
  CHECK(t.rate() == 1.0);
}

TEST_CASE("continuing: a hand-timed trace, every second accounted for", "[reliability]") {
  // 4 swarm peers of one unit. 100 s: node 1 fails; detection 10 + pause 20, then 3 of 4 peers
  // until it returns at 1100 (970 s at 3/4: 727.5 s of work, 242.5 s degraded), a rejoin stall of
  // 20 s, then full speed to 3000 (1880 s). Node 1 failing again at 500 while down changes nothing.
  rel::Degradation d = layout(rel::Continuing::SWARM, 4, 1);
  const rel::JobParams j = continuing(d);
  rel::FailureProcess p(trace({{Seconds(100), "gpu", "1"}, {Seconds(500), "gpu", "1"}}), 4, 1);
  const auto r = rel::run_trial(j, horizon(3000), p);
  CHECK(r.unexpected == 1);
  REQUIRE(r.recoveries.size() == 1);
  CHECK(r.recoveries[0].value == 30);
  CHECK(r.useful.value == Approx(100 + 727.5 + 1880));
  CHECK(r.lost.degraded.value == Approx(242.5));
  CHECK(r.lost.detection.value == 10);
  CHECK(r.lost.restart.value == Approx(20 + 20));
  CHECK((r.useful + r.lost.total()).value == Approx(3000).epsilon(1e-12));
}

TEST_CASE("continuing: adjacent failures are fatal and restart from storage with every node", "[reliability]") {
  // Bamboo on one pipeline of 4 units, merged at half speed. 100 s: unit 1 fails (back at 130, half
  // speed: 35 s of work by 200); 200 s: unit 2, adjacent: restart from the start (135 s lost),
  // detection 10 + restart 30 + reload 5, every node back at 245, full speed to 1000.
  rel::Degradation d = layout(rel::Continuing::REDUNDANT, 1, 4);
  d.merged_rate = 0.5;
  const rel::JobParams j = continuing(d);
  rel::FailureProcess p(trace({{Seconds(100), "gpu", "1"}, {Seconds(200), "gpu", "2"}}), 4, 1);
  const auto r = rel::run_trial(j, horizon(1000), p);
  CHECK(r.unexpected == 2);
  REQUIRE(r.recoveries.size() == 2);
  CHECK(r.recoveries[0].value == 30);
  CHECK(r.recoveries[1].value == 45);
  CHECK(r.lost.lost_work.value == Approx(135));
  CHECK(r.lost.degraded.value == Approx(35));
  CHECK(r.useful.value == Approx(755));
  CHECK((r.useful + r.lost.total()).value == Approx(1000).epsilon(1e-12));
}

TEST_CASE("continuing: the throughput lost to repairs is the M/G/inf queue's mean", "[reliability]") {
  // 64 swarm peers of one unit, failing as a Poisson process of rate L = 1 / 10 h over the job;
  // each is away R = 10 h. The nodes in repair form an M/G/inf queue with mean L R = 1 (less the
  // failures of nodes already away: L R (1 - 1/64) to first order), each costing 1/64 of the
  // throughput; each failure also stops the job for detection + pause = 100 s. Goodput ≈
  // (1 - L (D + P)) (1 - L R (1 - 1/64) / 64).
  rel::Degradation d = layout(rel::Continuing::SWARM, 64, 1);
  rel::JobParams j = continuing(d);
  const double L = 1.0 / 36000, R = 36000;
  j.repair = Seconds(R);
  j.rejoin = Seconds(0);
  j.detection = Seconds(60);
  j.pause = Seconds(40);
  sim::FailureSpec f;
  f.law = sim::FailureLaw::POISSON;
  f.per_node_day = L * 86400 / 64;
  const auto m = rel::run_monte_carlo(f, j, horizon(200 * 86400.0), 20, 7);
  const double expected = (1 - L * 100) * (1 - L * R * (1 - 1.0 / 64) / 64);
  CHECK(m.goodput.mean == Approx(expected).epsilon(0.002));
  CHECK(m.ettr.mean > m.goodput.mean);  // degraded time counts as training time, not as goodput
}

TEST_CASE("asynchronous checkpoints: the cycle is interval + slowdown x write + snapshot", "[reliability]") {
  // No failures. Interval 1000 s, snapshot 5 s, a 300 s background write at 20% slowdown: the first
  // cycle is 1000 + 5, each later one 300 at 0.8 (240 s of work), 760 at full speed, 5 blocking.
  rel::JobParams j = async_checkpoints(300);
  j.background_slowdown = 0.2;
  rel::FailureProcess none(trace({}), 1, 1);
  const double H = 1005 + 10 * (1000 + 0.2 * 300 + 5);
  const auto r = rel::run_trial(j, horizon(H), none);
  CHECK(r.useful.value == Approx(11000));
  CHECK(r.lost.checkpoint_writes.value == Approx(11 * 5 + 10 * 0.2 * 300));
  // A write longer than the interval paces the job: each cycle is write + snapshot.
  j.write = Seconds(1500);
  rel::FailureProcess none2(trace({}), 1, 1);
  const auto slow = rel::run_trial(j, horizon(1005 + 10 * 1505.0), none2);
  CHECK(slow.useful.value == Approx(11000));
  CHECK((slow.useful + slow.lost.total()).value == Approx(1005 + 10 * 1505.0));
}

TEST_CASE("asynchronous checkpoints: a failure during the background write loses it", "[reliability]") {
  // Interval 1000, snapshot 5, write 300 (no slowdown), detection + restart + reload = 10 + 20 + 30.
  // 1100 s: the write of the state at 1000 (snapshot 1000–1005) would end at 1305: it is lost, and
  // the job goes back to 0 (1100 - 5 = 1095 s of work lost).
  rel::JobParams j = async_checkpoints(300);
  j.detection = Seconds(10);
  j.restart = Seconds(20);
  j.reload = Seconds(30);
  rel::FailureProcess p(trace({{Seconds(1100), "gpu", "0"}}), 1, 1);
  const auto r = rel::run_trial(j, horizon(1160), p);
  CHECK(r.lost.lost_work.value == Approx(1095));
  CHECK(r.useful.value == 0);
  // With the failure after the write ends (1400), the checkpoint holds: 1400 - 1005 = 395 lost.
  rel::FailureProcess q(trace({{Seconds(1400), "gpu", "0"}}), 1, 1);
  CHECK(rel::run_trial(j, horizon(1460), q).lost.lost_work.value == Approx(395));
}

TEST_CASE("silent data corruption rolls back past the checkpoints taken after it", "[reliability]") {
  // Checkpoints every 1000 s of work, blocking writes of 0 s. An SDC detected at 10,500 s, 4,000 s
  // after it began (6,500): the checkpoints at 7,000 … 10,000 hold bad state, so the job goes back
  // to 6,000: 4,500 s lost (a detected failure at the same time would lose 500).
  rel::JobParams j;
  j.interval = Seconds(1000);
  j.detection = Seconds(10);
  j.restart = Seconds(20);
  j.reload = Seconds(30);
  sim::FailureSpec f = trace({{Seconds(10500), "sdc", "0"}});
  f.components = {{"sdc", 0.001, sim::FailureScope::GPU, 1, Seconds(4000)}};
  rel::FailureProcess p(f, 1, 1);
  const auto r = rel::run_trial(j, horizon(10560), p);
  CHECK(r.lost.lost_work.value == Approx(4500));
  sim::FailureSpec loud = trace({{Seconds(10500), "sdc", "0"}});
  rel::FailureProcess q(loud, 1, 1);
  CHECK(rel::run_trial(j, horizon(10560), q).lost.lost_work.value == Approx(500));
}
