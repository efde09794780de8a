#pragma once
// The coarse shift search over the whole frame, written once for the CPU reference and the CUDA
// kernels (docs/sequence.md, "Coarse search"). The frame is reduced to a coarse image of at most
// kCoarsePixels pixels (s × s block means, s a power of two), high-passed, its outliers clipped,
// and every lag that keeps half of the coarse image in common is scored by the normalised cross
// correlation with the reference's coarse image, times the square root of the overlap (so that a
// small overlap's noisy correlation does not win). The best lag, interpolated to a fraction of a
// coarse pixel, is where the integer search at full resolution starts; its significance (the peak
// over the spread of the other lags' scores) says whether the frame matches the reference at all.
//
// Cost: one pass over the frame (fused with the projections on the GPU), then about
// 0.56 × kCoarsePixels² multiply-adds. Every sum is taken in a fixed order (lanes, then pairs), so
// that the CPU and the GPU score every lag bit for bit alike and take the same decisions.
#include "gausslab/core/sequence_maths.hpp"

namespace gausslab::seq {

inline constexpr int kCoarsePixels = 4096;      // the coarse image's largest pixel count
inline constexpr int kCoarseHighPass = 2;       // high-pass: minus the mean of the 5×5 around each pixel
inline constexpr double kCoarseClip = 3.0;      // outliers (bright stars) clipped at ±3 RMS ...
inline constexpr int kCoarseClipRounds = 2;     // ... after two rounds of clipping and re-measuring
inline constexpr int kCoarseLanes = 256;        // lanes of the ordered sums (the GPU block's threads)
inline constexpr int kPeakExclusion = 2;        // the 5×5 lags around the peak are not its background
inline constexpr double kDefaultMinMatch = 9.0; // --min-match: significance a match needs
inline constexpr int kMinCoarseOverlap = 16;    // coarse pixels a lag must have in common to be scored

// The coarse image's geometry for a width × height frame: the factor s (a power of two), the
// block of the first reduction (min(s, kProjectionTile): blocks never straddle a projection tile)
// and the coarse size (only whole s × s blocks count).
struct CoarseGeometry {
  int factor = 1, block = 1;
  int width = 0, height = 0;         // coarse pixels
  int blocks_x = 0, blocks_y = 0;    // the block sums' image
  int lags_x = 0, lags_y = 0;        // the lags searched: ±lags_x, ±lags_y coarse pixels
  GAUSSLAB_HD int pixels() const { return width * height; }
  GAUSSLAB_HD int lag_count() const { return (2 * lags_x + 1) * (2 * lags_y + 1); }
};
GAUSSLAB_HD CoarseGeometry coarse_geometry(int width, int height) {
  CoarseGeometry g;
  while (static_cast<long long>(width / g.factor) * (height / g.factor) > kCoarsePixels) g.factor *= 2;
  g.block = g.factor < kProjectionTile ? g.factor : kProjectionTile;
  g.width = width / g.factor;
  g.height = height / g.factor;
  g.blocks_x = width / g.block;
  g.blocks_y = height / g.block;
  g.lags_x = g.width / 2;
  g.lags_y = g.height / 2;
  return g;
}

// ---- the coarse image -------------------------------------------------------------------------

// The float sum of row y over the columns [x0, x0 + n), in order.
GAUSSLAB_HD float block_row_sum(const GreyView& v, int y, int x0, int n) {
  float s = 0.0f;
  for (int x = x0; x < x0 + n; ++x) s += v.at(x, y);
  return s;
}
// The sum of an n × n block from its n row sums (`stride` floats apart), added in order (float).
// The projection kernel takes its row sums from a tile in shared memory, with the same arithmetic.
GAUSSLAB_HD float block_sum_of_rows(const float* row_sums, int n, int stride) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += row_sums[i * stride];
  return s;
}

// The coarse pixel (cx, cy): the mean of its (factor / block)² block sums, added row by row in double.
GAUSSLAB_HD double coarse_mean(const float* block_sums, const CoarseGeometry& g, int cx, int cy) {
  const int k = g.factor / g.block;
  double s = 0.0;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i) s += block_sums[static_cast<long long>(cy * k + j) * g.blocks_x + cx * k + i];
  return s / (static_cast<double>(g.factor) * g.factor);
}

