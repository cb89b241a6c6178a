// Closed forms of checkpoint-restart under exponential failures: the optimum interval (Young,
// Daly), the first-order ETTR (Kokolis et al.) and Daly's expected wall-clock time. The Monte Carlo
// timeline (job_timeline.hpp) is tested against them; `auto` intervals use daly_interval.
// Sources: Young (1974), "A first order approximation to the optimum checkpoint interval", CACM
// 17(9); Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), Eq. 37 (as implemented in LLNL/scr scr_ckpt_interval.py); Kokolis, Kuchnik
// et al., "Revisiting Reliability in Large-Scale Machine Learning Research Clusters", HPCA 2025
// (arXiv:2410.21680), its ETTR model.
//
// Notation: M is the job's mean time between failures, δ (`write`) the blocking checkpoint write,
// τ (`interval`) the compute time between checkpoints, R or u0 (`restart`) the whole restart
// overhead (detection + restart + reload).
#pragma once

#include "sim/core/units.hpp"

namespace sim::reliability {

// Young (1974), "A first order approximation to the optimum checkpoint interval", CACM 17(9):
// τ = sqrt(2 δ M).
Seconds young_interval(Seconds write, Seconds mttf);

// Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
// FGCS 22(3), Eq. 37 (as implemented in LLNL/scr scr_ckpt_interval.py, model `daly`):
// τ = sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ for δ < 2M, else τ = M.
// An infinite M (no failures) gives an infinite interval.
Seconds daly_interval(Seconds write, Seconds mttf);

// First-order expected ETTR (Kokolis et al., HPCA 2025, arXiv:2410.21680):
// E[ETTR] = (1 − (u0 + τ/2)/M) / (1 + δ/τ). Valid for τ, u0, δ well below M.
double first_order_ettr(Seconds interval, Seconds write, Seconds restart, Seconds mttf);

// Daly's expected wall-clock time to compute `solve` seconds of work in segments of τ compute +
// δ write, each failed segment retried after a restart R that failures can also interrupt
// (Daly 2006, as restated in secondary sources):
// T_wall = (T_solve/τ) · M · e^{R/M} · (e^{(τ+δ)/M} − 1).
Seconds daly_wallclock(Seconds solve, Seconds interval, Seconds write, Seconds restart, Seconds mttf);

}  // namespace sim::reliability
