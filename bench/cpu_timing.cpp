#include "cpu_timing.hpp"

#include <algorithm>
#include <chrono>

#include "bench_plan.hpp"
#include "gausslab/core/cpu_filter.hpp"

namespace gausslab {

namespace {

using Clock = std::chrono::steady_clock;

// A warm-up run is skipped when one run is expected to take longer than this.
constexpr double kWarmupLimitSeconds = 0.5;

double run_ms(Method& method, const ConstImageView& src, const ImageView& dst) {
  const auto start = Clock::now();
  method.run(src, dst, nullptr, nullptr);
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

CpuMeasurement measure_cpu(Method& method, const ConstImageView& src, const ImageView& dst, const TimingPolicy& policy,
                           double estimated_seconds) {
  CpuMeasurement result;
  double one_run_seconds = estimated_seconds;
  if (estimated_seconds < kWarmupLimitSeconds) {
    one_run_seconds = run_ms(method, src, dst) * 1e-3;
    result.warmup_runs = 1;
  }
  const int runs =
      timed_run_count(one_run_seconds, policy.cpu_min_runs, policy.cpu_max_runs, policy.cpu_target_seconds);
  for (int i = 0; i < runs; ++i) result.ms.push_back(run_ms(method, src, dst));
  return result;
}

double calibrate_cpu_rate(Method& method) {
  const ImageF32 src = make_random_f32(512, 512, 7);
  ImageF32 dst(512, 512);
  FilterParams params;
  params.sigma = 2.0;  // radius 8 at truncate 4
  const FilterProblem problem{512, 512, PixelFormat::F32, params};
  method.prepare(problem);
  run_ms(method, src.view(), dst.view());  // first touch of the memory, thread pool start
  // The fastest of three: one stall of a busy machine must not make every estimate too slow.
  double fastest_ms = run_ms(method, src.view(), dst.view());
  for (int i = 0; i < 2; ++i) fastest_ms = std::min(fastest_ms, run_ms(method, src.view(), dst.view()));
  return cpu_filter_cost(problem) / std::max(fastest_ms * 1e-3, 1e-6);
}

}  // namespace gausslab
