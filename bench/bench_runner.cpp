#include "bench_runner.hpp"

#include "gausslab/cuda/auto_method.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "cpu_timing.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

namespace {

// Seeds of the benchmark's pseudo-random inputs (noise: the hardest case for accuracy, and the
// timing of every method here does not depend on the pixel values).
constexpr std::uint32_t kInputSeed = 20240601;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void skip(BenchRow& row, const std::string& reason) {
  row.status = BenchRow::Status::Skipped;
  row.note = reason;
}

void fail(BenchRow& row, const std::string& reason) {
  row.status = BenchRow::Status::Failed;
  row.note = reason;
}

// The benchmark's input: RGBA8 and F32 as make_random_rgba8 / make_random_f32 make them (the
// published runs' images); the other formats random over their type's nominal range (every level;
// [0, 1) for floats). The kernels' times do not depend on the values.
HostImage random_input(int width, int height, PixelFormat format, std::uint32_t seed) {
  if (format == PixelFormat::Rgba8) return HostImage::from(make_random_rgba8(width, height, seed));
  if (format == PixelFormat::F32) return HostImage::from(make_random_f32(width, height, seed));
  HostImage image(width, height, format);
  const SampleType sample = sample_type(format);
  const float top = static_cast<float>(nominal_max(sample));
  std::uint32_t state = seed;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channel_count(format); ++c) {
        state = state * 1664525u + 1013904223u;
        image.set_sample(x, y, c, static_cast<float>(state >> 8) / 16777216.0f * top);
      }
  return image;
}

}  // namespace

BenchRunner::BenchRunner(const BenchOptions& options, std::ostream& progress, bool progress_is_terminal)
    : options_(options),
      progress_(progress),
      progress_is_terminal_(progress_is_terminal),
      start_seconds_(now_seconds()) {
  if (!cuda_device_status().available) return;
  try {
    gpu_ = std::make_unique<GpuTiming>(options_.timing);
  } catch (const CudaError& error) {
    gpu_broken_reason_ = std::string("the CUDA device could not be set up for timing: ") + error.what();
  }
}

BenchRunner::~BenchRunner() = default;

double BenchRunner::measure_copy_bandwidth(std::string& note) {
  const CudaDeviceStatus& device = cuda_device_status();
  if (!device.available) {
    note = "not measured: " + device.reason;
    return 0;
  }
  if (!gpu_) {
    note = "not measured: " + gpu_broken_reason_;
    return 0;
  }
  try {
    return gpu_->measure_copy_bandwidth(note);
  } catch (const CudaError& error) {
    note = std::string("not measured: ") + error.what();
    check_gpu_health("the copy-bandwidth probe");
    return 0;
  }
}

Method& BenchRunner::method_for(const BenchCase& config) {
  std::unique_ptr<Method>& method = methods_[{config.method, config.looped}];
  if (!method) method = config.looped ? config.method->create_looped() : config.method->create();
  return *method;
}

double BenchRunner::cpu_rate(Method& method) {
  auto it = cpu_rates_.find(method.info().id);
  if (it == cpu_rates_.end()) it = cpu_rates_.emplace(method.info().id, calibrate_cpu_rate(method)).first;
  return it->second;
}

ConstImageView BenchRunner::host_input(const FilterProblem& problem) {
  const ImageKey key{problem.format, problem.width, problem.height};
  if (host_key_ != key) {
    // One format and size at a time: free the last one's images first (4096² RGBA32F is 256 MiB each).
    host_input_ = {};
    host_output_ = {};
    host_input_ = random_input(problem.width, problem.height, problem.format, kInputSeed);
    host_output_ = HostImage(problem.width, problem.height, problem.format);
    host_key_ = key;
  }
  return host_input_.view();
}

ImageView BenchRunner::host_output(const FilterProblem& problem) {
  host_input(problem);
  return host_output_.view();
}

