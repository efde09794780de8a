#include "gpu_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

namespace {

// Warm-up runs beyond the first are skipped once a run takes this long: they would only cost time.
constexpr float kSlowWarmupMs = 50.0f;

// The copy-bandwidth probe: large against any L2 cache, small against any device memory.
constexpr std::size_t kCopyProbeBytes = std::size_t{512} << 20;
constexpr int kCopyProbeRuns = 20;

}  // namespace

int rotation_copies(double image_bytes, double l2_bytes, double device_memory_bytes) {
  const double pair_bytes = 2.0 * image_bytes;  // an input and its output
  int copies = static_cast<int>(std::ceil(3.0 * l2_bytes / pair_bytes));
  copies = std::clamp(copies, 2, 64);
  const int fitting = static_cast<int>(0.25 * device_memory_bytes / pair_bytes);
  return std::max(1, std::min(copies, fitting));
}

GpuTiming::GpuTiming(const TimingPolicy& policy) : policy_(policy) {
  // A blocking stream: work a method's prepare() left on the legacy default stream (a weight upload)
  // is ordered before the runs.
  GAUSSLAB_CUDA_CHECK(cudaStreamCreate(&stream_));
  const int events = std::max(policy_.max_runs, policy_.end_to_end_runs);
  starts_.resize(static_cast<std::size_t>(events));
  stops_.resize(static_cast<std::size_t>(events));
  for (int i = 0; i < events; ++i) {
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&starts_[i]));
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&stops_[i]));
  }
}

GpuTiming::~GpuTiming() {
  for (cudaEvent_t event : starts_)
    if (event) GAUSSLAB_CUDA_LOG(cudaEventDestroy(event));
  for (cudaEvent_t event : stops_)
    if (event) GAUSSLAB_CUDA_LOG(cudaEventDestroy(event));
  if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream_));
}

double GpuTiming::measure_copy_bandwidth(std::string& note) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GAUSSLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t size_bytes = std::min(kCopyProbeBytes, free_bytes / 4);
  DeviceBuffer d_from(size_bytes), d_to(size_bytes);
  GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(d_from.data(), 0, size_bytes, stream_));
  GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(d_to.data(), d_from.data(), size_bytes, cudaMemcpyDeviceToDevice, stream_));
  std::vector<double> samples;
  const int runs = std::min(kCopyProbeRuns, static_cast<int>(starts_.size()));
  for (int i = 0; i < runs; ++i) {
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(starts_[i], stream_));
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(d_to.data(), d_from.data(), size_bytes, cudaMemcpyDeviceToDevice, stream_));
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(stops_[i], stream_));
  }
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int i = 0; i < runs; ++i) {
    float ms = 0;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[i], stops_[i]));
    samples.push_back(ms);
  }
  const double median_ms = time_stats(samples).median;
  char text[200];
  std::snprintf(text, sizeof text,
                "cudaMemcpyAsync device to device of %.0f MiB, median of %d runs (%.3f ms), counting bytes "
                "read + written",
                size_bytes / 1048576.0, runs, median_ms);
  note = text;
  return 2.0 * static_cast<double>(size_bytes) / (median_ms * 1e-3) / 1e9;
}

void GpuTiming::load_input(const ConstImageView& host_input) {
  const CudaDeviceStatus& device = cuda_device_status();
  const double image_bytes =
      static_cast<double>(host_input.width) * host_input.height * bytes_per_pixel(host_input.format);
  const int copies = rotation_copies(image_bytes, static_cast<double>(device.l2_cache_bytes),
                                     static_cast<double>(device.global_memory_bytes));
  // Free the previous size's copies first, so that the largest images fit.
  if (copies != this->copies() ||
      (!inputs_.empty() && (inputs_[0].width() != host_input.width || inputs_[0].height() != host_input.height ||
                            inputs_[0].format() != host_input.format))) {
    inputs_.clear();
    outputs_.clear();
    pooled_outputs_.clear();
    inputs_.resize(static_cast<std::size_t>(copies));
    outputs_.resize(static_cast<std::size_t>(copies));
  }
  for (int i = 0; i < copies; ++i) {
    inputs_[i].upload(host_input, stream_);
    outputs_[i].resize(host_input.width, host_input.height, host_input.format);
  }
  upload_view_ = upload_.image_view(host_input.width, host_input.height, host_input.format);
  download_view_ = download_.image_view(host_input.width, host_input.height, host_input.format);
  const ImageView pinned = upload_view_;
  for (int y = 0; y < host_input.height; ++y)
    std::memcpy(pinned.row<char>(y), host_input.row<char>(y), pinned.pitch_bytes);
  for (DeviceImage& pooled : pooled_outputs_)
    pooled.resize(pooled_side(host_input.width), pooled_side(host_input.height), host_input.format);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void GpuTiming::run(Method& method, int copy, const Pooling& pooling) {
  const std::size_t i = static_cast<std::size_t>(copy) % inputs_.size();
  if (pooling.mode == PoolMode::None)
    method.run(inputs_[i].view(), outputs_[i].view(), nullptr, stream_);
  else
    run_and_pool(method, inputs_[i].view(), outputs_[i].view(), pooled_outputs_[i].view(), pooling.mode, nullptr,
                 stream_, pooling.path);
}

float GpuTiming::time_one_run(Method& method, int copy, const Pooling& pooling) {
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(starts_[0], stream_));
  run(method, copy, pooling);
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(stops_[0], stream_));
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(stops_[0]));
  float ms = 0;
  GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[0], stops_[0]));
  return ms;
}

