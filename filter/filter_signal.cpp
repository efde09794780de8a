#include "filter_signal.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gausslab/core/npy_io.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {

namespace {

// Samples as a 1×N float32 image. float64 samples beyond float32's range would become infinite:
// refused with the first such sample (NaN and infinities pass through as they are).
std::string to_float32(const NpySignal& signal, ImageF32& image) {
  if (signal.dtype == NpyDtype::Float32) {
    std::copy(signal.f32.begin(), signal.f32.end(), image.data());
    return {};
  }
  constexpr double kMax = std::numeric_limits<float>::max();
  for (std::size_t i = 0; i < signal.f64.size(); ++i) {
    const double v = signal.f64[i];
    if (std::isfinite(v) && std::fabs(v) > kMax) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "sample %zu is %g, beyond float32's range (±3.4e38) in which float64 signals are filtered; "
                    "scale the signal down",
                    i, v);
      return text;
    }
    image.data()[i] = static_cast<float>(v);
  }
  return {};
}

std::string describe_signal(const NpySignal& signal) {
  return std::to_string(signal.size()) + " samples " + to_string(signal.dtype) +
         (signal.dtype == NpyDtype::Float64 ? ", filtered in float32" : "");
}

}  // namespace

MethodChoice choose_signal_method(bool cuda_available, const FilterParams& params) {
  const MethodEntry* tiled = find_method("tiled_1d");
  if (cuda_available && tiled && kernel_refusal(tiled->info, params).empty())
    return {"tiled_1d", "the 1D tiled kernel: one read and one write per sample"};
  if (cuda_available && tiled)
    return {"cpu_openmp", "tiled_1d runs the Gaussian only, so the CPU filter on every core"};
  return {"cpu_openmp", cuda_available ? "the CPU filter on every core" : "no CUDA device here, so the CPU filter on every core"};
}

FilterProblem signal_problem(std::size_t length, const FilterParams& params) {
  FilterProblem problem{static_cast<int>(std::min<std::size_t>(length, kMaxNpySamples)), 1, PixelFormat::F32, params};
  problem.params.axes = FilterAxes::RowsOnly;
  return problem;
}

FileResult filter_signal_file(const FilterOptions& options, Method& method, const BatchJob& job) {
  FileResult result;
  if (std::string refusal = signal_output_type_refusal(options.output_type); !refusal.empty()) {
    result.status = FileResult::Status::Refused;  // a signal found in a folder or a list
    result.message = "'" + job.input + "' " + refusal;
    return result;
  }
  NpySignal signal;
  try {
    signal = read_npy_1d(job.input);
  } catch (const NpyError& error) {
    result.status = FileResult::Status::Unreadable;
    result.message = error.what();
    return result;
  } catch (const std::bad_alloc&) {
    result.status = FileResult::Status::Failed;
    result.message = "'" + job.input + "': out of memory while reading the signal";
    return result;
  }
  const FilterProblem problem = signal_problem(signal.size(), options.params);
  if (std::string reason = method.unsupported_reason(problem); !reason.empty()) {
    result.status = FileResult::Status::Refused;
    result.message = "'" + job.input + "': " + method.info().id + " refuses this signal of " +
                     std::to_string(signal.size()) + " samples: " + reason;
    return result;
  }
  try {
    ImageF32 samples(problem.width, 1);
    if (std::string problem_text = to_float32(signal, samples); !problem_text.empty()) {
      result.status = FileResult::Status::Refused;
      result.message = "'" + job.input + "': " + problem_text;
      return result;
    }
    const auto start = std::chrono::steady_clock::now();
    const ImageF32 filtered = run_on_host(method, samples, problem.params);
    result.filter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (signal.dtype == NpyDtype::Float32) {
      write_npy_1d(job.output, filtered.data(), filtered.pixel_count(), options.overwrite);
    } else {
      const std::vector<double> widened(filtered.data(), filtered.data() + filtered.pixel_count());
      write_npy_1d(job.output, widened.data(), widened.size(), options.overwrite);
    }
    result.description = describe_signal(signal);
  } catch (const NpyError& error) {  // names the output file itself
    result.status = FileResult::Status::Failed;
    result.message = error.what();
  } catch (const std::bad_alloc&) {
    result.status = FileResult::Status::Failed;
    result.message = "'" + job.input + "': out of memory while filtering " + std::to_string(signal.size()) + " samples";
  } catch (const std::exception& error) {  // CudaError, invalid_argument
    result.status = FileResult::Status::Failed;
    result.message = "'" + job.input + "': " + error.what();
  }
  return result;
}

SignalRunSummary run_signal_jobs(const FilterOptions& options, const MethodChoice& choice,
                                 const std::vector<BatchJob>& jobs, std::ostream& log) {
  SignalRunSummary summary;
  if (jobs.empty()) return summary;
  const std::unique_ptr<Method> method = find_method(choice.id)->create();
  for (const BatchJob& job : jobs) {
    const FileResult result = filter_signal_file(options, *method, job);
    if (result.status == FileResult::Status::Done) {
      ++summary.done;
      if (!options.quiet) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.1f ms", result.filter_ms);
        log << job.input << " -> " << job.output << "  " << result.description << " with " << choice.id << "  " << ms
            << "\n";
      }
    } else {
      ++summary.failed;
      summary.refused += result.status == FileResult::Status::Refused;
      log << "gausslab-filter: " << result.message << "\n";
    }
    log.flush();
  }
  return summary;
}

}  // namespace gausslab
