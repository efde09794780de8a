#pragma once
// Text the viewer produces about a run: file names for saved results, the one-line summary of an
// automated run, and the rolling median of frame times. Pure: tested in tests/ui.
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gausslab/core/difference_stats.hpp"
#include "gausslab/core/filter_params.hpp"

namespace gausslab {

// "gausslab-separable_shared-sigma2.5-reflect-512x512.png" (truncate added when not 4).
std::string result_file_name(const std::string& method_id, const FilterParams& params, int width, int height);

// "filter (cpu)" → "filter_cpu": a stage name as a key=value key.
std::string stage_key(const std::string& name);

// Median of the latest `capacity` values.
class RollingMedian {
 public:
  explicit RollingMedian(std::size_t capacity = 120) : capacity_(capacity) {}
  void add(double value);
  double median() const;  // 0 when empty
  double latest() const { return values_.empty() ? 0.0 : values_.back(); }
  std::size_t size() const { return values_.size(); }
  void clear() { values_.clear(); }

 private:
  std::size_t capacity_;
  std::deque<double> values_;
};

struct RunSummary {
  std::string method_id;
  std::string compare;  // method B or "original"; empty when none
  std::string display;  // "a", "split", ...
  std::string path;     // "interop", "staging", "cpu"
  std::string path_reason;
  std::string renderer;
  std::string gl_context;  // how the GL context was made (GlInfo::platform)
  int width = 0, height = 0;
  FilterParams params;
  int frames = 0;
  double frame_ms = 0;  // median wall-clock time per frame
  std::vector<std::pair<std::string, double>> stages;  // median ms per stage, in frame order
  std::optional<DifferenceStats> accuracy;  // A against the exact Gaussian, whole image
  std::string accuracy_note;                // when there is no measurement: why
  std::optional<DifferenceStats> a_vs_b;    // when B is set
  std::string pooling;                      // "max2x2" / "avg2x2" when the results are pooled
  std::string map_ahead_problem;            // ResultPipeline::map_ahead_problem
  std::string omitted;                      // the parts of each frame left out (frame_omissions.hpp)
  std::string fallback;                     // a method that failed and what ran instead
  long long frames_drawn = 0;               // every frame, the timed ones and those waiting for results
  // A picture of more than 8 bits (picture_levels.hpp): its samples, and its own units in one level,
  // for the figures in those units too (max_error_own=, ab_max_abs_own=); 0 for an 8-bit picture.
  std::string picture_samples;
  double units_per_level = 0;
  // A's auto entry: the method it runs and why (auto_runs=cpu_openmp auto_why="no CUDA device: ...").
  std::string auto_runs, auto_why;
  // When A's stages (stages_ms and the names after it) are another run's than auto_runs names: the
  // live run on a picture's 8-bit copy, for a picture of more than 8 bits (stages_method=separable_int8).
  std::string stages_method;
  // B (or A) holds an image file (the reference slot): its samples (compare_samples="float32, 3 channels").
  std::string compare_samples;
  // The A, B and split views' display transform where not the default, with its range's values
  // (display_transform="exposure -1.0  range min-max [-0.6, 2.6]").
  std::string display_transform;
};

// The single line an automated run prints, e.g.
// gausslab: method=separable_shared path=interop renderer="NVIDIA H100 80GB HBM3/PCIe/SSE2"
//   size=3840x2160 sigma=2 ... frame_ms=1.62 stages_ms=1.58 map=0.02 rows=0.21 ... max_error=3.1e-05
//   max_error_8bit=0.5 psnr=128.4 ab_max_abs=1.2e-05 ab_mean_abs=3e-07 ab_psnr=150.2 ...
// Errors are unrounded (before the final rounding to 8 bits) over the whole image, in 8-bit levels;
// max_error_8bit is the 8-bit result's.
std::string summary_line(const RunSummary& summary);

}  // namespace gausslab
