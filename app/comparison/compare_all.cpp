#include "comparison/compare_all.hpp"

#include "gausslab/cuda/auto_method.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "comparison/background_threads.hpp"
#include "gausslab/cuda/stream_priority.hpp"

namespace gausslab {

namespace {

// The method's unrounded result: its float path on each channel plane (planes stacked vertically).
std::vector<float> float_planes(Method& method, const ImageRgba8& picture, const FilterParams& params) {
  const int w = picture.width(), h = picture.height();
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float> out(n * 4);
  ImageF32 plane(w, h), result(w, h);
  if (!method.unsupported_reason(FilterProblem{w, h, PixelFormat::F32, params}).empty()) {
    // No float path (lut_2d: 8-bit values only): its 8-bit result, as the numbers panel says.
    const ImageRgba8 result8 = run_on_host(method, picture, params);
    const std::uint8_t* bytes = &result8.data()->r;
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 4; ++c) out[static_cast<std::size_t>(c) * n + i] = bytes[i * 4 + c];
    return out;
  }
  for (int c = 0; c < 4; ++c) {
    const std::uint8_t* bytes = &picture.data()->r;
    for (std::size_t i = 0; i < n; ++i) plane.data()[i] = bytes[i * 4 + c];
    run_on_host(method, plane.view(), result.view(), params);
    std::copy(result.data(), result.data() + n, out.begin() + static_cast<std::ptrdiff_t>(c * n));
  }
  return out;
}

}  // namespace

CompareAll::CompareAll(bool gpu, ExactReference& exact)
    : gpu_(gpu), exact_(exact), thread_([this](Job& job, const std::atomic<bool>& superseded) { run(job, superseded); }) {}

CompareAll::~CompareAll() = default;

void CompareAll::start(const ExactKey& key, std::shared_ptr<const ImageRgba8> picture) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    table_.reset();
    progress_ = "starting";
  }
  thread_.submit(Job{key, std::move(picture)});
}

std::optional<CompareAllTable> CompareAll::table() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table_;
}

std::string CompareAll::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

