#pragma once
// The maths of spatio-temporal whitening, written once for the CPU reference
// (core/src/sequence_cpu.cpp) and the CUDA kernels (cuda/src/sequence_kernels.cu): per-pixel
// terms, the shift from its sums, and the history weights from the shifts. docs/sequence.md
// derives every formula here; the names follow it.
//
// Conventions: frames are float32 grey, row-major; a shift d = (dx, dy) of a frame says that the
// content at x in the reference is at x + d in the frame, f(x) = R(x - d).
#include <cmath>
#include <cstddef>

#include "gausslab/core/host_device.hpp"

namespace gausslab::seq {

inline constexpr int kMaxHistory = 64;      // N: history frames the weights combine
inline constexpr int kMaxDegree = 4;        // n: degree of the weight polynomial in the shifts
inline constexpr int kMaxMoments = 14;      // monomials of degree 1..n in two variables, n = 4
inline constexpr int kMaxSearchRadius = 64; // --search-radius: the integer search, ±K px around the coarse estimate
inline constexpr int kMaxRefineRadius = 512; // the integer search's window: ±max(K, coarse factor) px
inline constexpr int kProjectionTile = 64;  // tile of the projection partial sums (rows and columns)
inline constexpr int kProfileSmoothRadius = 7;  // profiles are high-passed by a 15-sample mean
inline constexpr int kFineMargin = 2;       // fine sums skip 2 px at the borders of both frames
inline constexpr int kMinSide = 8;          // smallest frame side the shift estimation accepts
// u·w - v² below this fraction of (u + w)² counts as zero: the frame has no 2D structure.
inline constexpr double kDegenerateRatio = 1e-6;

// Monomials of degree 1..n: M(n) = (n + 1)(n + 2)/2 - 1.
GAUSSLAB_HD int moment_count(int degree) { return (degree + 1) * (degree + 2) / 2 - 1; }

// A read-only float image: `stride` floats per row.
struct GreyView {
  const float* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;

