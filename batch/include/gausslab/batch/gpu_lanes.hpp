#pragma once
// The GPU side of the batch: a few lanes, each a CUDA stream with its own device buffers, its own
// instance of the method (a method's scratch serves one run at a time) and events around its
// stages. Consecutive images go to consecutive lanes, so one image uploads while another is
// filtered and a third downloads (the H2D and D2H copy engines and the SMs work at once).
// Everything here is asynchronous except wait(), drain() and filter_bands().
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gausslab/batch/band_plan.hpp"
#include "gausslab/batch/stage_stats.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

// A stage's place on the StageRecorder's clock, seconds.
struct StageSpan {
  double start_s = 0, end_s = 0;
};
struct LaneStages {
  StageSpan upload, filter, download;
};

// Failures injected by tests (GAUSSLAB_BATCH_FAULT): a device allocation that fails with
// cudaErrorMemoryAllocation, or a kernel launch that fails, for one file.
enum class GpuFault { None, DeviceOutOfMemory, LaunchFailure };

// Device bytes a method needs beyond its input and output images for a problem: a conservative
// estimate from what each method's prepare allocates (separable_shared and separable_texture a
// float intermediate, recursive two float scratch images, fft padded planes, spectra and cuFFT's
// work area; the others only their weights). A wrong estimate is caught: an allocation that fails
// makes the image go through in smaller bands.
// The float accumulators count every channel of `format` (4 bytes each).
std::size_t estimated_scratch_bytes(const std::string& method_id, int width, int height, PixelFormat format,
                                    const FilterParams& params);

class GpuLanes {
 public:
  // Makes `device` current on this thread. `budget_bytes` bounds what the lanes allocate (their
  // buffers and the methods' estimated scratch). `clock` places the GPU stages on the batch's time
  // line. Throws CudaError when the device cannot be used.
  GpuLanes(const MethodEntry& method, int lanes, int device, std::size_t budget_bytes, const StageRecorder& clock);
  ~GpuLanes();
  GpuLanes(const GpuLanes&) = delete;
  GpuLanes& operator=(const GpuLanes&) = delete;

  int count() const { return static_cast<int>(lanes_.size()); }
  int device() const { return device_; }
  const std::string& device_name() const { return device_name_; }
  std::size_t budget_bytes() const { return budget_; }

  // Device bytes one lane holds for a whole image of `format` (input, output, estimated scratch).
  std::size_t lane_bytes(int width, int rows, PixelFormat format, const FilterParams& params) const;
  // Whether every lane can hold a whole image of this size and format within the budget.
  bool fits_whole(int width, int height, PixelFormat format, const FilterParams& params) const;
  // The most rows (halo not counted) a band may have so that every lane fits the budget; 0 if not
  // even one row does.
  int band_rows_for_budget(int width, PixelFormat format, const FilterParams& params) const;

  bool busy(int lane) const { return lanes_[static_cast<std::size_t>(lane)].busy; }
  // True when the lane is idle or its work has completed (an error is reported by wait()).
  bool finished(int lane) const;
  // Enqueues: upload host_src, run the method, download into host_dst (may be the same buffer).
  // Throws CudaError or std::invalid_argument for what fails now; the lane is then idle again and
  // no copy still reads or writes the host buffers.
  void submit(int lane, const ConstImageView& host_src, const ImageView& host_dst, const FilterParams& params,
              GpuFault fault = GpuFault::None);
  // Waits for the lane's work and says where its stages lay; throws CudaError when it failed.
  LaneStages wait(int lane);
  // Waits for every busy lane, ignoring their errors (after a failure, before bands, at the end).
  void drain();
  // Frees the lanes' device buffers and the methods' scratch (drains first).
  void release_buffers();
  // After a CUDA error: whether the device still works (false after a sticky error such as an
  // illegal address, which ends every later call on this context too: broken_context_reason()).
  bool device_usable();

  // Filters `plan`'s bands of `source` through the lanes, synchronously: each band with its halo
  // uploaded (rows beyond the image from the border rule), filtered, and its rows downloaded into
  // host `dst`, whose row 0 is global row dst_first_row. The stages are recorded in `recorder`.
  void filter_bands(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst, int dst_first_row,
                    const FilterParams& params, StageRecorder& recorder, GpuFault fault = GpuFault::None);

  std::size_t peak_bytes() const { return peak_bytes_; }              // the lanes' own, at their peak
  std::size_t peak_device_in_use() const { return peak_in_use_; }     // whole device, cudaMemGetInfo

 private:
  struct Lane {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, uploaded = nullptr, filtered = nullptr, downloaded = nullptr;
    std::unique_ptr<Method> method;
    DeviceBuffer src, dst;
    std::size_t scratch_estimate = 0;
    bool busy = false;
  };
  double seconds_at(cudaEvent_t event) const;
  void prepare_lane(Lane& lane, int width, int rows, PixelFormat format, const FilterParams& params, GpuFault fault);
  void note_usage();

  std::string method_id_;
  int device_ = 0;
  std::string device_name_;
  std::size_t budget_ = 0;
  std::vector<Lane> lanes_;
  cudaEvent_t origin_ = nullptr;
  double origin_s_ = 0;
  std::size_t peak_bytes_ = 0, peak_in_use_ = 0;
};

}  // namespace gausslab
