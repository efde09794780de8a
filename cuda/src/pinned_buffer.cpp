#include "gausslab/cuda/pinned_buffer.hpp"

#include <cuda_runtime.h>

#include <utility>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : h_data_(std::exchange(other.h_data_, nullptr)),
      d_data_(std::exchange(other.d_data_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    h_data_ = std::exchange(other.h_data_, nullptr);
    d_data_ = std::exchange(other.d_data_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void PinnedBuffer::resize(std::size_t size_bytes, bool mapped) {
  if (size_bytes <= size_bytes_ && mapped == mapped_ && h_data_) return;
  release();
  if (size_bytes == 0) return;
  GAUSSLAB_CUDA_CHECK(cudaHostAlloc(&h_data_, size_bytes, mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
  size_bytes_ = size_bytes;
  mapped_ = mapped;
  if (mapped) GAUSSLAB_CUDA_CHECK(cudaHostGetDevicePointer(&d_data_, h_data_, 0));
}

ImageView PinnedBuffer::image_view(int width, int height, PixelFormat format) {
  const std::size_t pitch_bytes = static_cast<std::size_t>(width) * bytes_per_pixel(format);
  resize(pitch_bytes * static_cast<std::size_t>(height));
  return {h_data_, width, height, pitch_bytes, format};
}

void PinnedBuffer::release() {
  if (h_data_) GAUSSLAB_CUDA_LOG(cudaFreeHost(h_data_));
  h_data_ = nullptr;
  d_data_ = nullptr;
  size_bytes_ = 0;
  mapped_ = false;
}

}  // namespace gausslab
