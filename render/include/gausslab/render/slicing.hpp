#pragma once
// Slow GPU methods in slices (pure logic, no CUDA or GL; render/sliced_run.hpp runs the plans).
// A GPU run that would take longer than a frame's budget runs as tiles over several frames, each
// tile with a halo of `radius` pixels taken by the border rule (border_gather.hpp), so for the FIR
// window methods (MethodInfo::same_bytes_in_bands) the tiles together are the whole run's bytes.
//   TilePlan      equal-sized tiles (full-width row bands when a band fits the budget, else
//                 squares); the last tile of a row or column overlaps its neighbour so every tile has
//                 the same size (one prepared method instance), and each output pixel belongs to
//                 exactly one tile (its "own" rectangle).
//   CostModel     what a method's run costs, learned from CUDA event times of its finished runs and
//                 tiles: ms = launches × fixed + rate × units, units = computed pixels × window_cost.
//   choose_run    whole in the frame (predicted within the budget, or not band-exact), a probe tile
//                 (never measured yet, or not at this radius), or sliced with the tile size the
//                 budget allows.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gausslab {

struct TileSize {
  int width = 0, height = 0;
  friend bool operator==(const TileSize& a, const TileSize& b) { return a.width == b.width && a.height == b.height; }
};

struct Tile {
  int x = 0, y = 0;                          // the tile's core (TilePlan::tile) in image coordinates
  int own_x = 0, own_y = 0, own_w = 0, own_h = 0;  // the pixels it writes: inside the core, disjoint
};

struct TilePlan {
  int width = 0, height = 0;  // of the image
  TileSize tile;              // the core every tile computes and keeps
  int halo_x = 0, halo_y = 0; // pixels computed beyond the core on each side (0 along a side the tile spans)
  std::vector<Tile> tiles;    // row by row
  // The method computes only each tile's core, reading the gathered halo from memory (HaloReads;
  // MethodInfo::computes_core_from_halo); otherwise the whole gathered tile, halo included.
  bool core_only = false;

  // The gathered tile: the core with its halo (what the method is prepared for unless core_only).
  int input_width() const { return tile.width + 2 * halo_x; }
  int input_height() const { return tile.height + 2 * halo_y; }
  bool row_bands() const { return tile.width == width; }
  long long computed_pixels_per_tile() const {
    return core_only ? static_cast<long long>(tile.width) * tile.height
                     : static_cast<long long>(input_width()) * input_height();
  }
};

// Tiles of `tile` (clamped to the image) covering a width × height image with a halo of `halo`
// (none along a side the tile spans, unless core_only: a core-only method reads its halo from the
// gathered tile on every side). Throws std::invalid_argument for empty sizes or a negative halo.
TilePlan plan_tiles(int width, int height, int halo, TileSize tile, bool core_only = false);

// The tile a budget allows, for a method that costs ms_per_pixel per computed pixel: full-width row
// bands whose computed pixels (rows and halo) fit budget_ms, when the halo is at most their height;
// else the larger useful area of such bands and of squares that fit (halo on all four sides). When
// neither fits a core of kMinCore (a 2D window method at a large radius, where even a small core's
// halo is too much work), the largest squares whose tile takes at most kFallbackBudgets budgets, and
// no smaller than kFallbackCore: the run computes its halos many times over and takes longer, but a
// frame never waits for a long tile. (Squares of 2 × halo, as before, were 4.7 ms tiles for
// shared_2d at radius 128 on the H100, and the frames of that setting 8-13 ms.)
inline constexpr int kMinCore = 8;
inline constexpr int kFallbackCore = 32;
inline constexpr double kFallbackBudgets = 2.0;
// core_only: the method computes the core alone (TilePlan::core_only): the halo costs nothing.
TileSize tile_size_for_budget(int width, int height, int halo, double ms_per_pixel, double budget_ms,
                              bool core_only = false);

// Multiply-adds per output pixel, up to a constant: (2r+1)² for the 2D window methods (ids ending in
// "_2d": every output reads its whole window), 2r+1 for the others (two 1D passes, or 1D signals).
double window_cost(const std::string& method_id, int radius);

class CostModel {
 public:
  // The least fixed cost of a run or a tile (its launches); with a single size measured, all of it.
  static constexpr double kLaunchMs = 0.02;

  struct Fit {
    double fixed_ms = kLaunchMs;  // per run or tile: launches, the gather and the copy of a tile
    double rate = 0;              // ms per unit
  };

