#include "gausslab/cuda/device_weights.hpp"

#include <algorithm>
#include <cstring>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

DeviceWeights::~DeviceWeights() {
  if (copy_pending_) GAUSSLAB_CUDA_LOG(cudaEventSynchronize(copied_));
  if (copied_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(copied_));
}

void DeviceWeights::reserve(std::size_t count) { device_.reserve(count * sizeof(float), "the weights"); }

void DeviceWeights::write_host(const std::vector<float>& weights) {
  if (copy_pending_) {
    GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(copied_));
    copy_pending_ = false;
  }
  host_.resize(std::max<std::size_t>(weights.size(), 1) * sizeof(float));
  std::memcpy(host_.data(), weights.data(), weights.size() * sizeof(float));
  count_ = weights.size();
}

void DeviceWeights::set(const std::vector<float>& weights, const std::string& what) {
  const bool same = !changed_ && weights.size() == count_ && device_.size_bytes() >= size_bytes() &&
                    std::equal(weights.begin(), weights.end(), host_.as<const float>());
  if (same) return;
  // Before the host copy changes: room on the device (after the last run when it must grow).
  device_.reserve(weights.size() * sizeof(float), what);
  write_host(weights);
  changed_ = true;
}

void DeviceWeights::set_for_symbol(const std::vector<float>& weights) {
  write_host(weights);
  changed_ = false;  // nothing for upload_if_changed to do
}

void DeviceWeights::upload_if_changed(cudaStream_t stream) {
  if (!changed_) return;
  GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(device_.data(), host_.data(), size_bytes(), cudaMemcpyHostToDevice, stream));
  copy_enqueued(stream);
  changed_ = false;
}

void DeviceWeights::upload_to_symbol(const void* symbol, cudaStream_t stream) {
  GAUSSLAB_CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, host_.data(), size_bytes(), 0, cudaMemcpyHostToDevice, stream));
  copy_enqueued(stream);
}

void DeviceWeights::copy_enqueued(cudaStream_t stream) {
  if (!copied_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(copied_, stream));
  copy_pending_ = true;
}

}  // namespace gausslab
