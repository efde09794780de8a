#pragma once
// Page-locked host memory (cudaMallocHost): copies from and to it run asynchronously at full speed.
#include <cstddef>

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

  // Reallocates (contents lost) when the size or mapping changes; throws CudaError on failure.
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

 private:
  void* h_data_ = nullptr;
  void* d_data_ = nullptr;
  std::size_t size_bytes_ = 0;
  bool mapped_ = false;
};

}  // namespace gausslab
