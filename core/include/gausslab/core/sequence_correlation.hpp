#pragma once
// The seed's first weighting method, `--weights correlation` (docs/sequence.md, "Weights from the
// correlation matrix"): the weights that make the prediction fit the frame best in the least
// squares sense, found from the sample correlation matrix of the history, regularised by γ·E.
// With d_i(x) = f(x) − f_i(x + k_i) (frame minus history frame i at its integer offset) and the
// weights summing to one, the frame minus the prediction is Σ c_i d_i, so the squared residual
// is cᵀ D c with D_ij = mean_x d_i(x)·d_j(x), the correlation matrix of the history's prediction
// errors. Minimising it, plus γ·(trace D / n)·‖c‖², subject to Σ c_i = 1, gives
//
//     c = A⁻¹1 / (1ᵀA⁻¹1),   A = D + γ·(trace D / n)·E.
//
// γ is relative to the mean diagonal, so the same --gamma means the same for any units; D's
// diagonal already holds the noise of each history frame (the term that the polynomial weights'
// γ‖c‖² stands for), so γ only keeps A well conditioned. D is taken over the pixels where every
// history frame reads inside its frame and a value (not NaN), on every stats_row_step-th row.
#include "gausslab/core/sequence_maths.hpp"

namespace gausslab::seq {

// Entries of the upper triangle of an n × n matrix, row by row: (0,0), (0,1), ..., (1,1), ...
GAUSSLAB_HD int triangle_size(int n) { return n * (n + 1) / 2; }
GAUSSLAB_HD int triangle_index(int n, int i, int j) { return i * n - i * (i - 1) / 2 + (j - i); }

// The prediction errors d of the used history frames at (x, y) (n of them, in the order of
// `used`); false when a read is outside its frame or NaN (the pixel is left out of D).
GAUSSLAB_HD bool prediction_errors(const GreyView& current, const float* const* history, const WhiteningWeights& w,
                                   const int* used, int n, int x, int y, float* d) {
  const float f = current.at(x, y);
  for (int i = 0; i < n; ++i) {
    const int j = used[i];
    const int xs = x + w.kx[j], ys = y + w.ky[j];
    if (xs < 0 || ys < 0 || xs >= current.width || ys >= current.height) return false;
    const float v = history[j][static_cast<std::ptrdiff_t>(ys) * current.stride + xs];
    if (!(v == v)) return false;  // no value there
    d[i] = f - v;
  }
  return true;
}

// The weights from D (the upper triangle, mean products): the weights' c for the used positions,
// false when A is not positive definite or the weights do not sum to a positive number (the frame
// is then not whitened). `scratch` holds kMaxHistory² + kMaxHistory doubles.
GAUSSLAB_HD bool correlation_weights(const double* triangle, int n, double gamma, const int* used,
                                     WhiteningWeights& out, double* scratch) {
  if (n == 0) return false;
  double* a = scratch;
  double* x = scratch + kMaxHistory * kMaxHistory;
  double trace = 0.0;
  for (int i = 0; i < n; ++i) trace += triangle[triangle_index(n, i, i)];
  if (!(trace > 0.0)) return false;
  const double ridge = gamma * trace / n;
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) a[i * n + j] = a[j * n + i] = triangle[triangle_index(n, i, j)];
    a[i * n + i] += ridge;
    x[i] = 1.0;
  }
  if (!cholesky_solve(a, x, n)) return false;
  double total = 0.0;
  for (int i = 0; i < n; ++i) total += x[i];
  if (!(total > 0.0)) return false;
  for (int i = 0; i < n; ++i) out.c[used[i]] = static_cast<float>(x[i] / total);
  return true;
}

}  // namespace gausslab::seq
