#pragma once
// A method's filter weights on their way to the device. prepare() sets them on the host (in pinned
// memory); the run that follows copies them on its own stream, before its kernels, so a prepare()
// for the next problem never changes weights that a run still in flight reads, and two instances
// with different sigmas can alternate on one stream (the viewer's A/B view). GpuMethod does the
// copy for every method (upload_if_changed); a method only calls set() and reads device().
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/cuda/run_fence.hpp"

namespace gausslab {

class DeviceWeights {
 public:
  explicit DeviceWeights(const RunFence& fence) : device_(fence) {}
  ~DeviceWeights();  // waits for a copy still reading the host memory (errors logged)
  DeviceWeights(const DeviceWeights&) = delete;
  DeviceWeights& operator=(const DeviceWeights&) = delete;

  // Device room for `count` floats up front (a method's longest kernel), so that set() never has
  // to reallocate, and so never waits for a run in flight.
  void reserve(std::size_t count);
  // The weights the next runs use, copied to device() by the next upload_if_changed. Waits only
  // until the previous copy has left the host memory. `what` names them in an out-of-memory message.
  void set(const std::vector<float>& weights, const std::string& what = "the weights");
  // The same for a method that copies them itself with upload_to_symbol (no device buffer).
  void set_for_symbol(const std::vector<float>& weights);

  // Copies the weights into device() on `stream` when set() changed them since the last copy.
  void upload_if_changed(cudaStream_t stream);
  // Copies the weights into a __constant__ array on `stream` (naive_2d's shared constant bank).
  void upload_to_symbol(const void* symbol, cudaStream_t stream);

  const float* device() const { return device_.as<float>(); }
  std::size_t count() const { return count_; }
  std::size_t size_bytes() const { return count_ * sizeof(float); }

 private:
  // Room for `weights` in the pinned host buffer, once the last copy out of it has executed.
  void write_host(const std::vector<float>& weights);
  void copy_enqueued(cudaStream_t stream);

  PinnedBuffer host_;
  ScratchBuffer device_;
  std::size_t count_ = 0;
  bool changed_ = false;  // the host holds weights that the device buffer does not
  cudaEvent_t copied_ = nullptr;
  bool copy_pending_ = false;
};

}  // namespace gausslab
