#include "gausslab/core/sequence_cpu.hpp"

#include <omp.h>

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
int best_lag(const std::vector<double>& frame, const std::vector<double>& reference, int radius) {
  const int n = static_cast<int>(frame.size());
  int best = 0;
  double best_mismatch = profile_mismatch(frame.data(), reference.data(), n, 0);
  for (int lag = -radius; lag <= radius; ++lag) {
    const double m = profile_mismatch(frame.data(), reference.data(), n, lag);
    if (lag_better(m, lag, best_mismatch, best)) {
      best = lag;
      best_mismatch = m;
    }
  }
  return best;
}
}  // namespace

Offset coarse_offset(const Profiles& frame, const Profiles& reference, int search_radius) {
  Offset o;
  o.kx = best_lag(frame.columns, reference.columns,
                  search_radius_for(static_cast<int>(frame.columns.size()), search_radius));
  o.ky = best_lag(frame.rows, reference.rows, search_radius_for(static_cast<int>(frame.rows.size()), search_radius));
  return o;
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

ShiftRecord estimate_shift(const GreyView& reference_mean, const Profiles& reference_profiles, const GreyView& frame,
                           int search_radius) {
  const Offset k = coarse_offset(frame_profiles(frame), reference_profiles, search_radius);
  const ShiftSums sums = fine_sums(reference_mean, frame, k.kx, k.ky);
  return solve_shift(sums, fine_region(frame.width, frame.height, k.kx, k.ky).count(), k.kx, k.ky);
}

void whiten_frame(const GreyView& current, const float* const* history, const WhiteningWeights& weights, float* out,
                  std::ptrdiff_t out_stride) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < current.height; ++y)
    for (int x = 0; x < current.width; ++x)
      out[y * out_stride + x] =
          weights.skip ? 0.0f : static_cast<float>(whiten_pixel<double>(current, history, weights, x, y));
}

WhiteningWeights history_weights(const ShiftRecord& current, const ShiftRecord* history, int count, int degree,
                                 double gamma) {
  HistoryShift shifts[kMaxHistory];
  for (int j = 0; j < count; ++j) shifts[j] = history_shift(history[j], current);
  double scratch[kMaxMoments * kMaxMoments + kMaxMoments];
  WhiteningWeights weights;
  compute_weights(shifts, count, degree, gamma, weights, scratch);
  return weights;
}

}  // namespace gausslab::seq
