#include "gausslab/core/sequence_cpu.hpp"

#include <omp.h>

#include <cmath>

namespace gausslab::seq {

void raw_profiles(const GreyView& frame, std::vector<double>& columns, std::vector<double>& rows) {
  const int w = frame.width, h = frame.height, t = kProjectionTile;
  columns.assign(w, 0.0);
  rows.assign(h, 0.0);
  // Tiles are added in tile order, as the GPU's profile kernel does.
#pragma omp parallel for schedule(static)
  for (int x = 0; x < w; ++x) {
    double s = 0.0;
    for (int y0 = 0; y0 < h; y0 += t) s += column_partial(frame, x, y0, y0 + t < h ? y0 + t : h);
    columns[x] = s / h;
  }
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y) {
    double s = 0.0;
    for (int x0 = 0; x0 < w; x0 += t) s += row_partial(frame, y, x0, x0 + t < w ? x0 + t : w);
    rows[y] = s / w;
  }
}

Profiles frame_profiles(const GreyView& frame) {
  std::vector<double> columns, rows;
  raw_profiles(frame, columns, rows);
  Profiles p;
  p.columns.resize(columns.size());
  p.rows.resize(rows.size());
  for (int i = 0; i < static_cast<int>(columns.size()); ++i)
    p.columns[i] = high_pass(columns.data(), static_cast<int>(columns.size()), i);
  for (int i = 0; i < static_cast<int>(rows.size()); ++i)
    p.rows[i] = high_pass(rows.data(), static_cast<int>(rows.size()), i);
  return p;
}

namespace {
// The best lag of [lo, hi] by lag_better (a strict order: the scan order does not matter).
int best_lag(const std::vector<double>& frame, const std::vector<double>& reference, const LagWindow& window) {
  const int n = static_cast<int>(frame.size());
  int best = window.lo;
  double best_mismatch = profile_mismatch(frame.data(), reference.data(), n, best);
  for (int lag = window.lo + 1; lag <= window.hi; ++lag) {
    const double m = profile_mismatch(frame.data(), reference.data(), n, lag);
    if (lag_better(m, lag, best_mismatch, best)) {
      best = lag;
      best_mismatch = m;
    }
  }
  return best;
}
}  // namespace

Offset integer_offset(const Profiles& frame, const Profiles& reference, int centre_x, int centre_y, int radius) {
  const LagWindow wx = lag_window(static_cast<int>(frame.columns.size()), centre_x, radius);
  const LagWindow wy = lag_window(static_cast<int>(frame.rows.size()), centre_y, radius);
  Offset o;
  o.kx = best_lag(frame.columns, reference.columns, wx);
  o.ky = best_lag(frame.rows, reference.rows, wy);
  o.at_edge = (wx.hi > wx.lo && (o.kx == wx.lo || o.kx == wx.hi)) || (wy.hi > wy.lo && (o.ky == wy.lo || o.ky == wy.hi));
  return o;
}

CoarseBuffers coarse_image(const GreyView& frame, const CoarseGeometry& g) {
  // Block sums as the projection kernel takes them from its tile: row sums, then their sum.
  std::vector<float> blocks(static_cast<std::size_t>(g.blocks_x) * g.blocks_y);
#pragma omp parallel for schedule(static)
  for (int by = 0; by < g.blocks_y; ++by) {
    std::vector<float> row_sums(g.block);
    for (int bx = 0; bx < g.blocks_x; ++bx) {
      for (int i = 0; i < g.block; ++i) row_sums[i] = block_row_sum(frame, by * g.block + i, bx * g.block, g.block);
      blocks[static_cast<std::size_t>(by) * g.blocks_x + bx] = block_sum_of_rows(row_sums.data(), g.block, 1);
    }
  }
  std::vector<double> means(static_cast<std::size_t>(g.pixels()));
  for (int cy = 0; cy < g.height; ++cy)
    for (int cx = 0; cx < g.width; ++cx) means[cy * g.width + cx] = coarse_mean(blocks.data(), g, cx, cy);
  CoarseBuffers out;
  prepare_coarse(means, g.width, g.height, out);
  return out;
}

