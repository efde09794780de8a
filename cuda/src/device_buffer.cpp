#include "gausslab/cuda/device_buffer.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/fault_injection.hpp"

namespace gausslab {

namespace {

// Turns a failed allocation into the exception the callers expect; the runtime's last error is
// cleared, so that the next launch check does not blame an innocent kernel for it.
[[noreturn]] void allocation_failed(cudaError_t code, std::size_t bytes, const char* call) {
  (void)cudaGetLastError();
  const std::string what = std::string(call) + " of " + describe_bytes(bytes) + " failed: " + cudaGetErrorName(code) +
                           " (" + cudaGetErrorString(code) + ")";
  if (code == cudaErrorMemoryAllocation) throw CudaOutOfMemory(what + "; " + describe_free_device_memory(), bytes);
  if (is_no_device_error(code)) throw CudaUnavailable(what);
  throw CudaError(code, what);
}

void allocate(void** d_data, std::size_t bytes) {
  if (injected_fault() == InjectedFault::OutOfMemory) allocation_failed(cudaErrorMemoryAllocation, bytes, "cudaMalloc (injected fault)");
  if (const cudaError_t code = cudaMalloc(d_data, bytes); code != cudaSuccess) {
    *d_data = nullptr;
    allocation_failed(code, bytes, "cudaMalloc");
  }
}

void allocate_pitched(void** d_data, std::size_t* pitch_bytes, std::size_t row_bytes, std::size_t rows) {
  if (injected_fault() == InjectedFault::OutOfMemory)
    allocation_failed(cudaErrorMemoryAllocation, row_bytes * rows, "cudaMallocPitch (injected fault)");
  if (const cudaError_t code = cudaMallocPitch(d_data, pitch_bytes, row_bytes, rows); code != cudaSuccess) {
    *d_data = nullptr;
    allocation_failed(code, row_bytes * rows, "cudaMallocPitch");
  }
}

}  // namespace

std::string describe_bytes(std::size_t bytes) {
  char text[32];
  if (bytes < (std::size_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::string describe_free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return "the free device memory is unknown";
  }
  char text[96];
  std::snprintf(text, sizeof text, "%.2f of %.2f GiB of device memory are free",
                static_cast<double>(free_bytes) / (1 << 30), static_cast<double>(total_bytes) / (1 << 30));
  return text;
}

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
    allocate(&d_data_, size_bytes);
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
      capacity_rows_(std::exchange(other.capacity_rows_, 0)),
      format_(other.format_) {}

DeviceImage& DeviceImage::operator=(DeviceImage&& other) noexcept {
  if (this != &other) {
    release();
    d_data_ = std::exchange(other.d_data_, nullptr);
    width_ = std::exchange(other.width_, 0);
    height_ = std::exchange(other.height_, 0);
    pitch_bytes_ = std::exchange(other.pitch_bytes_, 0);
    capacity_rows_ = std::exchange(other.capacity_rows_, 0);
    format_ = other.format_;
  }
  return *this;
}

void DeviceImage::resize(int width, int height, PixelFormat format) {
  if (d_data_ && width == width_ && height == height_ && format == format_) return;
  if (width < 1 || height < 1) throw std::invalid_argument("DeviceImage: size must be at least 1×1");
  release();
  allocate_pitched(&d_data_, &pitch_bytes_, static_cast<std::size_t>(width) * bytes_per_pixel(format),
                   static_cast<std::size_t>(height));
  width_ = width;
  height_ = height;
  capacity_rows_ = height;
  format_ = format;
}

bool DeviceImage::fits(int width, int height, PixelFormat format) const {
  const std::size_t row_bytes = static_cast<std::size_t>(std::max(width, 0)) * bytes_per_pixel(format);
  return d_data_ && width >= 1 && height >= 1 && row_bytes <= pitch_bytes_ && height <= capacity_rows_;
}

DeviceImage DeviceImage::fit(int width, int height, PixelFormat format) {
  if (width < 1 || height < 1) throw std::invalid_argument("DeviceImage: size must be at least 1×1");
  if (fits(width, height, format)) {
    width_ = width;
    height_ = height;
    format_ = format;
    return {};
  }
  const std::size_t row_bytes = static_cast<std::size_t>(width) * bytes_per_pixel(format);
  const std::size_t rows = static_cast<std::size_t>(height);
  const bool wider = !d_data_ || row_bytes > pitch_bytes_;
  const bool taller = !d_data_ || height > capacity_rows_;
  const std::size_t room_row_bytes = wider ? row_bytes + row_bytes / 4 : pitch_bytes_;
  const std::size_t room_rows = taller ? rows + rows / 4 : static_cast<std::size_t>(capacity_rows_);
  DeviceImage outgrown = std::move(*this);  // this one is empty now
  allocate_pitched(&d_data_, &pitch_bytes_, room_row_bytes, room_rows);
  width_ = width;
  height_ = height;
  capacity_rows_ = static_cast<int>(std::min<std::size_t>(room_rows, std::numeric_limits<int>::max()));
  format_ = format;
  return outgrown;
}

void DeviceImage::release() {
  if (d_data_) GAUSSLAB_CUDA_LOG(cudaFree(d_data_));
  d_data_ = nullptr;
  width_ = height_ = capacity_rows_ = 0;
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
