// fp64 host references of the memory-bound kernels (memory_kernels.hpp), on the same row-major
// layouts, computed from the values the kernels read (decoded bf16). Outputs are resized here.
#pragma once

#include <cstdint>
#include <vector>

namespace sim::kernels::ref {

using Vec = std::vector<double>;

void rmsnorm_fwd(const Vec& x, const Vec& w, int64_t n, int64_t h, double eps, Vec& y, Vec& rstd);
void rmsnorm_bwd(const Vec& dy, const Vec& x, const Vec& w, const Vec& rstd, int64_t n, int64_t h, Vec& dx, Vec& dw);
void layernorm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n, int64_t h, double eps, Vec& y, Vec& mean,
                   Vec& rstd);
void layernorm_bwd(const Vec& dy, const Vec& x, const Vec& gamma, const Vec& mean, const Vec& rstd, int64_t n,
                   int64_t h, Vec& dx, Vec& dgamma, Vec& dbeta);
void softmax_fwd(const Vec& x, int64_t n, int64_t h, Vec& y);
void softmax_bwd(const Vec& y, const Vec& dy, int64_t n, int64_t h, Vec& dx);
void gelu_fwd(const Vec& x, Vec& y);  // tanh approximation
void gelu_bwd(const Vec& x, const Vec& dy, Vec& dx);
void swiglu_fwd(const Vec& x, int64_t n, int64_t h, Vec& y);  // x: [n, 2h] = [gate | up]
void swiglu_bwd(const Vec& x, const Vec& dy, int64_t n, int64_t h, Vec& dx);
void residual_add(const Vec& a, const Vec& b, Vec& out);

}  // namespace sim::kernels::ref