GpuMeasurement GpuTiming::measure(Method& method) { return measure_runs(method, Pooling{}); }

GpuMeasurement GpuTiming::measure_pooled(Method& method, PoolMode pool, PoolPath path) {
  if (inputs_.empty()) throw std::logic_error("GpuTiming::measure_pooled before load_input");
  if (pooled_outputs_.size() != inputs_.size()) {
    pooled_outputs_.resize(inputs_.size());
    for (DeviceImage& pooled : pooled_outputs_)
      pooled.resize(pooled_side(inputs_[0].width()), pooled_side(inputs_[0].height()), inputs_[0].format());
  }
  return measure_runs(method, Pooling{pool, path});
}

GpuMeasurement GpuTiming::measure_runs(Method& method, const Pooling& pooling) {
  if (inputs_.empty()) throw std::logic_error("GpuTiming::measure before load_input");
  GpuMeasurement result;
  // Whatever prepare() enqueued anywhere (uploads, plan set-up) finishes outside the timed region.
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());

  // Warm-up: the first run pays for lazy module loading and cold caches.
  float last_ms = time_one_run(method, 0, pooling);
  result.warmup_runs = 1;
  while (result.warmup_runs < policy_.warmup_runs && last_ms < kSlowWarmupMs)
    last_ms = time_one_run(method, result.warmup_runs++, pooling);

  // Timed runs, back to back on the stream; each has its own event pair, read after one sync. A
  // run slower than the cap is timed once: five of them would cost more than the number is worth.
  result.slow = last_ms > policy_.gpu_cap_ms;
  const int runs =
      result.slow
          ? 1
          : std::min(timed_run_count(last_ms * 1e-3, policy_.min_runs, policy_.max_runs, policy_.target_seconds),
                     static_cast<int>(starts_.size()));
  for (int i = 0; i < runs; ++i) {
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(starts_[i], stream_));
    run(method, i + 1, pooling);  // the next copy after warm-up's first, rotating
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(stops_[i], stream_));
  }
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int i = 0; i < runs; ++i) {
    float ms = 0;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[i], stops_[i]));
    result.kernel_ms.push_back(ms);
  }

  // End to end: upload from pinned memory, run, download; the last run's output is poisoned first.
  const bool pooled = pooling.mode != PoolMode::None;
  const ImageView d_in = inputs_[0].view(), d_out = pooled ? pooled_outputs_[0].view() : outputs_[0].view();
  result_view_ = download_view_;
  if (pooled)  // the pooled image, tightly packed at the start of the download buffer
    result_view_ = ImageView{download_view_.data, d_out.width, d_out.height,
                             static_cast<std::size_t>(d_out.width) * bytes_per_pixel(d_out.format), d_out.format};
  const int e2e_runs = result.slow ? 1 : std::max(1, policy_.end_to_end_runs);
  for (int i = 0; i < e2e_runs; ++i) {
    if (i == e2e_runs - 1)
      GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(d_out.data, d_out.pitch_bytes, 0xFF,
                                            static_cast<std::size_t>(d_out.width) * bytes_per_pixel(d_out.format),
                                            static_cast<std::size_t>(d_out.height), stream_));
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(starts_[i], stream_));
    copy_image_async(upload_view_, d_in, cudaMemcpyHostToDevice, stream_);
    if (pooled)
      run_and_pool(method, d_in, outputs_[0].view(), d_out, pooling.mode, nullptr, stream_, pooling.path);
    else
      method.run(d_in, d_out, nullptr, stream_);
    copy_image_async(d_out, result_view_, cudaMemcpyDeviceToHost, stream_);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(stops_[i], stream_));
  }
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int i = 0; i < e2e_runs; ++i) {
    float ms = 0;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[i], stops_[i]));
    result.end_to_end_ms.push_back(ms);
  }
  return result;
}

}  // namespace gausslab