// The high-passed coarse value: minus the mean of the (2·kCoarseHighPass + 1)² around it (clamped).
GAUSSLAB_HD double coarse_high_pass(const double* mean, int w, int h, int x, int y) {
  double s = 0.0;
  for (int dy = -kCoarseHighPass; dy <= kCoarseHighPass; ++dy)
    for (int dx = -kCoarseHighPass; dx <= kCoarseHighPass; ++dx) {
      const int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
      const int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
      s = add_rn(s, mean[yy * w + xx]);
    }
  constexpr double kArea = (2 * kCoarseHighPass + 1) * (2 * kCoarseHighPass + 1);
  return mean[y * w + x] - s / kArea;
}

// A sum in a fixed order: kCoarseLanes interleaved partial sums (lane l takes items l, l + L, ...),
// then combined pairwise (lane i += lane i + L/2, then + L/4, ...): the GPU block's order.
template <class Item>
GAUSSLAB_HD double ordered_sum(int n, Item item) {
  double lanes[kCoarseLanes];
  for (int l = 0; l < kCoarseLanes; ++l) {
    double s = 0.0;
    for (int i = l; i < n; i += kCoarseLanes) s = add_rn(s, item(i));
    lanes[l] = s;
  }
  for (int offset = kCoarseLanes / 2; offset > 0; offset /= 2)
    for (int l = 0; l < offset; ++l) lanes[l] = add_rn(lanes[l], lanes[l + offset]);
  return lanes[0];
}

GAUSSLAB_HD double clip(double v, double limit) { return v > limit ? limit : (v < -limit ? -limit : v); }

// The summed-area tables of v and v² ((w + 1) × (h + 1), a zero first row and column): each row's
// running sum, then each column's, in double.
GAUSSLAB_HD void summed_area_row(const double* v, int w, int y, double* sat, double* sat2) {
  double s = 0.0, s2 = 0.0;
  const int stride = w + 1;
  sat[(y + 1) * stride] = 0.0;
  sat2[(y + 1) * stride] = 0.0;
  for (int x = 0; x < w; ++x) {
    s = add_rn(s, v[y * w + x]);
    s2 = add_rn(s2, mul_rn(v[y * w + x], v[y * w + x]));
    sat[(y + 1) * stride + x + 1] = s;
    sat2[(y + 1) * stride + x + 1] = s2;
  }
}
GAUSSLAB_HD void summed_area_column(int w, int h, int x, double* sat, double* sat2) {
  const int stride = w + 1;
  for (int y = 1; y <= h; ++y) {
    sat[y * stride + x] = add_rn(sat[y * stride + x], sat[(y - 1) * stride + x]);
    sat2[y * stride + x] = add_rn(sat2[y * stride + x], sat2[(y - 1) * stride + x]);
  }
}
// The sum over the rectangle [x0, x1) × [y0, y1) from a summed-area table.
GAUSSLAB_HD double rectangle_sum(const double* sat, int w, int x0, int y0, int x1, int y1) {
  const int stride = w + 1;
  return add_rn(add_rn(sat[y1 * stride + x1], -sat[y0 * stride + x1]),
                add_rn(sat[y0 * stride + x0], -sat[y1 * stride + x0]));
}

// A prepared coarse image: the clipped high-passed values and their summed-area tables.
struct CoarseImage {
  const double* values = nullptr;  // w × h
  const double* sat = nullptr;     // (w + 1) × (h + 1)
  const double* sat2 = nullptr;
};

// ---- scores of the lags ------------------------------------------------------------------------

// The lag with index i: (lx, ly) in [-lags_x, lags_x] × [-lags_y, lags_y], row by row.
GAUSSLAB_HD void lag_of(const CoarseGeometry& g, int i, int& lx, int& ly) {
  const int row = 2 * g.lags_x + 1;
  lx = i % row - g.lags_x;
  ly = i / row - g.lags_y;
}

