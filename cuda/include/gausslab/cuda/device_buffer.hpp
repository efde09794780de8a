#pragma once
// Owning device memory: a flat buffer and a pitched image. Every allocation goes through the fault
// switch (fault_injection.hpp); one that does not fit throws CudaOutOfMemory naming its size and
// the memory free, and leaves no error behind for the next CUDA call to report.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "gausslab/core/image.hpp"

namespace gausslab {

// cudaMalloc'd bytes, freed on destruction; grows only (resize keeps capacity when smaller).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size_bytes) { resize(size_bytes); }
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  // Ensures at least size_bytes; contents are undefined after a reallocation (the old memory is
  // freed first: the caller makes sure no kernel still uses it, see ScratchBuffer).
  void resize(std::size_t size_bytes);
  void release();
  void* data() const { return d_data_; }
  template <class T>
  T* as() const { return static_cast<T*>(d_data_); }
  std::size_t size_bytes() const { return size_bytes_; }
  std::size_t capacity_bytes() const { return capacity_bytes_; }

 private:
  void* d_data_ = nullptr;
  std::size_t size_bytes_ = 0;
  std::size_t capacity_bytes_ = 0;
};

// A pitched device image (cudaMallocPitch: rows aligned for coalescing and texture binding).
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height, PixelFormat format) { resize(width, height, format); }
  ~DeviceImage();
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;
  DeviceImage(DeviceImage&& other) noexcept;
  DeviceImage& operator=(DeviceImage&& other) noexcept;

  // Reallocates only when the size or format changes.
  void resize(int width, int height, PixelFormat format);
  // Like resize, but keeps the allocation while the new image fits in it (rows no wider than its
  // pitch, no more rows than it holds). A new one only grows: the side that did not fit gets the new
  // size and a quarter more as room, the other keeps the old allocation's, so an image whose shape
  // alternates (wide bands, tall squares) stops reallocating. The old allocation is handed back
  // (empty when it was kept), for the caller to free when it suits: for buffers on a worker thread (a
  // sliced run's tile), where freeing device memory (cudaFree) waits for the whole device and holds
  // the driver's locks, so the frame's CUDA calls on another thread would wait with it.
  DeviceImage fit(int width, int height, PixelFormat format);
  // Whether fit() would keep the allocation (no free, no new allocation).
  bool fits(int width, int height, PixelFormat format) const;
  // Rows the allocation holds (at least height()).
  int capacity_rows() const { return capacity_rows_; }
  void release();

  ImageView view() const { return {d_data_, width_, height_, pitch_bytes_, format_}; }
  int width() const { return width_; }
  int height() const { return height_; }
  PixelFormat format() const { return format_; }
  bool empty() const { return d_data_ == nullptr; }

  // Copies a host view of the same size and format in (or out), asynchronously on `stream`.
  // Pageable host memory makes these effectively synchronous; that is fine outside the frame.
  void upload(const ConstImageView& host, cudaStream_t stream = nullptr);
  void download(const ImageView& host, cudaStream_t stream = nullptr) const;

 private:
  void* d_data_ = nullptr;
  int width_ = 0, height_ = 0;
  std::size_t pitch_bytes_ = 0;
  int capacity_rows_ = 0;  // of the allocation: resize allocates exactly height, fit more
  PixelFormat format_ = PixelFormat::Rgba8;
};

// "3.21 of 79.18 GiB of device memory are free" (cudaMemGetInfo), for out-of-memory messages.
std::string describe_free_device_memory();
// "15.7 KiB" below a MiB, "1024.0 MiB" above: a size in out-of-memory messages.
std::string describe_bytes(std::size_t bytes);

// Copies between any two views of the same size and format (device↔device, host↔device).
void copy_image_async(const ConstImageView& src, const ImageView& dst, cudaMemcpyKind kind,
                      cudaStream_t stream);

}  // namespace gausslab
