// Closed forms of checkpoint-restart (sim/reliability/closed_forms.hpp) against the formulas,
// written out here, and the published figures of Young (1974, CACM 17(9)), Daly (2006, FGCS 22(3)
// Eq. 37) and Kokolis et al. (HPCA 2025, arXiv:2410.21680).
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/reliability/closed_forms.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

TEST_CASE("young and daly intervals: the formulas of Young (1974) and Daly (2006)", "[reliability]") {
  const double d = 60, m = 11131;
  // Young 1974: sqrt(2 δ M).
  CHECK(rel::young_interval(Seconds(d), Seconds(m)).value == Approx(std::sqrt(2 * d * m)).epsilon(1e-14));
  // Daly 2006 Eq. 37 for δ < 2M.
  const double x = d / (2 * m);
  CHECK(rel::daly_interval(Seconds(d), Seconds(m)).value ==
        Approx(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d).epsilon(1e-14));
  // δ ≥ 2M: τ = M.
  CHECK(rel::daly_interval(Seconds(500), Seconds(200)).value == 200);
  CHECK(rel::daly_interval(Seconds(400), Seconds(200)).value == 200);
  CHECK(std::isinf(rel::daly_interval(Seconds(60), Seconds(INFINITY)).value));
}

TEST_CASE("first-order ETTR reproduces Kokolis et al.'s 0.7 and 0.93 (HPCA 2025)", "[reliability]") {
  // 2,000 nodes at r_f = 6.5e-3 per node-day: M = 86400 / (2000 · 6.5e-3) s; u0 = 5 min, w_cp = 0.
  // The paper (HPCA 2025): ETTR ≈ 0.7 at 60-min checkpoints, 0.93 at 5-min ones.
  const Seconds m(86400.0 / (2000 * 6.5e-3));
  CHECK(rel::first_order_ettr(Seconds(3600), Seconds(0), Seconds(300), m) == Approx(1 - (300 + 1800) / m.value));
  CHECK(rel::first_order_ettr(Seconds(3600), Seconds(0), Seconds(300), m) == Approx(0.70).margin(0.02));
  CHECK(rel::first_order_ettr(Seconds(300), Seconds(0), Seconds(300), m) == Approx(0.93).margin(0.005));
  // The write term: (1 − (u0 + τ/2)/M) / (1 + δ/τ).
  CHECK(rel::first_order_ettr(Seconds(600), Seconds(30), Seconds(300), m) ==
        Approx((1 - (300 + 300) / m.value) / (1 + 30.0 / 600)));
}

TEST_CASE("daly wallclock: its formula, and no failures leaves only the writes", "[reliability]") {
  const double solve = 1.2e7, tau = 3000, d = 300, r = 600, m = 11131;
  CHECK(rel::daly_wallclock(Seconds(solve), Seconds(tau), Seconds(d), Seconds(r), Seconds(m)).value ==
        Approx(solve / tau * m * std::exp(r / m) * (std::exp((tau + d) / m) - 1)).epsilon(1e-12));
  // M → ∞: T_wall → T_solve · (τ + δ)/τ.
  CHECK(rel::daly_wallclock(Seconds(solve), Seconds(tau), Seconds(d), Seconds(r), Seconds(1e15)).value ==
        Approx(solve * (tau + d) / tau).epsilon(1e-9));
}