// The overlap of the frame's coarse image f(x, y) with the reference's r(x - lx, y - ly), in the
// frame's coordinates.
GAUSSLAB_HD Region lag_overlap_2d(int w, int h, int lx, int ly) {
  Region o;
  o.x0 = lx > 0 ? lx : 0;
  o.x1 = lx > 0 ? w : w + lx;
  o.y0 = ly > 0 ? ly : 0;
  o.y1 = ly > 0 ? h : h + ly;
  return o;
}

// Lane `lane` of Σ f(x, y)·r(x - lx, y - ly) over the overlap, items in row-major order (item k
// goes to lane k mod kMismatchLanes): row by row, the lane's first column found from the running
// item count, with no division per item.
GAUSSLAB_HD double coarse_product_lane(const double* f, const double* r, int w, int h, int lx, int ly, int lane) {
  const Region o = lag_overlap_2d(w, h, lx, ly);
  double s = 0.0;
  if (o.count() == 0) return s;
  const int ow = o.x1 - o.x0;
  int first = 0;  // the item number of the row's first pixel
  for (int y = o.y0; y < o.y1; ++y, first += ow) {
    const int frame_row = y * w, reference_row = (y - ly) * w - lx;  // r's index of f's (x, y): x + reference_row
    for (int x = o.x0 + ((lane - first) & (kMismatchLanes - 1)); x < o.x1; x += kMismatchLanes)
      s = add_rn(s, mul_rn(f[frame_row + x], r[reference_row + x]));
  }
  return s;
}

// The lag's score from the product sum: the normalised cross correlation over the overlap, times
// the square root of the overlap's size; 0 where either side is flat or the overlap is too small.
GAUSSLAB_HD double coarse_score_from(double product, const CoarseImage& f, const CoarseImage& r, int w, int h, int lx,
                                     int ly) {
  const Region o = lag_overlap_2d(w, h, lx, ly);
  const long long n = o.count();
  if (n < kMinCoarseOverlap) return 0.0;
  const double sa = rectangle_sum(f.sat, w, o.x0, o.y0, o.x1, o.y1);
  const double saa = rectangle_sum(f.sat2, w, o.x0, o.y0, o.x1, o.y1);
  const double sb = rectangle_sum(r.sat, w, o.x0 - lx, o.y0 - ly, o.x1 - lx, o.y1 - ly);
  const double sbb = rectangle_sum(r.sat2, w, o.x0 - lx, o.y0 - ly, o.x1 - lx, o.y1 - ly);
  const double count = static_cast<double>(n);
  const double cov = add_rn(product, -mul_rn(sa, sb) / count);
  const double va = add_rn(saa, -mul_rn(sa, sa) / count), vb = add_rn(sbb, -mul_rn(sb, sb) / count);
  if (!(va > 0.0) || !(vb > 0.0)) return 0.0;  // a flat side (a flat frame is caught as degenerate)
  return cov / sqrt(mul_rn(va, vb)) * sqrt(count);
}

// The serial form (the CPU's): the warp's lanes, each item added to its lane in the same order as
// coarse_product_lane (one pass over the overlap, no division), combined as the warp's shuffles do.
GAUSSLAB_HD double coarse_score(const CoarseImage& f, const CoarseImage& r, int w, int h, int lx, int ly) {
  double lanes[kMismatchLanes] = {};
  const Region o = lag_overlap_2d(w, h, lx, ly);
  int k = 0;
  for (int y = o.y0; y < o.y1; ++y)
    for (int x = o.x0; x < o.x1; ++x, ++k) {
      double& lane = lanes[k % kMismatchLanes];
      lane = add_rn(lane, mul_rn(f.values[y * w + x], r.values[(y - ly) * w + (x - lx)]));
    }
  for (int offset = kMismatchLanes / 2; offset > 0; offset /= 2)
    for (int lane = 0; lane < offset; ++lane) lanes[lane] = add_rn(lanes[lane], lanes[lane + offset]);
  return coarse_score_from(lanes[0], f, r, w, h, lx, ly);
}

