// Element-wise comparison of a kernel's output with its reference.
//
// An element passes when |got - want| <= atol + rtol * |want| (NaN never passes). The result
// names the worst element (largest excess over its tolerance) so a failure message can say where.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim::kernels {

struct Comparison {
  size_t count = 0;                               // elements compared
  size_t failures = 0;                            // elements outside tolerance
  size_t worst = 0;                               // index of the element with the largest |got - want| / tolerance
  double got = 0.0, want = 0.0, tolerance = 0.0;  // at `worst`
  double max_abs_error = 0.0;

  bool ok() const { return failures == 0; }
  // "3 of 4096 outside tolerance; worst [17]: got 0.51, want 0.5, tolerance 0.005"
  std::string describe() const;
};

// Throws std::invalid_argument when the sizes differ.
Comparison compare(const std::vector<double>& got, const std::vector<double>& want, double atol, double rtol);
// The same with one absolute tolerance per element: passes when |got - want| <= tolerance[i].
Comparison compare(const std::vector<double>& got, const std::vector<double>& want,
                   const std::vector<double>& tolerance);

// Largest |x|, 0 for an empty vector; for scaling absolute tolerances.
double max_abs(const std::vector<double>& v);

}  // namespace sim::kernels

namespace sim::kernels {

// A kernel's result disagrees with its reference: main() prints the message, writes no file and
// exits 3.
class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws CheckFailure "<what>: <c.describe()>" unless c.ok().
void require(const Comparison& c, const std::string& what);

}  // namespace sim::kernels
