#include "bench_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/statistics.hpp"

namespace gausslab {

std::string BenchCase::kernel_label() const {
  if (problem.params.custom_kernel()) return describe(problem.params.kernel);
  if (kernel_size > 0) return std::to_string(kernel_size) + "x" + std::to_string(kernel_size);
  char text[32];
  std::snprintf(text, sizeof text, "sigma %g", problem.params.sigma);
  return text;
}

std::string BenchCase::variant() const {
  if (pool != PoolMode::None) return std::string(to_string(pool)) + (fused_pool ? " fused" : " separate");
  if (looped) return "looped";
  if (method->create_looped) return "unrolled";  // this method's compile-time kernels where they apply
  return "";
}

std::vector<const MethodEntry*> select_methods(const std::vector<std::string>& ids) {
  std::vector<const MethodEntry*> methods;
  if (ids.empty()) {
    for (const MethodEntry& entry : method_registry()) methods.push_back(&entry);
    return methods;
  }
  for (const std::string& id : ids) {
    const MethodEntry* entry = find_method(id);
    if (!entry) throw UsageError("--methods: unknown method '" + id + "'; use some of: " + method_id_list());
    if (std::find(methods.begin(), methods.end(), entry) == methods.end()) methods.push_back(entry);
  }
  return methods;
}

std::vector<BenchCase> plan_cases(const BenchOptions& options, const std::vector<const MethodEntry*>& methods) {
  std::vector<BenchCase> cases;
  auto add_for_all_methods = [&](const char* section, PixelFormat format, int side, const FilterParams& params,
                                 int kernel_size) {
    for (const MethodEntry* method : methods)
      cases.push_back({section, method, FilterProblem{side, side, format, params}, kernel_size});
  };

  if (options.main_section) {
    for (PixelFormat format : options.formats)
      for (int side : options.sizes) {
        for (int k : options.kernels) {
          FilterParams params;
          params.border = options.border;
          params.fixed_radius = kernel_radius(k);
          params.sigma = kernel_sigma(k);
          add_for_all_methods(kMainSection, format, side, params, k);
        }
        for (double sigma : options.sigmas) {
          FilterParams params;
          params.border = options.border;
          params.sigma = sigma;
          params.truncate = options.truncate;
          add_for_all_methods(kMainSection, format, side, params, 0);
        }
      }
  }

  if (options.signals) {
    // Every GPU method that filters along x only, on 1×N float32 signals, sigma = radius / 3.
    for (int log2_length : options.signal_log2_lengths)
      for (int radius : options.signal_radii)
        for (const MethodEntry* method : methods) {
          if (method->info.backend != Backend::Cuda || !method->info.filters_along_x_only) continue;
          FilterParams params;
          params.border = options.border;
          params.fixed_radius = radius;
          params.sigma = std::max(kMinSigma, radius / 3.0);
          params.axes = FilterAxes::RowsOnly;
          cases.push_back({kSignalsSection, method, FilterProblem{1 << log2_length, 1, PixelFormat::F32, params}, 0});
        }
  }
  // The 2D techniques on one image of technique_size²: k×k kernels, sigma = radius / 3.
  auto technique_params = [&](int radius) {
    FilterParams params;
    params.border = options.border;
    params.fixed_radius = radius;
    params.sigma = std::max(kMinSigma, radius / 3.0);
    return params;
  };
  const int side = options.technique_size;
  auto selected = [&](const char* id) -> const MethodEntry* {
    for (const MethodEntry* method : methods)
      if (method->info.id == id) return method;
    return nullptr;
  };
  if (options.lut)
    for (int radius : options.lut_radii)
      for (const char* id : {"lut_2d", "naive_2d", "shared_2d"})
        if (const MethodEntry* method = selected(id))
          cases.push_back({kLutSection, method, FilterProblem{side, side, PixelFormat::Rgba8, technique_params(radius)},
                           2 * radius + 1});
  if (options.unrolled)
    for (PixelFormat format : options.formats)
      for (int k : options.unrolled_kernels)
        for (const MethodEntry* method : methods) {
          if (!method->create_looped) continue;
          const FilterProblem problem{side, side, format, technique_params(kernel_radius(k))};
          for (bool looped : {false, true}) {
            BenchCase config{kUnrolledSection, method, problem, k};
            config.looped = looped;
            cases.push_back(config);
          }
        }
  if (options.pooling)
    for (PixelFormat format : options.formats)
      for (const MethodEntry* method : methods) {
        if (method->info.backend != Backend::Cuda || !method->fuses_pooling) continue;
        const FilterProblem problem{side, side, format, technique_params(3)};
        cases.push_back({kPoolingSection, method, problem, 7});  // the blur alone, for reference
        for (PoolMode pool : {PoolMode::Max2x2, PoolMode::Avg2x2})
          for (bool fused : {true, false}) {
            BenchCase config{kPoolingSection, method, problem, 7};
            config.pool = pool;
            config.fused_pool = fused;
            cases.push_back(config);
          }
      }

  if (options.custom_kernels) {
    // Issue 37's cases: a 41-tap separable pair (a box along x, a Gaussian-like mask along y) and the
    // original BMP system's kind of 5×5 integer table (normalised, floor, zero border), beside the
    // Gaussian of radius 20 (the pair's reach) and 2 (the table's): what a custom kernel costs over it.
    FilterParams pair = technique_params(20);
    pair.kernel = FilterKernel::pair(std::vector<double>(41, 1.0 / 41), gaussian_weights(20.0 / 3.0, 20));
    FilterParams table = technique_params(2);
    table.kernel = FilterKernel::matrix_2d(5, 5, {1, 4, 7, 4, 1, 4, 16, 26, 16, 4, 7, 26, 41, 26, 7, 4, 16, 26, 16, 4,
                                                  1, 4, 7, 4, 1});
    table.kernel.normalize = true;
    table.border = BorderMode::Constant;
    table.rounding = IntegerRounding::Floor;
    for (PixelFormat format : options.formats)
      for (const FilterParams& params : {technique_params(20), pair, technique_params(2), table})
        for (const MethodEntry* method : methods) {
          // The GPU methods that take custom kernels (the others refuse them; the CPU's seconds at 4096²
          // belong to the main comparison).
          if (method->info.kernels == KernelSupport::GaussianOnly || method->info.backend != Backend::Cuda) continue;
          // The table is not rank 1: a separable method would refuse it (and its Gaussian row is moot).
          if (params.radius() == 2 && method->info.kernels != KernelSupport::Any) continue;
          cases.push_back({kCustomSection, method, FilterProblem{side, side, format, params},
                           2 * params.radius() + 1});
        }
  }

  if (!options.sigma_sweep) return cases;
  auto sweep_params = [&](double sigma) {
    FilterParams params;
    params.border = options.border;
    params.sigma = sigma;
    params.truncate = options.truncate;
    return params;
  };
  for (PixelFormat format : options.sweep_formats)
    for (int side : options.sweep_sizes)
      for (double sigma : options.sweep_sigmas)
        add_for_all_methods(kSweepSection, format, side, sweep_params(sigma), 0);
  for (double sigma : options.scaling_sigmas)
    for (int side : options.scaling_sizes)
      for (const MethodEntry* method : methods)
        if (std::find(options.scaling_methods.begin(), options.scaling_methods.end(), method->info.id) !=
            options.scaling_methods.end())
          cases.push_back({kScalingSection, method, FilterProblem{side, side, PixelFormat::Rgba8, sweep_params(sigma)}, 0});
  return cases;
}

int timed_run_count(double run_seconds, int min_runs, int max_runs, double target_seconds) {
  if (!(run_seconds > 0)) return max_runs;  // too fast to measure once: as many as allowed
  const double fitting = std::floor(target_seconds / run_seconds);
  if (fitting >= max_runs) return max_runs;
  return std::max(min_runs, static_cast<int>(fitting));
}

TimeStats time_stats(std::vector<double> samples) {
  TimeStats stats;
  stats.count = static_cast<int>(samples.size());
  if (samples.empty()) {
    stats.median = stats.min = stats.p90 = std::numeric_limits<double>::quiet_NaN();
    return stats;
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  stats.min = samples.front();
  stats.median = median(samples);
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  stats.p90 = samples[std::max<std::size_t>(rank, 1) - 1];
  return stats;
}

double predict_run_ms(double previous_ms, const FilterProblem& previous, const FilterProblem& next) {
  const double pixels = static_cast<double>(next.pixel_count()) / static_cast<double>(previous.pixel_count());
  const double taps = static_cast<double>(next.params.taps()) / previous.params.taps();
  const double channels = static_cast<double>(channel_count(next.format)) / channel_count(previous.format);
  return previous_ms * pixels * channels * taps * taps;
}

double effective_bytes(const FilterProblem& problem) {
  return 2.0 * static_cast<double>(problem.pixel_count()) * static_cast<double>(bytes_per_pixel(problem.format));
}

double effective_bytes(const BenchCase& config) {
  if (config.pool == PoolMode::None) return effective_bytes(config.problem);
  const double in = static_cast<double>(config.problem.pixel_count()) * bytes_per_pixel(config.problem.format);
  const double out = static_cast<double>(pooled_side(config.problem.width)) * pooled_side(config.problem.height) *
                     bytes_per_pixel(config.problem.format);
  return in + out;
}

}  // namespace gausslab