// ---- the best lag ------------------------------------------------------------------------------

// The better of two lags: the higher score, then the smaller |lx|, the smaller |ly|, the lower
// index: a strict order, so that any order of comparison finds the same lag.
GAUSSLAB_HD bool coarse_better(double score_a, int index_a, double score_b, int index_b, const CoarseGeometry& g) {
  if (score_a != score_b) return score_a > score_b;
  int ax = 0, ay = 0, bx = 0, by = 0;
  lag_of(g, index_a, ax, ay);
  lag_of(g, index_b, bx, by);
  ax = ax < 0 ? -ax : ax;
  bx = bx < 0 ? -bx : bx;
  ay = ay < 0 ? -ay : ay;
  by = by < 0 ? -by : by;
  if (ax != bx) return ax < bx;
  if (ay != by) return ay < by;
  return index_a < index_b;
}

// Whether lag i is one of the peak's neighbours (left out of the background statistics).
GAUSSLAB_HD bool near_peak(const CoarseGeometry& g, int i, int peak) {
  int lx = 0, ly = 0, px = 0, py = 0;
  lag_of(g, i, lx, ly);
  lag_of(g, peak, px, py);
  const int dx = lx - px, dy = ly - py;
  return dx >= -kPeakExclusion && dx <= kPeakExclusion && dy >= -kPeakExclusion && dy <= kPeakExclusion;
}

// The outcome of the coarse search against one reference.
struct CoarseMatch {
  int lag_x = 0, lag_y = 0;       // best lag, coarse pixels
  int centre_x = 0, centre_y = 0; // where the integer search starts, full-resolution px
  float significance = 0;         // (peak - mean) / deviation of the other lags' scores
  int at_edge = 0;                // the peak is on the border of the lags searched
};

// One axis's parabolic interpolation around the peak: the fraction of a lag in [-0.5, 0.5].
GAUSSLAB_HD double peak_fraction(double left, double centre, double right) {
  const double curvature = left - 2.0 * centre + right;
  if (!(curvature < 0.0)) return 0.0;
  const double f = 0.5 * (left - right) / curvature;
  return f > 0.5 ? 0.5 : (f < -0.5 ? -0.5 : f);
}

// The match from the peak's index and the statistics of the other lags (their count, sum and sum
// of squares, taken with ordered_sum over the lags not near_peak).
GAUSSLAB_HD CoarseMatch coarse_match_from(const double* scores, const CoarseGeometry& g, int peak, double others,
                                          double sum, double sum2) {
  CoarseMatch m;
  lag_of(g, peak, m.lag_x, m.lag_y);
  const double z = scores[peak];
  double significance = 0.0;
  if (others > 1.0) {
    const double mean = sum / others;
    const double variance = sum2 / others - mean * mean;
    if (variance > 0.0) significance = (z - mean) / sqrt(variance);
  }
  m.significance = static_cast<float>(significance);
  const int row = 2 * g.lags_x + 1;
  double fx = 0.0, fy = 0.0;
  if (m.lag_x > -g.lags_x && m.lag_x < g.lags_x) fx = peak_fraction(scores[peak - 1], z, scores[peak + 1]);
  if (m.lag_y > -g.lags_y && m.lag_y < g.lags_y) fy = peak_fraction(scores[peak - row], z, scores[peak + row]);
  m.centre_x = round_to_int(g.factor * (m.lag_x + fx));
  m.centre_y = round_to_int(g.factor * (m.lag_y + fy));
  m.at_edge = (g.lags_x > 0 && (m.lag_x == -g.lags_x || m.lag_x == g.lags_x)) ||
              (g.lags_y > 0 && (m.lag_y == -g.lags_y || m.lag_y == g.lags_y));
  return m;
}

// The integer search's radius around the coarse estimate: the user's, at least one coarse pixel.
GAUSSLAB_HD int refine_radius(int search_radius, const CoarseGeometry& g) {
  const int r = search_radius > g.factor ? search_radius : g.factor;
  return r < kMaxRefineRadius ? r : kMaxRefineRadius;
}

}  // namespace gausslab::seq