const CropReference& BenchRunner::crop_reference(const FilterProblem& problem) {
  if (reference_problem_ != problem) {
    reference_ = make_crop_reference(host_input(problem), problem.params);
    reference_problem_ = problem;
  }
  return reference_;
}

void BenchRunner::check_gpu_health(const std::string& what) {
  // Raw calls on purpose: their status is the answer, not an error to throw.
  cudaGetLastError();  // clears an error that does not outlive its call (a bad launch configuration)
  const cudaError_t code = cudaDeviceSynchronize();  // a sticky error (illegal address) shows here
  if (code != cudaSuccess && gpu_broken_reason_.empty())
    gpu_broken_reason_ = std::string("the CUDA context is unusable since ") + what + " failed (" +
                         cudaGetErrorName(code) + "); the remaining GPU configurations are skipped";
}

void BenchRunner::measure_gpu(const BenchCase& config, Method& method, BenchRow& row) {
  const ImageKey key{config.problem.format, config.problem.width, config.problem.height};
  const ConstImageView input = host_input(config.problem);
  if (gpu_loaded_ != key) {
    gpu_loaded_.reset();
    gpu_->load_input(input);
    gpu_loaded_ = key;
  }
  const bool pooled = config.pool != PoolMode::None;
  const GpuMeasurement measured =
      pooled ? gpu_->measure_pooled(method, config.pool, config.fused_pool ? PoolPath::Fused : PoolPath::Separate)
             : gpu_->measure(method);
  row.kernel = time_stats(measured.kernel_ms);
  row.end_to_end_ms = time_stats(measured.end_to_end_ms).median;
  row.warmup_runs = measured.warmup_runs;
  row.rotation_copies = gpu_->copies();
  row.status = BenchRow::Status::Ok;
  if (measured.slow)
    row.note = "one run took longer than the cap of " + format_number("%g", options_.timing.gpu_cap_ms) +
               " ms (--gpu-cap-ms): timed once";
  last_gpu_ms_[{config.section, method.info().id}] = {row.kernel.median, config.problem};

  if (pooled) {  // the pooled result is checked bit for bit against the CPU pooling in the GPU tests
    row.note += std::string(row.note.empty() ? "" : "; ") +
                "accuracy: the pooled result equals the CPU pooling of the blur bit for bit (tests/gpu)";
    return;
  }
  row.accuracy = crop_accuracy(gpu_->result_host(), crop_reference(config.problem));
  row.has_accuracy = true;
}

void BenchRunner::measure_cpu_case(const BenchCase& config, Method& method, double estimated_seconds, BenchRow& row) {
  const ConstImageView input = host_input(config.problem);
  const ImageView output = host_output(config.problem);
  const CpuMeasurement measured = measure_cpu(method, input, output, options_.timing, estimated_seconds);
  row.kernel = time_stats(measured.ms);
  row.end_to_end_ms = row.kernel.median;  // host memory in, host memory out: nothing to copy
  row.warmup_runs = measured.warmup_runs;
  row.status = BenchRow::Status::Ok;
  cpu_rates_[method.info().id] = cpu_filter_cost(config.problem) / (row.kernel.median * 1e-3);

  row.accuracy = crop_accuracy(output, crop_reference(config.problem));
  row.has_accuracy = true;
}