void prepare_coarse(const std::vector<double>& means, int width, int height, CoarseBuffers& out) {
  const int n = width * height;
  std::vector<double> v(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) v[y * width + x] = coarse_high_pass(means.data(), width, height, x, y);
  // Centre, measure, clip and measure again: the bright stars no longer decide the match alone.
  auto mean_of = [&] { return ordered_sum(n, [&](int i) { return v[i]; }) / n; };
  auto rms_of = [&] { return std::sqrt(ordered_sum(n, [&](int i) { return mul_rn(v[i], v[i]); }) / n); };
  const double m0 = mean_of();
  for (double& x : v) x -= m0;
  double rms = rms_of();
  for (int round = 0; round < kCoarseClipRounds; ++round) {
    for (double& x : v) x = clip(x, mul_rn(kCoarseClip, rms));
    const double m = mean_of();
    for (double& x : v) x -= m;
    rms = rms_of();
  }
  for (double& x : v) x = clip(x, mul_rn(kCoarseClip, rms));
  out.values = std::move(v);
  out.sat.assign(static_cast<std::size_t>(width + 1) * (height + 1), 0.0);
  out.sat2.assign(out.sat.size(), 0.0);
  for (int y = 0; y < height; ++y) summed_area_row(out.values.data(), width, y, out.sat.data(), out.sat2.data());
  for (int x = 0; x <= width; ++x) summed_area_column(width, height, x, out.sat.data(), out.sat2.data());
}

std::vector<double> coarse_scores(const CoarseImage& frame, const CoarseImage& reference, const CoarseGeometry& g) {
  std::vector<double> scores(g.lag_count());
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < g.lag_count(); ++i) {
    int lx = 0, ly = 0;
    lag_of(g, i, lx, ly);
    scores[i] = coarse_score(frame, reference, g.width, g.height, lx, ly);
  }
  return scores;
}

CoarseMatch best_coarse_match(const std::vector<double>& scores, const CoarseGeometry& g) {
  const int n = static_cast<int>(scores.size());
  int peak = 0;
  for (int i = 1; i < n; ++i)
    if (coarse_better(scores[i], i, scores[peak], peak, g)) peak = i;
  const double others = ordered_sum(n, [&](int i) { return near_peak(g, i, peak) ? 0.0 : 1.0; });
  const double sum = ordered_sum(n, [&](int i) { return near_peak(g, i, peak) ? 0.0 : scores[i]; });
  const double sum2 = ordered_sum(n, [&](int i) { return near_peak(g, i, peak) ? 0.0 : mul_rn(scores[i], scores[i]); });
  return coarse_match_from(scores.data(), g, peak, others, sum, sum2);
}

void local_mean_image(const GreyView& src, float* dst, std::ptrdiff_t dst_stride) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x) dst[y * dst_stride + x] = local_mean(src, x, y);
}

ShiftSums fine_sums(const GreyView& r, const GreyView& f, int kx, int ky) {
  const Region region = fine_region(r.width, r.height, kx, ky);
  ShiftSums total;
  if (region.count() == 0) return total;
  const int rows = region.y1 - region.y0;
  std::vector<ShiftSums> per_row(rows);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < rows; ++i)
    for (int x = region.x0; x < region.x1; ++x) add_shift_terms(r, f, x, region.y0 + i, kx, ky, per_row[i].s);
  for (const ShiftSums& row : per_row)
    for (int k = 0; k < kSumCount; ++k) total.s[k] += row.s[k];
  return total;
}

void whiten_frame(const GreyView& current, const float* const* history, const WhiteningWeights& weights, float* out,
                  std::ptrdiff_t out_stride, ResidualStats* stats) {
  const Region region = stats_region(weights, current.width, current.height);
  const int step = stats_row_step(current.width, current.height);
  if (stats) *stats = ResidualStats{};
#pragma omp parallel
  {
    ResidualStats mine{};
#pragma omp for schedule(static)
    for (int y = 0; y < current.height; ++y)
      for (int x = 0; x < current.width; ++x) {
        const float w = weights.skip ? 0.0f : static_cast<float>(whiten_pixel<double>(current, history, weights, x, y));
        out[y * out_stride + x] = w;
        if (stats && !weights.skip && stats_pixel(region, step, x, y)) {
          ++mine.histogram[residual_bin(w)];
          ++mine.count;
        }
      }
    if (stats) {
#pragma omp critical
      {
        for (int b = 0; b < kResidualBins; ++b) stats->histogram[b] += mine.histogram[b];
        stats->count += mine.count;
      }
    }
  }
}

