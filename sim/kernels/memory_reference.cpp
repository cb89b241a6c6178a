#include "sim/kernels/memory_reference.hpp"

#include <algorithm>
#include <cmath>

namespace sim::kernels::ref {

namespace {

constexpr double kGeluC = 0.7978845608028654;  // sqrt(2/pi)
constexpr double kGeluA = 0.044715;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

void rmsnorm_fwd(const Vec& x, const Vec& w, int64_t n, int64_t h, double eps, Vec& y, Vec& rstd) {
  y.assign(x.size(), 0.0);
  rstd.assign(static_cast<size_t>(n), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double* xr = &x[r * h];
    double ss = 0.0;
    for (int64_t c = 0; c < h; ++c) ss += xr[c] * xr[c];
    rstd[r] = 1.0 / std::sqrt(ss / h + eps);
    for (int64_t c = 0; c < h; ++c) y[r * h + c] = xr[c] * rstd[r] * w[c];
  }
}

void rmsnorm_bwd(const Vec& dy, const Vec& x, const Vec& w, const Vec& rstd, int64_t n, int64_t h, Vec& dx, Vec& dw) {
  dx.assign(x.size(), 0.0);
  dw.assign(static_cast<size_t>(h), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double rs = rstd[r];
    double dot = 0.0;
    for (int64_t c = 0; c < h; ++c) dot += dy[r * h + c] * w[c] * x[r * h + c];
    const double k = dot * rs * rs * rs / h;
    for (int64_t c = 0; c < h; ++c) {
      dx[r * h + c] = rs * w[c] * dy[r * h + c] - x[r * h + c] * k;
      dw[c] += dy[r * h + c] * x[r * h + c] * rs;
    }
  }
}

void layernorm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n, int64_t h, double eps, Vec& y, Vec& mean,
                   Vec& rstd) {
  y.assign(x.size(), 0.0);
  mean.assign(static_cast<size_t>(n), 0.0);
  rstd.assign(static_cast<size_t>(n), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double* xr = &x[r * h];
    double mu = 0.0, var = 0.0;
    for (int64_t c = 0; c < h; ++c) mu += xr[c];
    mu /= h;
    for (int64_t c = 0; c < h; ++c) var += (xr[c] - mu) * (xr[c] - mu);
    const double rs = 1.0 / std::sqrt(var / h + eps);
    mean[r] = mu;
    rstd[r] = rs;
    for (int64_t c = 0; c < h; ++c) y[r * h + c] = (xr[c] - mu) * rs * gamma[c] + beta[c];
  }
}

void layernorm_bwd(const Vec& dy, const Vec& x, const Vec& gamma, const Vec& mean, const Vec& rstd, int64_t n,
                   int64_t h, Vec& dx, Vec& dgamma, Vec& dbeta) {
  dx.assign(x.size(), 0.0);
  dgamma.assign(static_cast<size_t>(h), 0.0);
  dbeta.assign(static_cast<size_t>(h), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double mu = mean[r], rs = rstd[r];
    double sum_g = 0.0, sum_gx = 0.0;
    for (int64_t c = 0; c < h; ++c) {
      const double g = gamma[c] * dy[r * h + c], xhat = (x[r * h + c] - mu) * rs;
      sum_g += g;
      sum_gx += g * xhat;
    }
    for (int64_t c = 0; c < h; ++c) {
      const double g = gamma[c] * dy[r * h + c], xhat = (x[r * h + c] - mu) * rs;
      dx[r * h + c] = rs * (g - sum_g / h - xhat * sum_gx / h);
      dgamma[c] += dy[r * h + c] * xhat;
      dbeta[c] += dy[r * h + c];
    }
  }
}

void softmax_fwd(const Vec& x, int64_t n, int64_t h, Vec& y) {
  y.assign(x.size(), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double* xr = &x[r * h];
    const double mx = *std::max_element(xr, xr + h);
    double sum = 0.0;
    for (int64_t c = 0; c < h; ++c) sum += std::exp(xr[c] - mx);
    for (int64_t c = 0; c < h; ++c) y[r * h + c] = std::exp(xr[c] - mx) / sum;
  }
}

void softmax_bwd(const Vec& y, const Vec& dy, int64_t n, int64_t h, Vec& dx) {
  dx.assign(y.size(), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    double dot = 0.0;
    for (int64_t c = 0; c < h; ++c) dot += y[r * h + c] * dy[r * h + c];
    for (int64_t c = 0; c < h; ++c) dx[r * h + c] = y[r * h + c] * (dy[r * h + c] - dot);
  }
}

void gelu_fwd(const Vec& x, Vec& y) {
  y.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = 0.5 * x[i] * (1.0 + std::tanh(kGeluC * (x[i] + kGeluA * x[i] * x[i] * x[i])));
}

void gelu_bwd(const Vec& x, const Vec& dy, Vec& dx) {
  dx.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double t = std::tanh(kGeluC * (x[i] + kGeluA * x[i] * x[i] * x[i]));
    const double grad = 0.5 * (1.0 + t) + 0.5 * x[i] * (1.0 - t * t) * kGeluC * (1.0 + 3.0 * kGeluA * x[i] * x[i]);
    dx[i] = dy[i] * grad;
  }
}

void swiglu_fwd(const Vec& x, int64_t n, int64_t h, Vec& y) {
  y.assign(static_cast<size_t>(n * h), 0.0);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < h; ++c) {
      const double g = x[r * 2 * h + c], u = x[r * 2 * h + h + c];
      y[r * h + c] = g * sigmoid(g) * u;
    }
}

void swiglu_bwd(const Vec& x, const Vec& dy, int64_t n, int64_t h, Vec& dx) {
  dx.assign(x.size(), 0.0);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < h; ++c) {
      const double g = x[r * 2 * h + c], u = x[r * 2 * h + h + c], d = dy[r * h + c], s = sigmoid(g);
      dx[r * 2 * h + c] = d * u * s * (1.0 + g * (1.0 - s));
      dx[r * 2 * h + h + c] = d * g * s;
    }
}

void residual_add(const Vec& a, const Vec& b, Vec& out) {
  out.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
}

}  // namespace sim::kernels::ref