void BenchRunner::measure_case(const BenchCase& config, BenchRow& row) {
  const TimingPolicy& timing = options_.timing;
  if (config.is_gpu()) {
    if (!cuda_device_status().available) return skip(row, cuda_device_status().reason);
    if (!gpu_broken_reason_.empty()) return skip(row, gpu_broken_reason_);
  }
  if (now_seconds() - start_seconds_ > timing.budget_seconds)
    return skip(row, "the run's time budget of " + format_number("%g", timing.budget_seconds) +
                         " s was used up (--budget-seconds)");
  Method& method = method_for(config);
  if (std::string reason = method.unsupported_reason(config.problem); !reason.empty())
    return skip(row, "refused: " + reason);

  double estimated_seconds = 0;
  if (config.is_gpu()) {
    const auto previous = last_gpu_ms_.find({config.section, method.info().id});
    if (previous != last_gpu_ms_.end()) {
      const double predicted = predict_run_ms(previous->second.first, previous->second.second, config.problem);
      if (predicted > timing.gpu_cap_ms) {
        const FilterProblem& measured = previous->second.second;
        return skip(row, "one run is predicted at " + format_number("%.0f", predicted) + " ms (from " +
                             format_number("%.3g", previous->second.first) + " ms at " +
                             std::to_string(measured.width) + "x" + std::to_string(measured.height) + " " +
                             to_string(measured.format) + " radius " + std::to_string(measured.params.radius()) +
                             "), above the cap of " + format_number("%g", timing.gpu_cap_ms) + " ms (--gpu-cap-ms)");
      }
    }
  } else {
    estimated_seconds = cpu_filter_cost(config.problem) / cpu_rate(method);
    if (estimated_seconds > timing.cpu_cap_seconds)
      return skip(row, "one run is estimated at " + format_number("%.1f", estimated_seconds) + " s, above the cap of " +
                           format_number("%g", timing.cpu_cap_seconds) + " s (--cpu-cap-seconds)");
  }

  try {
    method.prepare(config.problem);
    row.bound = method.accuracy_bound(config.problem);
    if (const std::optional<AutoChoice> choice = auto_choice_of(method))
      row.note = "auto chose " + choice->method_id;
    if (config.is_gpu())
      measure_gpu(config, method, row);
    else
      measure_cpu_case(config, method, estimated_seconds, row);
    row.within_bound = meets(row.accuracy, row.bound, config.problem.format);
    if (!row.within_bound)
      row.note += std::string(row.note.empty() ? "" : "; ") + "accuracy outside the method's stated bound";
  } catch (const std::bad_alloc&) {
    fail(row, "out of host memory");
  } catch (const std::exception& error) {  // CudaError, invalid_argument from prepare or run
    fail(row, error.what());
    if (config.is_gpu()) {
      gpu_loaded_.reset();  // the device copies may be gone with the context
      check_gpu_health(method.info().id);
    }
  }
}

void BenchRunner::report_progress(int index, int total, const BenchRow& row) {
  const int elapsed = static_cast<int>(now_seconds() - start_seconds_);
  const FilterProblem& p = row.config.problem;
  char head[200];
  std::snprintf(head, sizeof head, "[%*d/%d %d:%02d] %s %s %dx%d %s: ", static_cast<int>(std::to_string(total).size()),
                index + 1, total, elapsed / 60, elapsed % 60, row.config.method->info.id.c_str(), to_string(p.format),
                p.width, p.height, row.config.kernel_label().c_str());
  std::string line = head;
  if (row.status == BenchRow::Status::Ok) {
    line += format_number("%.4g ms", row.kernel.median);
    if (!row.within_bound) line += " (accuracy outside the bound)";
  } else if (row.config.is_gpu() && !cuda_device_status().available) {
    line += "skipped (no CUDA device)";  // the reason was printed once at the start
  } else {
    line += std::string(to_string(row.status)) + " (" + row.note + ")";
  }
  if (progress_is_terminal_) {
    if (line.size() > 160) line = line.substr(0, 157) + "...";
    progress_ << "\r\x1b[K" << line << (index + 1 == total ? "\n" : "");
  } else {
    progress_ << line << '\n';
  }
  progress_.flush();
}

std::vector<BenchRow> BenchRunner::run(const std::vector<BenchCase>& cases,
                                       const std::function<void(const BenchRow&)>& on_row) {
  std::vector<BenchRow> rows;
  rows.reserve(cases.size());
  const int total = static_cast<int>(cases.size());
  for (int i = 0; i < total; ++i) {
    BenchRow row;
    row.config = cases[static_cast<std::size_t>(i)];
    measure_case(row.config, row);
    report_progress(i, total, row);
    on_row(row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace gausslab