void CompareAll::run(Job& job, const std::atomic<bool>& superseded) {
  use_background_cpu_share(false);  // it makes CUDA calls: its priority stays
  const ImageRgba8& picture = *job.picture;
  const int w = picture.width(), h = picture.height();
  const FilterProblem problem{w, h, PixelFormat::Rgba8, job.key.params};
  const bool large = static_cast<long long>(w) * h > 4'000'000;
  CompareAllTable table;
  table.key = job.key;
  table.width = w;
  table.height = h;
  const auto publish = [&](const std::string& progress) {
    std::lock_guard<std::mutex> lock(mutex_);
    table_ = table;
    progress_ = progress;
  };
  try {
    cudaStream_t stream = nullptr;
    DeviceImage d_source, d_result;
    const double image_bytes = static_cast<double>(w) * h * 4;
    if (gpu_) {
      GAUSSLAB_CUDA_CHECK(cudaSetDevice(cuda_device_status().device));
      // The least priority, as the numbers worker's: the frames' kernels go first.
      stream = create_stream_with_priority(StreamPriority::Least, cudaStreamNonBlocking);
      d_source.resize(w, h, PixelFormat::Rgba8);
      d_result.resize(w, h, PixelFormat::Rgba8);
      d_source.upload(picture.view(), stream);
      // The copy that sets the bandwidth scale: read + write of the picture.
      StageTimer copy_timer(4, 16);
      for (int i = 0; i < 9; ++i) {
        copy_timer.begin_frame();
        {
          ScopedStage stage(&copy_timer, "copy", stream);
          copy_image_async(d_source.view(), d_result.view(), cudaMemcpyDeviceToDevice, stream);
        }
        copy_timer.end_frame();
        if (i == 1) {
          copy_timer.flush();
          copy_timer.reset_history();
        }
      }
      copy_timer.flush();
      const double copy_ms = copy_timer.frame_median_ms();
      if (copy_ms > 0) table.copy_gb_per_s = 2 * image_bytes / (copy_ms * 1e6);
    }
    exact_.request(job.key, job.picture);
    const auto& registry = method_registry(gpu_);
    for (std::size_t i = 0; i < registry.size() && !superseded; ++i) {
      const MethodEntry& entry = registry[i];
      publish(std::to_string(i + 1) + " of " + std::to_string(registry.size()) + ": " + entry.info.id);
      CompareAllRow row;
      row.id = entry.info.id;
      row.backend = to_string(entry.info.backend);
      const bool on_gpu = entry.info.backend == Backend::Cuda;
      std::unique_ptr<Method> method = entry.create();
      if (on_gpu && !gpu_) {
        row.problem = "no CUDA device";
      } else if (std::string reason = method->unsupported_reason(problem); !reason.empty()) {
        row.problem = reason;
      }
      if (!row.problem.empty()) {
        table.rows.push_back(std::move(row));
        continue;
      }
      try {
        method->prepare(problem);
        if (const std::optional<AutoChoice> choice = auto_choice_of(*method))
          row.runs = choice->method_id + ": " + choice->why;
        const int warm = on_gpu ? 2 : 1, runs = on_gpu ? 7 : (large ? 1 : 3);
        StageTimer timer(warm + runs + 1, runs);
        ImageRgba8 host_result(on_gpu ? 0 : w, on_gpu ? 0 : h);
        for (int r = 0; r < warm + runs && !superseded; ++r) {
          timer.begin_frame();
          if (on_gpu)
            method->run(d_source.view(), d_result.view(), &timer, stream);
          else
            method->run(picture.view(), host_result.view(), &timer, nullptr);
          timer.end_frame();
          if (r == warm - 1) {
            timer.flush();
            timer.reset_history();
          }
        }
        timer.flush();
        for (const StageTiming& stage : timer.stages()) {
          row.stages.emplace_back(stage.name, stage.median_ms);
          row.total_ms += stage.median_ms;
        }
        if (row.total_ms > 0) row.mpixel_per_s = static_cast<double>(w) * h / (row.total_ms * 1e3);
        if (on_gpu && table.copy_gb_per_s > 0 && row.total_ms > 0)
          row.copy_percent = 100.0 * (2 * image_bytes / (row.total_ms * 1e6)) / table.copy_gb_per_s;
        // Accuracy: the unrounded float path against the exact Gaussian (waiting for it here, on the worker).
        publish(std::to_string(i + 1) + " of " + std::to_string(registry.size()) + ": " + entry.info.id +
                " (accuracy)");
        std::shared_ptr<const ExactResult> exact;
        while (!superseded && !(exact = exact_.find(job.key))) {
          if (!exact_.progress(job.key) && !exact_.error().empty()) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (exact && !superseded) {
          std::unique_ptr<Method> float_method = entry.create();
          const std::vector<float> planes = float_planes(*float_method, picture, job.key.params);
          DifferenceOperand reference = interleaved_f64_operand(exact->values.data(), w, 4);
          reference.keep_unrounded = true;  // the 8-bit figures: the rounded result against the exact values
          const DifferenceInput in{planes_operand(planes.data(), sizeof(float) * static_cast<std::size_t>(w), h, OperandType::F32),
                                   reference, w, h, 4};
          row.error = image_difference_host(in);
        }
      } catch (const std::exception& error) {
        row.problem = std::string("failed: ") + error.what();
      }
      table.rows.push_back(std::move(row));
    }
    if (stream) {
      GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));
      GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream));
    }
  } catch (const std::exception& error) {
    CompareAllRow row;
    row.id = "(all)";
    row.problem = std::string("compare all failed: ") + error.what();
    table.rows.push_back(std::move(row));
  }
  if (superseded) return;
  table.complete = true;
  publish({});
}

std::string compare_all_csv(const CompareAllTable& table) {
  std::string csv = "method,backend,width,height,sigma,truncate,radius,border,total_ms,mpixel_per_s,copy_percent,"
                    "max_error,mean_error,psnr_db,max_error_8bit,psnr_8bit_db,stages,problem,runs\n";
  char number[64];
  const auto add = [&](double value, const char* format = "%.6g") {
    std::snprintf(number, sizeof number, format, value);
    csv += number;
    csv += ',';
  };
  for (const CompareAllRow& row : table.rows) {
    csv += row.id + "," + row.backend + "," + std::to_string(table.width) + "," + std::to_string(table.height) + ",";
    add(table.key.params.sigma);
    add(table.key.params.truncate);
    csv += std::to_string(table.key.params.radius()) + "," + to_string(table.key.params.border) + ",";
    if (row.problem.empty()) {
      add(row.total_ms);
      add(row.mpixel_per_s);
      if (row.copy_percent >= 0) add(row.copy_percent, "%.1f"); else csv += ",";
    } else {
      csv += ",,,";
    }
    if (row.error) {
      add(row.error->unrounded.max_abs);
      add(row.error->unrounded.mean_abs);
      add(row.error->unrounded.psnr_db, "%.2f");
      add(row.error->rounded.max_abs);
      add(row.error->rounded.psnr_db, "%.2f");
    } else {
      csv += ",,,,,";
    }
    std::string stages;
    for (const auto& [name, ms] : row.stages) {
      std::snprintf(number, sizeof number, "%.4g", ms);
      stages += (stages.empty() ? "" : ";") + name + "=" + number;
    }
    std::string problem = row.problem;
    std::replace(problem.begin(), problem.end(), '"', '\'');
    std::string runs = row.runs;
    std::replace(runs.begin(), runs.end(), '"', '\'');
    csv += "\"" + stages + "\",\"" + problem + "\",\"" + runs + "\"\n";
  }
  return csv;
}

}  // namespace gausslab
