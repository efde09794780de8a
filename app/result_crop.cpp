#include "result_crop.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"

namespace gausslab {

ResultCrop::~ResultCrop() {
  if (done_) {
    GAUSSLAB_CUDA_LOG(cudaEventSynchronize(done_));
    GAUSSLAB_CUDA_LOG(cudaEventDestroy(done_));
  }
  if (h_pinned_) GAUSSLAB_CUDA_LOG(cudaFreeHost(h_pinned_));
}

ResultPipeline::ResultHook ResultCrop::hook(const Rect& rect) {
  return [this, rect](const ConstImageView& result, bool on_device, cudaStream_t stream) {
    rect_ = rect;
    copy(result, on_device, stream);
  };
}

void ResultCrop::ensure_pinned(std::size_t size_bytes) {
  if (size_bytes <= pinned_bytes_) return;
  if (h_pinned_) GAUSSLAB_CUDA_CHECK(cudaFreeHost(h_pinned_));
  h_pinned_ = nullptr;
  pinned_bytes_ = 0;
  GAUSSLAB_CUDA_CHECK(cudaMallocHost(&h_pinned_, size_bytes));
  pinned_bytes_ = size_bytes;
}

void ResultCrop::copy(const ConstImageView& result, bool on_device, cudaStream_t stream) {
  if (state_ == State::InFlight) return;  // the one on its way is collected first
  if (rect_.x < 0 || rect_.y < 0 || rect_.width < 1 || rect_.height < 1 || rect_.x + rect_.width > result.width ||
      rect_.y + rect_.height > result.height)
    throw std::invalid_argument("the accuracy crop " + std::to_string(rect_.width) + "x" +
                                std::to_string(rect_.height) + " at " + std::to_string(rect_.x) + "," +
                                std::to_string(rect_.y) + " lies outside the " + std::to_string(result.width) + "x" +
                                std::to_string(result.height) + " result");
  const std::size_t row_bytes = static_cast<std::size_t>(rect_.width) * sizeof(Rgba8);
  const ConstImageView inside{result.row<Rgba8>(rect_.y) + rect_.x, rect_.width, rect_.height, result.pitch_bytes,
                              PixelFormat::Rgba8};
  if (!on_device) {
    image_ = copy_to_image<Rgba8>(inside);
    state_ = State::Ready;
    return;
  }
  ensure_pinned(row_bytes * static_cast<std::size_t>(rect_.height));
  if (!done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  const ImageView pinned{h_pinned_, rect_.width, rect_.height, row_bytes, PixelFormat::Rgba8};
  copy_image_async(inside, pinned, cudaMemcpyDeviceToHost, stream);
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_, stream));
  state_ = State::InFlight;
}

std::optional<ImageRgba8> ResultCrop::take(bool wait) {
  if (state_ == State::InFlight) {
    const cudaError_t state = wait ? cudaEventSynchronize(done_) : cudaEventQuery(done_);
    if (state == cudaErrorNotReady) return std::nullopt;
    if (state != cudaSuccess) {
      state_ = State::Empty;
      GAUSSLAB_CUDA_CHECK(state);
    }
    const std::size_t row_bytes = static_cast<std::size_t>(rect_.width) * sizeof(Rgba8);
    image_ = copy_to_image<Rgba8>(ConstImageView{h_pinned_, rect_.width, rect_.height, row_bytes, PixelFormat::Rgba8});
    state_ = State::Ready;
  }
  if (state_ != State::Ready) return std::nullopt;
  state_ = State::Empty;
  return std::move(image_);
}

}  // namespace gausslab