WhiteningWeights history_weights(const ShiftRecord& current, const ShiftRecord* history, int count, int degree,
                                 double gamma, int width, int height) {
  HistoryShift shifts[kMaxHistory];
  for (int j = 0; j < count; ++j) shifts[j] = history_shift(history[j], current);
  double scratch[kMaxMoments * kMaxMoments + kMaxMoments];
  WhiteningWeights weights;
  compute_weights(shifts, count, degree, gamma, width, height, weights, scratch);
  return weights;
}

std::vector<double> correlation_matrix(const GreyView& current, const float* const* history,
                                       const WhiteningWeights& weights, const int* used, int n) {
  const Region region = stats_region(weights, current.width, current.height);
  const int step = stats_row_step(current.width, current.height);
  const int entries = triangle_size(n);
  std::vector<double> total(entries, 0.0);
  long long pixels = 0;
#pragma omp parallel
  {
    std::vector<double> mine(entries, 0.0);
    long long mine_pixels = 0;
    float d[kMaxHistory];
#pragma omp for schedule(static)
    for (int y = region.y0; y < region.y1; y += step)
      for (int x = region.x0; x < region.x1; ++x) {
        if (!prediction_errors(current, history, weights, used, n, x, y, d)) continue;
        ++mine_pixels;
        for (int i = 0, e = 0; i < n; ++i)
          for (int j = i; j < n; ++j, ++e) mine[e] += static_cast<double>(d[i]) * d[j];
      }
#pragma omp critical
    {
      for (int e = 0; e < entries; ++e) total[e] += mine[e];
      pixels += mine_pixels;
    }
  }
  if (pixels > 0)
    for (double& v : total) v /= static_cast<double>(pixels);
  return total;
}

bool apply_correlation_weights(const GreyView& current, const float* const* history, double gamma,
                               WhiteningWeights& weights) {
  int used[kMaxHistory];
  int n = 0;
  for (int j = 0; j < weights.count; ++j)
    if (weights.used[j]) used[n++] = j;
  for (int j = 0; j < weights.count; ++j) weights.c[j] = 0.0f;
  weights.skip = 1;
  if (n == 0) return false;
  const std::vector<double> d = correlation_matrix(current, history, weights, used, n);
  std::vector<double> scratch(kMaxHistory * kMaxHistory + kMaxHistory);
  if (!correlation_weights(d.data(), n, gamma, used, weights, scratch.data())) return false;
  weights.skip = 0;
  return true;
}

void remove_targets(float* frame, std::ptrdiff_t frame_stride, const float* whitened, std::ptrdiff_t whitened_stride,
                    int width, int height, float threshold, const float* const* history,
                    const WhiteningWeights& weights, bool median) {
  if (!(threshold > 0.0f)) return;
  // The cores first, from the frame as it is, then the replacements: no read sees a replaced pixel.
  std::vector<unsigned char> cores(static_cast<std::size_t>(width) * height);
  auto f = [&](int x, int y) { return frame[y * frame_stride + x]; };
  auto w = [&](int x, int y) { return whitened[y * whitened_stride + x]; };
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      cores[static_cast<std::size_t>(y) * width + x] = target_core(f, w, width, height, x, y, threshold);
  auto core = [&](int x, int y) { return cores[static_cast<std::size_t>(y) * width + x] != 0; };
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float v = whitened[y * whitened_stride + x];
      if (v > 0.0f && near_core(core, width, height, x, y)) {
        float& f = frame[y * frame_stride + x];
        f = median ? median_prediction(history, weights, width, height, frame_stride, x, y, f - v) : f - v;
      }
    }
}

}  // namespace gausslab::seq
