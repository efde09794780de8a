#pragma once
// Runs gausslab-bench's configurations one after the other: decides what to skip, prepares each
// method outside the timed region, times it on the GPU or the CPU, and checks its accuracy.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "bench_accuracy.hpp"
#include "bench_options.hpp"
#include "bench_plan.hpp"
#include "bench_results.hpp"
#include "gausslab/core/host_image.hpp"
#include "gpu_timing.hpp"

namespace gausslab {

class BenchRunner {
 public:
  // `progress` receives one line per configuration (redrawn in place when it is a terminal).
  BenchRunner(const BenchOptions& options, std::ostream& progress, bool progress_is_terminal);
  ~BenchRunner();

  // The device-to-device copy bandwidth (GB/s), measured once; 0 without a CUDA device, and
  // `note` says why.
  double measure_copy_bandwidth(std::string& note);

  // Measures every case in order; `on_row` sees each row as soon as it is done.
  std::vector<BenchRow> run(const std::vector<BenchCase>& cases, const std::function<void(const BenchRow&)>& on_row);

 private:
  using ImageKey = std::tuple<PixelFormat, int, int>;

  void measure_case(const BenchCase& config, BenchRow& row);
  void measure_gpu(const BenchCase& config, Method& method, BenchRow& row);
  void measure_cpu_case(const BenchCase& config, Method& method, double estimated_seconds, BenchRow& row);
  void check_gpu_health(const std::string& method_id);
  Method& method_for(const BenchCase& config);
  double cpu_rate(Method& method);
  ConstImageView host_input(const FilterProblem& problem);
  ImageView host_output(const FilterProblem& problem);
  const CropReference& crop_reference(const FilterProblem& problem);
  void report_progress(int index, int total, const BenchRow& row);

  BenchOptions options_;
  std::ostream& progress_;
  bool progress_is_terminal_;
  double start_seconds_ = 0;

  std::map<std::pair<const MethodEntry*, bool>, std::unique_ptr<Method>> methods_;  // by entry and looped
  std::map<std::string, double> cpu_rates_;  // multiply-adds per second, by method id
  // The same method's previous measurement in the same section: predicts the next one's time.
  std::map<std::pair<std::string, std::string>, std::pair<double, FilterProblem>> last_gpu_ms_;

  std::unique_ptr<GpuTiming> gpu_;
  std::optional<ImageKey> gpu_loaded_;
  std::string gpu_broken_reason_;

  std::optional<ImageKey> host_key_;
  HostImage host_input_, host_output_;
  std::optional<FilterProblem> reference_problem_;
  CropReference reference_;
};

}  // namespace gausslab
