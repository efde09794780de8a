#pragma once
// GPU timing for gausslab-bench: CUDA events around method.run on one stream, inputs rotated among
// device copies so that the L2 cache cannot hold the working set, the device-to-device copy
// bandwidth as the yardstick, and an end-to-end time with the host copies.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "bench_options.hpp"
#include "bench_plan.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/pooling.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"

namespace gausslab {

struct GpuMeasurement {
  std::vector<double> kernel_ms;      // one per timed run
  std::vector<double> end_to_end_ms;  // one per end-to-end run
  int warmup_runs = 0;
  bool slow = false;  // the warm-up run took longer than the cap: timed once only
};

// Copies that rotate so that all inputs and outputs together exceed three times the L2 cache
// (at least 2, at most 64, and at most a quarter of the device memory).
int rotation_copies(double image_bytes, double l2_bytes, double device_memory_bytes);

class GpuTiming {
 public:
  explicit GpuTiming(const TimingPolicy& policy);
  ~GpuTiming();
  GpuTiming(const GpuTiming&) = delete;
  GpuTiming& operator=(const GpuTiming&) = delete;

  // Median bandwidth of a large device-to-device cudaMemcpy, counting bytes read + written, in
  // GB/s (1e9 bytes per second). `note` says how it was measured.
  double measure_copy_bandwidth(std::string& note);

  // Puts `host_input` into every rotation copy on the device and into the pinned upload buffer.
  void load_input(const ConstImageView& host_input);
  int copies() const { return static_cast<int>(inputs_.size()); }

  // Times `method`, already prepared for the loaded input's size and format. The last end-to-end
  // run writes into a poisoned device output (0xFF bytes: NaN for f32), so a pixel the method does
  // not write shows in the result; that result is left in result_host().
  GpuMeasurement measure(Method& method);
  // The same for a blur followed by 2×2 pooling (run_and_pool, cuda/pooling.hpp), fused into the
  // method's last pass or as a separate kernel: the pooled result, a quarter of the size, is what
  // each run writes and the end-to-end run downloads (then in result_host()).
  GpuMeasurement measure_pooled(Method& method, PoolMode pool, PoolPath path);
  ConstImageView result_host() const { return result_view_; }

 private:
  struct Pooling {
    PoolMode mode = PoolMode::None;
    PoolPath path = PoolPath::Separate;
  };
  GpuMeasurement measure_runs(Method& method, const Pooling& pooling);
  float time_one_run(Method& method, int copy, const Pooling& pooling);
  void run(Method& method, int copy, const Pooling& pooling);

  TimingPolicy policy_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> starts_, stops_;
  std::vector<DeviceImage> inputs_, outputs_;
  std::vector<DeviceImage> pooled_outputs_;  // one per copy, made by the first pooled measurement
  // Page-locked, so that the end-to-end copies run at full speed.
  PinnedBuffer upload_, download_;
  ImageView upload_view_, download_view_;
  ImageView result_view_;  // download_view_, or the pooled image at its start
};

}  // namespace gausslab
