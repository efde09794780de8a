#pragma once
// What gausslab-bench measures (the list of configurations, in the order they run) and the small
// rules that decide how long it measures each: pure functions, tested on the CPU.
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

inline constexpr const char* kMainSection = "main";
inline constexpr const char* kSweepSection = "sigma_sweep";
inline constexpr const char* kSignalsSection = "signals";    // --signals
inline constexpr const char* kLutSection = "lut";            // --lut
inline constexpr const char* kUnrolledSection = "unrolled";  // --unrolled
inline constexpr const char* kPoolingSection = "pooling";    // --pooling
inline constexpr const char* kCustomSection = "custom_kernels";  // --custom-kernels
inline constexpr const char* kScalingSection = "scaling";

struct BenchCase {
  std::string section;  // kMainSection, kSweepSection or kScalingSection
  const MethodEntry* method = nullptr;
  FilterProblem problem;
  int kernel_size = 0;  // k of a k×k kernel from --kernels; 0 when sigma was given
  bool looped = false;  // the method's run-time loop forced for every radius (MethodEntry::create_looped)
  PoolMode pool = PoolMode::None;  // blur then 2×2 pooling ...
  bool fused_pool = false;         // ... fused into the method's last pass (else a separate kernel)

  bool is_gpu() const { return method->info.backend == Backend::Cuda; }
  // "7x7" for a kernel, "sigma 2" otherwise.
  std::string kernel_label() const;
  // What sets this row apart from the method's plain run: "", "looped", "unrolled", "max2x2 fused" ...
  std::string variant() const;
};

// The methods --methods names (all when empty); UsageError for an unknown id.
std::vector<const MethodEntry*> select_methods(const std::vector<std::string>& ids);

// Every configuration, grouped so that one image size and format stays on the device while all
// its methods run: main section by format, size, kernel (then sigma), method; then the sweep by
// size, sigma and method; then the scaling rows by sigma, size and method.
std::vector<BenchCase> plan_cases(const BenchOptions& options, const std::vector<const MethodEntry*>& methods);

// Timed runs for a method whose one run takes `run_seconds`: enough to fill target_seconds,
// within [min_runs, max_runs].
int timed_run_count(double run_seconds, int min_runs, int max_runs, double target_seconds);

// Median, min and 90th percentile (nearest rank) of the samples; all NaN when empty.
struct TimeStats {
  double median = 0, min = 0, p90 = 0;
  int count = 0;
};
TimeStats time_stats(std::vector<double> samples);

// The time one run of `next` should take, predicted from a measured run of `previous` by the same
// method: proportional to the pixels and to the square of the taps (the cost of a direct 2D
// kernel; the cheaper methods are over-estimated, which only matters once they are already slow).
double predict_run_ms(double previous_ms, const FilterProblem& previous, const FilterProblem& next);

// Effective bandwidth of one run: the input read once and the output written once.
double effective_bytes(const FilterProblem& problem);
// The same for a row: a pooled output is a quarter of the input.
double effective_bytes(const BenchCase& config);

}  // namespace gausslab