  GAUSSLAB_HD float at(int x, int y) const { return data[static_cast<std::ptrdiff_t>(y) * stride + x]; }
  GAUSSLAB_HD float clamped(int x, int y) const {
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    return at(x, y);
  }
};

// ---- local mean and gradients ------------------------------------------------------------------

// The 3×3 binomial local mean ([1 2 1]/4 in each direction, borders clamped). The weights are
// powers of two, so the result is the same bit for bit with or without fused multiply-adds.
GAUSSLAB_HD float binomial_row(const GreyView& v, int x, int y) {
  return v.clamped(x - 1, y) + 2.0f * v.clamped(x, y) + v.clamped(x + 1, y);
}
GAUSSLAB_HD float local_mean(const GreyView& v, int x, int y) {
  return (binomial_row(v, x, y - 1) + 2.0f * binomial_row(v, x, y) + binomial_row(v, x, y + 1)) * 0.0625f;
}

// ---- coarse integer search: projections ------------------------------------------------------

// Column sum over the rows [y0, y1) of column x, and row sum over the columns [x0, x1) of row y,
// each in float, in order: one tile's partial sums, the same on the CPU and the GPU.
GAUSSLAB_HD float column_partial(const GreyView& v, int x, int y0, int y1) {
  float s = 0.0f;
  for (int y = y0; y < y1; ++y) s += v.at(x, y);
  return s;
}
GAUSSLAB_HD float row_partial(const GreyView& v, int y, int x0, int x1) {
  float s = 0.0f;
  for (int x = x0; x < x1; ++x) s += v.at(x, y);
  return s;
}

// Mean of a profile over [i - a, i + a] (clamped), subtracted from it: the high-passed profile.
GAUSSLAB_HD double high_pass(const double* profile, int n, int i) {
  double s = 0.0;
  for (int j = i - kProfileSmoothRadius; j <= i + kProfileSmoothRadius; ++j)
    s += profile[j < 0 ? 0 : (j >= n ? n - 1 : j)];
  return profile[i] - s / (2 * kProfileSmoothRadius + 1);
}

// Double adds and multiplies that the CUDA compiler may not fuse: the coarse search takes a
// discrete decision from these sums, so the CPU and the GPU must round them alike.
GAUSSLAB_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GAUSSLAB_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// The mismatch of the frame's high-passed profile pf against the reference's pr moved by `lag`
// (pf[i] against pr[i - lag]): the mean squared difference over their overlap [lo, hi). It is
// summed in kMismatchLanes interleaved partial sums combined pairwise (lane i += lane i + 16, then
// + 8, ...): the order of a warp's shuffle reduction, which the CPU follows.
inline constexpr int kMismatchLanes = 32;
GAUSSLAB_HD void lag_overlap(int n, int lag, int& lo, int& hi) {
  lo = lag > 0 ? lag : 0;
  hi = lag > 0 ? n : n + lag;
}
GAUSSLAB_HD double mismatch_lane(const double* pf, const double* pr, int n, int lag, int lane) {
  int lo = 0, hi = 0;
  lag_overlap(n, lag, lo, hi);
  double s = 0.0;
  for (int i = lo + lane; i < hi; i += kMismatchLanes) {
    const double d = pf[i] - pr[i - lag];
    s = add_rn(s, mul_rn(d, d));
  }
  return s;
}
GAUSSLAB_HD double mismatch_mean(double lane_total, int n, int lag) {
  int lo = 0, hi = 0;
  lag_overlap(n, lag, lo, hi);
  return hi > lo ? lane_total / (hi - lo) : 0.0;
}
// The serial form (the CPU's): the same lanes and pairing as the warp.
GAUSSLAB_HD double profile_mismatch(const double* pf, const double* pr, int n, int lag) {
  double lanes[kMismatchLanes];
  for (int lane = 0; lane < kMismatchLanes; ++lane) lanes[lane] = mismatch_lane(pf, pr, n, lag, lane);
  for (int offset = kMismatchLanes / 2; offset > 0; offset /= 2)
    for (int lane = 0; lane < offset; ++lane) lanes[lane] = add_rn(lanes[lane], lanes[lane + offset]);
  return mismatch_mean(lanes[0], n, lag);
}

// The better of two lags by their mismatch: smaller mismatch, then smaller |lag|, then the
// negative one, so that ties (a flat frame) resolve the same everywhere.
GAUSSLAB_HD bool lag_better(double mismatch_a, int lag_a, double mismatch_b, int lag_b) {
  if (mismatch_a != mismatch_b) return mismatch_a < mismatch_b;
  const int abs_a = lag_a < 0 ? -lag_a : lag_a, abs_b = lag_b < 0 ? -lag_b : lag_b;
  if (abs_a != abs_b) return abs_a < abs_b;
  return lag_a < lag_b;
}

// The integer search's lags along one axis of `side` px: [centre - radius, centre + radius],
// limited so that the frame and the reference still overlap by a quarter of the side.
struct LagWindow {
  int lo = 0, hi = 0;  // inclusive
};
GAUSSLAB_HD LagWindow lag_window(int side, int centre, int radius) {
  const int limit = 3 * side / 4;
  LagWindow w;
  w.lo = centre - radius < -limit ? -limit : centre - radius;
  w.hi = centre + radius > limit ? limit : centre + radius;
  if (w.lo > w.hi) w.lo = w.hi = centre < -limit ? -limit : (centre > limit ? limit : centre);
  return w;
}

// ---- fine (sub-pixel) step -------------------------------------------------------------------

// The pixels x of the reference whose terms enter the sums for an integer offset k: x and x + k
// both at least kFineMargin from every border. Empty (x0 >= x1) when the frames do not overlap.
struct Region {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  GAUSSLAB_HD long long count() const {
    return (x1 > x0 && y1 > y0) ? static_cast<long long>(x1 - x0) * (y1 - y0) : 0;
  }
};
GAUSSLAB_HD Region fine_region(int width, int height, int kx, int ky) {
  Region r;
  r.x0 = kx < 0 ? kFineMargin - kx : kFineMargin;
  r.x1 = kx > 0 ? width - kFineMargin - kx : width - kFineMargin;
  r.y0 = ky < 0 ? kFineMargin - ky : kFineMargin;
  r.y1 = ky > 0 ? height - kFineMargin - ky : height - kFineMargin;
  return r;
}

// The sums of the linearised shift problem (docs/sequence.md): p = Σ g·(f̄ - r), q = Σ h·(f̄ - r),
// u = Σ h², v = Σ h·g, w = Σ g² with g, h the central differences of the reference's local mean r
// and f̄ the frame's local mean read at x + k; uf, vf, wf the same structure sums of the frame's
// own central differences (they tell a flat frame apart).
enum ShiftSum { kSumP, kSumQ, kSumU, kSumV, kSumW, kSumUf, kSumVf, kSumWf, kSumCount };
struct ShiftSums {
  double s[kSumCount] = {0, 0, 0, 0, 0, 0, 0, 0};
};

// One pixel's terms, in float, added to `acc` in double. `r` is the reference's local mean
// (an image), `f` the frame; (x, y) must lie in fine_region(.., kx, ky).
GAUSSLAB_HD void add_shift_terms(const GreyView& r, const GreyView& f, int x, int y, int kx, int ky, double* acc) {
  const float h = 0.5f * (r.at(x + 1, y) - r.at(x - 1, y));
  const float g = 0.5f * (r.at(x, y + 1) - r.at(x, y - 1));
  const float diff = local_mean(f, x + kx, y + ky) - r.at(x, y);
  const int fx = x + kx, fy = y + ky;
  const float hf = 0.5f * (f.at(fx + 1, fy) - f.at(fx - 1, fy));
  const float gf = 0.5f * (f.at(fx, fy + 1) - f.at(fx, fy - 1));
  acc[kSumP] += static_cast<double>(g * diff);
  acc[kSumQ] += static_cast<double>(h * diff);
  acc[kSumU] += static_cast<double>(h * h);
  acc[kSumV] += static_cast<double>(h * g);
  acc[kSumW] += static_cast<double>(g * g);
  acc[kSumUf] += static_cast<double>(hf * hf);
  acc[kSumVf] += static_cast<double>(hf * gf);
  acc[kSumWf] += static_cast<double>(gf * gf);
}

// What became of a frame's shift.
enum class ShiftStatus : int {
  Estimated = 0,   // dx, dy valid
  Reference = 1,   // the reference frame of its segment: dx = dy = 0
  Degenerate = 2,  // no 2D structure (u·w - v² = 0 for the frame or the overlap): no shift, not used
  Missing = 3,     // never processed (unreadable, wrong size, before a reference existed)
  NoMatch = 4,     // the shift search failed: no significant match, or the fine step did not converge
  Rejected = 5,    // matched, but its whitened residual is far above the history's: left out
};

// Why a record is as it is, and what the user should be warned of (bits of ShiftRecord::flags).
enum ShiftFlag : int {
  kFlagCoarseEdge = 1,       // the coarse search's best match is at the edge of the lags it searched
  kFlagRefineEdge = 2,       // the integer search's best lag is at the edge of its window
  kFlagNotConverged = 4,     // the fine step moved by more than kMaxFineStep px: the integer offset was wrong
  kFlagWeakMatch = 8,        // the coarse match's significance is below the threshold
  kFlagResidualHigh = 16,    // the whitened residual's robust deviation is far above the history's
  kFlagTailHigh = 32,        // too many whitened pixels far beyond the history's deviation
  kFlagStartsSegment = 64,   // the reference of a new segment (a scene cut), confirmed by the frame after it
  kFlagConfirmsCut = 128,    // matched the previous frame (which did not match the reference): a scene cut
};

// The fine step is a linearisation: a remainder beyond this means the integer offset was wrong.
inline constexpr double kMaxFineStep = 1.0;

struct ShiftRecord {
  double dx = 0, dy = 0;
  int status = static_cast<int>(ShiftStatus::Missing);
  int kx = 0, ky = 0;     // the integer offset the fine step started from
  int flags = 0;          // ShiftFlag bits
  int frame = -1;         // engine index (push order since begin)
  int segment = -1;       // scene segment: 0, then one more after each cut
  float match = 0;        // significance of the coarse match (peak over the correlation surface's spread)
  float residual = 0;     // robust deviation of the whitened frame (0: not whitened)
  float residual_ratio = 0;  // residual against the history's (0: no history of residuals yet)
  float tail = 0;         // fraction of the whitened pixels beyond 5 × its robust deviation (0: not whitened)
};

GAUSSLAB_HD bool system_degenerate(double u, double v, double w) {
  const double trace = u + w;
  return !(trace > 0.0) || !(u * w - v * v > kDegenerateRatio * trace * trace);
}

// Solves the 2×2 system for the sub-pixel remainder e and returns d = k + e.
// With f(x) = R(x - d) and f̄(x + k) - r(x) ≈ -(e_x·h + e_y·g), least squares gives
//   e_x = (p·v - q·w) / (u·w - v²),  e_y = (q·v - p·u) / (u·w - v²)
// (the formulas with the opposite sign: they give the reference's shift against the frame).
GAUSSLAB_HD ShiftRecord solve_shift(const ShiftSums& sums, long long pixels, int kx, int ky) {
  const double* s = sums.s;
  ShiftRecord r;
  r.kx = kx;
  r.ky = ky;
  if (pixels < 16 || system_degenerate(s[kSumU], s[kSumV], s[kSumW]) ||
      system_degenerate(s[kSumUf], s[kSumVf], s[kSumWf])) {
    r.status = static_cast<int>(ShiftStatus::Degenerate);
    return r;
  }
  const double det = s[kSumU] * s[kSumW] - s[kSumV] * s[kSumV];
  r.dx = kx + (s[kSumP] * s[kSumV] - s[kSumQ] * s[kSumW]) / det;
  r.dy = ky + (s[kSumQ] * s[kSumV] - s[kSumP] * s[kSumU]) / det;
  r.status = static_cast<int>(ShiftStatus::Estimated);
  return r;
}

// ---- weights of the history frames -------------------------------------------------------------

// floor(x + 0.5): the integer part of a relative shift, the same on every compiler.
GAUSSLAB_HD int round_to_int(double x) {
  const double f = x + 0.5;
  const int i = static_cast<int>(f);
  return (f < 0.0 && static_cast<double>(i) != f) ? i - 1 : i;
}

// The exponents (a, b) of monomial m = 0..M(n)-1, by total degree then falling a:
// ex, ey, ex², ex·ey, ey², ex³, ...
GAUSSLAB_HD void monomial_exponents(int m, int& a, int& b) {
  int degree = 1;
  while (m >= degree + 1) {
    m -= degree + 1;
    ++degree;
  }
  a = degree - m;
  b = m;
}
GAUSSLAB_HD double monomial(double ex, double ey, int m) {
  int a = 0, b = 0;
  monomial_exponents(m, a, b);
  double value = 1.0;
  for (int i = 0; i < a; ++i) value *= ex;
  for (int i = 0; i < b; ++i) value *= ey;
  return value;
}

// Solves A·x = b in place for a symmetric positive definite m×m A (row-major, lower triangle
// used), x returned in b. False when a pivot is not positive.
GAUSSLAB_HD bool cholesky_solve(double* a, double* b, int m) {
  for (int j = 0; j < m; ++j) {
    double d = a[j * m + j];
    for (int k = 0; k < j; ++k) d -= a[j * m + k] * a[j * m + k];
    if (!(d > 0.0)) return false;
    d = sqrt(d);
    a[j * m + j] = d;
    for (int i = j + 1; i < m; ++i) {
      double s = a[i * m + j];
      for (int k = 0; k < j; ++k) s -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = s / d;
    }
  }
  for (int i = 0; i < m; ++i) {  // L·y = b
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= a[i * m + k] * b[k];
    b[i] = s / a[i * m + i];
  }
  for (int i = m - 1; i >= 0; --i) {  // Lᵀ·x = y
    double s = b[i];
    for (int k = i + 1; k < m; ++k) s -= a[k * m + i] * b[k];
    b[i] = s / a[i * m + i];
  }
  return true;
}

// The whitening of one frame: weight c and integer offset k of each history position (position j
// is frame t-1-j), whether it takes part (a usable shift in the frame's segment), and the region
// of the frame where every position that takes part reads inside its frame (the residual's
// statistics are taken there). A frame with skip != 0 is not whitened (its output is zero).
struct WhiteningWeights {
  int count = 0;  // history positions
  int skip = 1;
  int source = -1;  // GPU backward job: the frame whitened is history position `source` (-1: the current one)
  int used_count = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the region where every used frame reads inside
  float c[kMaxHistory] = {};
  int kx[kMaxHistory] = {};
  int ky[kMaxHistory] = {};
  int used[kMaxHistory] = {};
};

// Per history position: the integer offset and the residual e of its shift relative to the
// current frame, and whether it takes part (an estimated shift or the reference, in the current
// frame's segment).
struct HistoryShift {
  int used = 0;
  int kx = 0, ky = 0;
  double ex = 0, ey = 0;
};
GAUSSLAB_HD bool shift_usable(const ShiftRecord& r) {
  return r.status == static_cast<int>(ShiftStatus::Estimated) || r.status == static_cast<int>(ShiftStatus::Reference);
}
GAUSSLAB_HD HistoryShift history_shift(const ShiftRecord& frame, const ShiftRecord& current) {
  HistoryShift h;
  if (!shift_usable(frame) || !shift_usable(current) || frame.segment != current.segment) return h;
  const double rx = frame.dx - current.dx, ry = frame.dy - current.dy;
  h.used = 1;
  h.kx = round_to_int(rx);
  h.ky = round_to_int(ry);
  h.ex = rx - h.kx;
  h.ey = ry - h.ky;
  return h;
}

// The offsets and the region of the weights from the history's shifts (the c are set apart).
GAUSSLAB_HD void weight_offsets(const HistoryShift* h, int count, int width, int height, WhiteningWeights& out) {
  out.count = count;
  out.skip = 1;
  out.used_count = 0;
  out.x0 = 0;
  out.y0 = 0;
  out.x1 = width;
  out.y1 = height;
  for (int k = 0; k < count; ++k) {
    out.c[k] = 0.0f;
    out.kx[k] = h[k].kx;
    out.ky[k] = h[k].ky;
    out.used[k] = h[k].used;
    if (!h[k].used) continue;
    ++out.used_count;
    // x + kx inside [0, width) for every x of the region.
    if (-h[k].kx > out.x0) out.x0 = -h[k].kx;
    if (width - h[k].kx < out.x1) out.x1 = width - h[k].kx;
    if (-h[k].ky > out.y0) out.y0 = -h[k].ky;
    if (height - h[k].ky < out.y1) out.y1 = height - h[k].ky;
  }
  if (out.x1 < out.x0) out.x1 = out.x0;
  if (out.y1 < out.y0) out.y1 = out.y0;
}

// Entry (i, j) of the moment system γ·E + B·Bᵀ (B: moments × used history frames) and entry i of
// its right-hand side B·1; one function each so that the GPU computes entries in parallel with
// the CPU's arithmetic.
GAUSSLAB_HD double moment_gram(const HistoryShift* h, int count, int i, int j, double gamma) {
  double s = i == j ? gamma : 0.0;
  for (int k = 0; k < count; ++k)
    if (h[k].used) s += monomial(h[k].ex, h[k].ey, i) * monomial(h[k].ex, h[k].ey, j);
  return s;
}
GAUSSLAB_HD double moment_sum(const HistoryShift* h, int count, int i) {
  double s = 0.0;
  for (int k = 0; k < count; ++k)
    if (h[k].used) s += monomial(h[k].ex, h[k].ey, i);
  return s;
}
// The unnormalised weight q = 1 - Σ λ_m·φ_m(e): a polynomial of degree n in the residual shift.
GAUSSLAB_HD double raw_weight(const HistoryShift& h, const double* lambda, int moments) {
  if (!h.used) return 0.0;
  double q = 1.0;
  for (int m = 0; m < moments; ++m) q -= lambda[m] * monomial(h.ex, h.ey, m);
  return q;
}

// The whole weight computation, serially (the CPU path; the GPU kernel spreads the same steps
// over threads). `scratch` holds kMaxMoments² + kMaxMoments doubles. The offsets and the region
// are those of weight_offsets.
GAUSSLAB_HD void compute_weights(const HistoryShift* h, int count, int degree, double gamma, int width, int height,
                                 WhiteningWeights& out, double* scratch) {
  weight_offsets(h, count, width, height, out);
  if (out.used_count == 0) return;
  const int m = moment_count(degree);
  double* gram = scratch;
  double* lambda = scratch + kMaxMoments * kMaxMoments;
  for (int i = 0; i < m; ++i) {
    lambda[i] = moment_sum(h, count, i);
    for (int j = 0; j < m; ++j) gram[i * m + j] = moment_gram(h, count, i, j, gamma);
  }
  if (m > 0 && !cholesky_solve(gram, lambda, m)) return;
  double total = 0.0;
  for (int k = 0; k < count; ++k) total += raw_weight(h[k], lambda, m);
  if (!(total > 0.0)) return;
  for (int k = 0; k < count; ++k) out.c[k] = static_cast<float>(raw_weight(h[k], lambda, m) / total);
  out.skip = 0;
}

// ---- whitening ---------------------------------------------------------------------------------

// The whitened values at (x, y0), (x, y0 + step), ... (Rows of them): the frame minus the
// prediction Σ c_j · history_j(x + k_j). Where a history read falls outside its frame or on a
// pixel without a value (NaN: a float frame's blank), the weights, made for the whole set, no longer hold (they
// need not be positive, and they leave out no frame); there the prediction is the plain mean of
// the reads that are present (zero when none is). The history frames share the current frame's
// size and stride. Rows that fall below the frame are computed from the last row and must not be
// stored. Each value is summed over j in order, whatever Rows is; the Rows reads of one history
// frame are independent, so a GPU thread keeps Rows loads in flight. Acc is float on the GPU
// (fused multiply-adds); the CPU reference uses double.
template <class Acc, int Rows>
GAUSSLAB_HD void whiten_rows(const GreyView& current, const float* const* history, const WhiteningWeights& wts,
                             int x, int y0, int step, Acc* out) {
  Acc prediction[Rows], present[Rows];
  int count[Rows];
  bool partial[Rows];
  int row[Rows];
  for (int r = 0; r < Rows; ++r) {
    prediction[r] = 0;
    present[r] = 0;
    count[r] = 0;
    partial[r] = false;
    const int y = y0 + r * step;
    row[r] = y < current.height ? y : current.height - 1;
  }
  for (int j = 0; j < wts.count; ++j) {
    if (wts.c[j] == 0.0f) continue;  // a frame left out: skip its reads
    const GreyView frame{history[j], current.width, current.height, current.stride};
    const Acc c = static_cast<Acc>(wts.c[j]);
    const int xs = x + wts.kx[j];
    const bool column_inside = xs >= 0 && xs < current.width;
    for (int r = 0; r < Rows; ++r) {
      const int ys = row[r] + wts.ky[j];
      const bool inside = column_inside && ys >= 0 && ys < current.height;
      const float v = inside ? frame.at(xs, ys) : 0.0f;
      if (inside && v == v) {  // inside its frame, and a value (not NaN)
        prediction[r] += c * static_cast<Acc>(v);
        present[r] += static_cast<Acc>(v);
        ++count[r];
      } else {
        partial[r] = true;
      }
    }
  }
  for (int r = 0; r < Rows; ++r) {
    const Acc f = static_cast<Acc>(current.at(x, row[r]));
    if (!partial[r]) out[r] = f - prediction[r];
    else out[r] = count[r] > 0 ? f - present[r] / static_cast<Acc>(count[r]) : Acc(0);
  }
}

template <class Acc>
GAUSSLAB_HD Acc whiten_pixel(const GreyView& current, const float* const* history, const WhiteningWeights& wts,
                             int x, int y) {
  Acc value;
  whiten_rows<Acc, 1>(current, history, wts, x, y, 1, &value);
  return value;
}

}  // namespace gausslab::seq
