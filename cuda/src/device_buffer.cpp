#include "gausslab/cuda/device_buffer.hpp"

#include <stdexcept>
#include <utility>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : d_data_(std::exchange(other.d_data_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)),
      capacity_bytes_(std::exchange(other.capacity_bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    d_data_ = std::exchange(other.d_data_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
    capacity_bytes_ = std::exchange(other.capacity_bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::resize(std::size_t size_bytes) {
  if (size_bytes > capacity_bytes_) {
    release();
    GAUSSLAB_CUDA_CHECK(cudaMalloc(&d_data_, size_bytes));
    capacity_bytes_ = size_bytes;
  }
  size_bytes_ = size_bytes;
}

void DeviceBuffer::release() {
  if (d_data_) GAUSSLAB_CUDA_LOG(cudaFree(d_data_));
  d_data_ = nullptr;
  size_bytes_ = capacity_bytes_ = 0;
}

DeviceImage::~DeviceImage() { release(); }

DeviceImage::DeviceImage(DeviceImage&& other) noexcept
    : d_data_(std::exchange(other.d_data_, nullptr)),
      width_(std::exchange(other.width_, 0)),
      height_(std::exchange(other.height_, 0)),
      pitch_bytes_(std::exchange(other.pitch_bytes_, 0)),
      format_(other.format_) {}

DeviceImage& DeviceImage::operator=(DeviceImage&& other) noexcept {
  if (this != &other) {
    release();
    d_data_ = std::exchange(other.d_data_, nullptr);
    width_ = std::exchange(other.width_, 0);
    height_ = std::exchange(other.height_, 0);
    pitch_bytes_ = std::exchange(other.pitch_bytes_, 0);
    format_ = other.format_;
  }
  return *this;
}

void DeviceImage::resize(int width, int height, PixelFormat format) {
  if (d_data_ && width == width_ && height == height_ && format == format_) return;
  if (width < 1 || height < 1) throw std::invalid_argument("DeviceImage: size must be at least 1×1");
  release();
  GAUSSLAB_CUDA_CHECK(cudaMallocPitch(&d_data_, &pitch_bytes_, static_cast<std::size_t>(width) * bytes_per_pixel(format),
                                      static_cast<std::size_t>(height)));
  width_ = width;
  height_ = height;
  format_ = format;
}

void DeviceImage::release() {
  if (d_data_) GAUSSLAB_CUDA_LOG(cudaFree(d_data_));
  d_data_ = nullptr;
  width_ = height_ = 0;
  pitch_bytes_ = 0;
}

void DeviceImage::upload(const ConstImageView& host, cudaStream_t stream) {
  resize(host.width, host.height, host.format);
  copy_image_async(host, view(), cudaMemcpyHostToDevice, stream);
}

void DeviceImage::download(const ImageView& host, cudaStream_t stream) const {
  copy_image_async(view(), host, cudaMemcpyDeviceToHost, stream);
}

void copy_image_async(const ConstImageView& src, const ImageView& dst, cudaMemcpyKind kind, cudaStream_t stream) {
  if (src.width != dst.width || src.height != dst.height || src.format != dst.format)
    throw std::invalid_argument("copy_image_async: the images differ in size or format");
  GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, dst.pitch_bytes, src.data, src.pitch_bytes,
                                        static_cast<std::size_t>(src.width) * bytes_per_pixel(src.format),
                                        static_cast<std::size_t>(src.height), kind, stream));
}

}  // namespace gausslab