  // A finished run or tile step at `radius`: `launches` runs or tiles of `units` in all (computed
  // pixels × window_cost) took `ms` of GPU time. The latest measurement counts (a method's cost
  // changes with the GPU's clocks), fitted together with the latest one at the same radius and of
  // another size per launch (1.5× or more apart): two sizes give the fixed cost and the rate. With one
  // size, the rate takes all but kLaunchMs, and small tiles' fixed costs read as a high rate: a probe
  // of 256² made separable_texture's plan 841 tiles where a few bands do. (Across radii the window
  // cost is only roughly the work, so other radii are not fitted together.)
  void learn(const std::string& method_id, int radius, double units, double ms, int launches = 1);
  bool knows(const std::string& method_id) const { return fit_.count(method_id) > 0; }
  // A time of this method at this radius was learned; at other radii predict_ms extrapolates.
  bool timed_at(const std::string& method_id, int radius) const { return timed_.count({method_id, radius}) > 0; }
  // launches × fixed + rate × units; nullopt before the first measurement.
  std::optional<double> predict_ms(const std::string& method_id, double units, int launches = 1) const;
  std::optional<Fit> fit(const std::string& method_id) const;

 private:
  struct Sample {
    int radius, launches;
    double units, ms;
  };
  static constexpr std::size_t kSamplesKept = 8;
  std::map<std::string, Fit> fit_;
  std::map<std::string, std::vector<Sample>> samples_;  // the latest last, at most kSamplesKept
  std::set<std::pair<std::string, int>> timed_;          // (method, radius) pairs learned
};

// How a slot's GPU method runs.
enum class RunShape { Whole, Probe, Sliced };
struct RunChoice {
  RunShape shape = RunShape::Whole;
  TileSize tile;  // Probe and Sliced
};
// The probe for a method never measured: one square tile of this core per frame until its time is
// known (a core of 256 fills an H100 with blocks, so its time per pixel is the run's).
inline constexpr int kProbeCore = 256;
// band_exact: MethodInfo::same_bytes_in_bands (others always run whole, as before).
// radius_timed: the model has a time of this method at this radius (CostModel::timed_at). Otherwise
// its prediction is an
// extrapolation from other radii (off by 2-4x on the H100 after a jump from sigma 32 to 4), so a run
// predicted above a quarter of the budget is probed first, as a method never measured.
// tile_budget_ms: the GPU time of one tile when sliced (0: budget_ms). A run predicted within
// budget_ms runs whole; a slower one in tiles of tile_budget_ms, so that two slots slicing in the same
// frame can share one budget a tile each.
// core_only: the method computes a tile's core alone (MethodInfo::computes_core_from_halo).
RunChoice choose_run(const CostModel& model, const std::string& method_id, bool band_exact, int width, int height,
                     int radius, double budget_ms, bool radius_timed = true, double tile_budget_ms = 0,
                     bool core_only = false);
// Tiles to enqueue this frame: at least one, more while their predicted time stays within the budget.
int tiles_this_frame(std::optional<double> tile_ms, int remaining, double budget_ms);
// Whether this frame's tiles wait for the next frame: the frame also runs whole methods predicted
// to take whole_ms, and with the tiles (tiles_ms, nullopt when unknown: budget_ms) it would take
// longer than limit_ms. Never two frames in a row (waited_last_frame): a slot slicing beside a
// whole run in every frame still moves on every other frame.
bool tiles_wait_for_whole_runs(double whole_ms, std::optional<double> tiles_ms, double budget_ms, double limit_ms,
                               bool waited_last_frame);

// A core-only tile in steps (render/sliced_run.hpp): each step sums whole bands of kernel rows of the
// window (cuda/window_bands.hpp), at most kStepTapsPerOutput taps per output, at least one band, so
// that no block of a tile works longer than that, whatever the tile's size. (shared_2d at radius 128
// sums 257² = 66049 taps per output: 3.3-3.9 ms a tile on the H100 against a 2 ms budget; 16384
// taps are about 0.9 ms there.) Returns the bands per step for `bands` bands of rows_per_band
// kernel rows of `taps` taps; throws std::invalid_argument for sizes below 1.
inline constexpr long long kStepTapsPerOutput = 16384;
int bands_per_step(int bands, int rows_per_band, int taps);

}  // namespace gausslab
