#include "gausslab/render/slicing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gausslab {

namespace {

// Tiles of `core` along a side of `size`: (core origin, owned start, owned length). The last core
// is moved back to end at the side's end (it overlaps its neighbour); each owns what is left.
std::vector<std::array<int, 3>> along(int size, int core) {
  std::vector<std::array<int, 3>> out;
  for (int start = 0; start < size; start += core) {
    const int origin = std::min(start, size - core);
    out.push_back({origin, start, std::min(core, size - start)});
  }
  return out;
}

}  // namespace

TilePlan plan_tiles(int width, int height, int halo, TileSize tile, bool core_only) {
  if (width < 1 || height < 1 || tile.width < 1 || tile.height < 1 || halo < 0)
    throw std::invalid_argument("plan_tiles: the image and the tile need positive sizes, the halo must not be negative");
  TilePlan plan;
  plan.width = width;
  plan.height = height;
  plan.tile = {std::min(tile.width, width), std::min(tile.height, height)};
  // Along a side the tile spans, the method's own border rule gives the halo: none is gathered
  // (a core-only method reads every side's halo from the gathered tile: it always gets one).
  plan.halo_x = plan.tile.width < width || core_only ? halo : 0;
  plan.halo_y = plan.tile.height < height || core_only ? halo : 0;
  plan.core_only = core_only;
  for (const auto& row : along(height, plan.tile.height))
    for (const auto& column : along(width, plan.tile.width))
      plan.tiles.push_back(Tile{column[0], row[0], column[1], row[1], column[2], row[2]});
  return plan;
}

TileSize tile_size_for_budget(int width, int height, int halo, double ms_per_pixel, double budget_ms,
                              bool core_only) {
  if (ms_per_pixel <= 0 || static_cast<double>(width) * height * ms_per_pixel <= budget_ms) return {width, height};
  const double pixels = budget_ms / ms_per_pixel;  // computed pixels a tile may have
  if (core_only) {
    // Only the core is computed: full-width bands of the budget's rows, or squares of it.
    const int rows = static_cast<int>(std::floor(pixels / width));
    if (rows >= kMinCore) return {width, std::min(rows, height)};
    const int side = std::max(kMinCore, static_cast<int>(std::floor(std::sqrt(pixels))));
    return {std::min(side, width), std::min(side, height)};
  }
  // Full-width bands: no halo along x.
  const int band_rows = static_cast<int>(std::floor(pixels / width)) - 2 * halo;
  const double band_area = band_rows >= kMinCore ? static_cast<double>(width) * std::min(band_rows, height) : 0;
  // Squares: a halo on all four sides.
  const int side = static_cast<int>(std::floor(std::sqrt(pixels))) - 2 * halo;
  const double square_area =
      side >= kMinCore ? static_cast<double>(std::min(side, width)) * std::min(side, height) : 0;
  // Bands while their halo costs at most twice their rows (fewer tiles, no halo along x).
  if (band_area > 0 && (band_rows >= halo || band_area >= square_area)) return {width, std::min(band_rows, height)};
  if (square_area > 0) return {std::min(side, width), std::min(side, height)};
  // The largest square whose tile, halo included, stays within kFallbackBudgets budgets: the halo may
  // then cost many times the core (the run takes longer), but no frame carries a long tile.
  const int capped = static_cast<int>(std::floor(std::sqrt(kFallbackBudgets * pixels))) - 2 * halo;
  const int fallback = std::max(kFallbackCore, capped);
  return {std::min(fallback, width), std::min(fallback, height)};
}

double window_cost(const std::string& method_id, int radius) {
  const double taps = 2.0 * radius + 1;
  const bool window_2d = method_id.size() >= 3 && method_id.compare(method_id.size() - 3, 3, "_2d") == 0;
  return window_2d ? taps * taps : taps;
}

