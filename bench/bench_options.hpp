#pragma once
// gausslab-bench's command line. The defaults reproduce the published comparison: float32
// single-channel images of 1024², 2048², 3072² and 4096², 7×7 and 41×41 kernels.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_batch.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

// How many runs a configuration gets, and when a slow one is skipped.
struct TimingPolicy {
  // GPU: CUDA events around method.run. Warm-up runs first (only one when a run is slow), then
  // clamp(target_seconds / time of one run, min_runs, max_runs) timed runs.
  int warmup_runs = 3;
  int min_runs = 5;
  int max_runs = 50;
  double target_seconds = 0.5;
  int end_to_end_runs = 3;  // upload + run + download, timed apart from the kernel-only runs
  // A GPU configuration whose time per run, predicted from the same method's previous
  // measurement in this sweep, exceeds this is skipped (the naive 2D kernel at large sigma); one
  // whose warm-up run took longer than this is timed once.
  double gpu_cap_ms = 250.0;

  // CPU: a steady clock around method.run, fewer runs.
  int cpu_min_runs = 1;
  int cpu_max_runs = 10;
  double cpu_target_seconds = 1.0;
  // A CPU configuration whose one run is estimated (from cpu_filter_cost and the measured rate)
  // to take longer than this is skipped.
  double cpu_cap_seconds = 5.0;

  // Once the whole run has taken this long, the remaining configurations are skipped (device time
  // is scarce; the default run with the sweep is expected to take 2 to 3 minutes on an H100).
  double budget_seconds = 480.0;
};

struct BenchOptions {
  std::vector<int> sizes = {1024, 2048, 3072, 4096};  // square images, side in pixels
  std::vector<int> kernels = {7, 41};                 // k×k: radius (k-1)/2, sigma radius/3
  std::vector<double> sigmas;                         // radius from --truncate as SciPy does
  std::vector<PixelFormat> formats = {PixelFormat::F32, PixelFormat::Rgba8};
  std::vector<std::string> methods;  // empty: every registered method
  BorderMode border = BorderMode::Reflect;
  double truncate = 4.0;

  // The crossover sweep: time against sigma on RGBA8 images of each sweep size, then time against
  // the pixel count at the scaling sigmas for the scaling methods (those among --methods).
  bool sigma_sweep = false;
  std::vector<int> sweep_sizes = {4096, 8192};
  std::vector<double> sweep_sigmas = {0.5, 1, 2, 4, 8, 16, 32, 64};
  std::vector<double> scaling_sigmas = {2, 32};
  std::vector<int> scaling_sizes = {1024, 2048, 4096, 8192};
  std::vector<std::string> scaling_methods = {"auto", "separable_fused", "multires"};

  // --codecs FILE,...: the image decode/encode rates on one core instead of the methods.
  std::vector<std::string> codec_images;
  // --sequence: the image-sequence benchmark (shift estimation and whitening) instead of the methods.
  bool sequence = false;
  std::vector<std::pair<int, int>> sequence_sizes = {{512, 512}, {3648, 2736}};
  int sequence_history = 20;
  std::vector<std::string> sequence_backends = {"gpu", "cpu"};

  // Sections beyond the published comparison (issue 13's techniques), each its own table.
  bool main_section = true;  // false (--no-main): only the sections asked for
  bool signals = false;      // --signals: 1D signals, every GPU method that filters along x only
  std::vector<int> signal_log2_lengths = {16, 18, 20, 22, 24, 26, 28};
  std::vector<int> signal_radii = {3, 20, 64};
  bool lut = false;          // --lut: lut_2d against naive_2d and shared_2d, RGBA8
  std::vector<int> lut_radii = {1, 2, 3, 4, 6, 8};
  bool unrolled = false;     // --unrolled: the compile-time small-radius kernels against the run-time loop
  std::vector<int> unrolled_kernels = {3, 5, 7};
  bool pooling = false;      // --pooling: 2×2 pooling fused into the last pass against a separate kernel
  int technique_size = 4096; // the image side of --lut, --unrolled and --pooling

  std::string out_dir = "gausslab-bench-results";
  bool overwrite = false;
  bool quick = false;
  bool plot = true;  // run bench/plot_results.py at the end when Python with matplotlib is there
  TimingPolicy timing;
  bool help = false;

  BatchBenchOptions batch;  // --batch: the end-to-end batch workload instead of the kernel sweep
  // --make-image WxH PATH: write a noise test image and stop.
  int make_image_width = 0, make_image_height = 0;
  std::string make_image_path;
};

// Throws UsageError naming the flag, the value and what is allowed.
BenchOptions parse_bench_options(int argc, const char* const* argv);

// True when `flag` chooses a run itself (--batch, ...) or is in the table of where each flag
// applies (a flag the chosen run would ignore is refused); a test holds every flag of the help
// text to it, so that a new flag cannot skip the table.
bool bench_flag_has_scope(std::string_view flag);

// The --help text; method_ids lists the registered methods.
std::string bench_usage(const std::string& method_ids);

// The radius and sigma of a k×k kernel as the papers use it: radius (k-1)/2, sigma radius/3.
int kernel_radius(int kernel_size);
double kernel_sigma(int kernel_size);

}  // namespace gausslab
