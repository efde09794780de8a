#pragma once
// Page-locked host memory (cudaHostAlloc): the only kind of host memory an asynchronous copy to or
// from the device really overlaps with, and the fastest to copy. The project's one pinned buffer:
// the methods' weights, the viewer's staging path, the benchmark's end-to-end copies, the sequence
// engine's read-backs.
#include <cstddef>

#include "gausslab/core/image.hpp"

namespace gausslab {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t size_bytes) { resize(size_bytes); }
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;

  // At least size_bytes: reallocates (contents lost) only to grow or when the mapping changes, so a
  // changing size does not cost a cudaHostAlloc every time (the caller makes sure no copy still
  // uses the old memory). Throws CudaError (CudaOutOfMemory when the host has no room) on failure.
  // Mapped memory is also addressable by kernels (device_pointer()): a kernel's writes reach the
  // host without a copy in the stream, and are visible once the kernel has completed.
  void resize(std::size_t size_bytes, bool mapped = false);
  void release();
  void* data() const { return h_data_; }
  // The device address of mapped memory (null for unmapped).
  void* device_pointer() const { return d_data_; }
  template <class T>
  T* as() const { return static_cast<T*>(h_data_); }
  std::size_t size_bytes() const { return size_bytes_; }

  // The buffer as a tightly packed width × height image (grown to hold it first).
  ImageView image_view(int width, int height, PixelFormat format);

 private:
  void* h_data_ = nullptr;
  void* d_data_ = nullptr;
  std::size_t size_bytes_ = 0;
  bool mapped_ = false;
};

}  // namespace gausslab