void CostModel::learn(const std::string& method_id, int radius, double units, double ms, int launches) {
  if (!(units > 0) || !(ms >= 0) || launches < 1) return;
  timed_.insert({method_id, radius});
  Fit fit{kLaunchMs, std::max(0.0, ms - launches * kLaunchMs) / units};
  std::vector<Sample>& samples = samples_[method_id];
  const double per_launch = units / launches;
  for (auto other = samples.rbegin(); other != samples.rend(); ++other) {
    if (other->radius != radius) continue;
    const double other_per_launch = other->units / other->launches;
    if (std::max(per_launch, other_per_launch) < 1.5 * std::min(per_launch, other_per_launch)) continue;
    // ms = launches × fixed + units × rate, for both samples.
    const double det = launches * other->units - other->launches * units;
    const double fixed = (ms * other->units - other->ms * units) / det;
    const double rate = (launches * other->ms - other->launches * ms) / det;
    if (fixed >= kLaunchMs && rate > 0) fit = Fit{fixed, rate};
    break;  // the latest of another size only
  }
  fit_[method_id] = fit;
  samples.push_back(Sample{radius, launches, units, ms});
  if (samples.size() > kSamplesKept) samples.erase(samples.begin());
}

std::optional<double> CostModel::predict_ms(const std::string& method_id, double units, int launches) const {
  const auto found = fit_.find(method_id);
  if (found == fit_.end()) return std::nullopt;
  return launches * found->second.fixed_ms + found->second.rate * units;
}

std::optional<CostModel::Fit> CostModel::fit(const std::string& method_id) const {
  const auto found = fit_.find(method_id);
  if (found == fit_.end()) return std::nullopt;
  return found->second;
}

RunChoice choose_run(const CostModel& model, const std::string& method_id, bool band_exact, int width, int height,
                     int radius, double budget_ms, bool radius_timed, double tile_budget_ms, bool core_only) {
  if (!band_exact) return {};
  const double cost = window_cost(method_id, radius);
  const std::optional<double> whole = model.predict_ms(method_id, static_cast<double>(width) * height * cost);
  if (!whole || (!radius_timed && *whole > budget_ms / 4)) {
    // A picture no larger than a probe runs whole.
    if (width <= kProbeCore && height <= kProbeCore) return {};
    return {RunShape::Probe, {std::min(kProbeCore, width), std::min(kProbeCore, height)}};
  }
  if (*whole <= budget_ms) return {};
  const CostModel::Fit fit = *model.fit(method_id);
  const double ms_per_pixel = fit.rate * cost;
  const double tile_ms = tile_budget_ms > 0 ? std::min(tile_budget_ms, budget_ms) : budget_ms;
  // A tile's own work gets what its fixed cost leaves (at least a quarter of the budget).
  const TileSize tile =
      tile_size_for_budget(width, height, radius, ms_per_pixel, std::max(tile_ms - fit.fixed_ms, tile_ms / 4), core_only);
  if (tile.width >= width && tile.height >= height) return {};
  return {RunShape::Sliced, tile};
}

int tiles_this_frame(std::optional<double> tile_ms, int remaining, double budget_ms) {
  if (remaining <= 0) return 0;
  if (!tile_ms || *tile_ms <= 0) return 1;
  const int fit = static_cast<int>(std::floor(budget_ms / *tile_ms));
  return std::clamp(fit, 1, remaining);
}

bool tiles_wait_for_whole_runs(double whole_ms, std::optional<double> tiles_ms, double budget_ms, double limit_ms,
                               bool waited_last_frame) {
  if (waited_last_frame || !(whole_ms > 0)) return false;
  return whole_ms + (tiles_ms ? *tiles_ms : budget_ms) > limit_ms;
}

int bands_per_step(int bands, int rows_per_band, int taps) {
  if (bands < 1 || rows_per_band < 1 || taps < 1)
    throw std::invalid_argument("bands_per_step: bands, rows per band and taps must be at least 1");
  const long long band_taps = static_cast<long long>(rows_per_band) * taps;
  return static_cast<int>(std::clamp<long long>(kStepTapsPerOutput / band_taps, 1, bands));
}

}  // namespace gausslab
