#pragma once
// What lets one method instance run on several streams safely (the viewer's frames, an A/B view,
// a benchmark): its runs are kept in order, and nothing a run reads is freed or reallocated while
// the run may still be in flight.
//   RunFence      a completion event per instance: a run on a new stream first waits (on the
//                 device) for the instance's previous run; the host waits for the last run only
//                 before memory that run reads changes.
//   ScratchBuffer device memory of a method (intermediates, planes, weights): grows only, waits for
//                 the last run before it reallocates or frees, and turns a failed allocation into a
//                 CudaOutOfMemory that names the method, what the memory was for, its size and the
//                 memory free.
// GpuMethod owns the fence and calls begin_run/end_run around every run; a method declares its
// buffers as `ScratchBuffer intermediate_{fence()};`.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "gausslab/cuda/device_buffer.hpp"

namespace gausslab {

class RunFence {
 public:
  explicit RunFence(std::string owner) : owner_(std::move(owner)) {}
  ~RunFence();  // waits for the last run (errors logged) and destroys the event
  RunFence(const RunFence&) = delete;
  RunFence& operator=(const RunFence&) = delete;

  // The method id, for messages.
  const std::string& owner() const { return owner_; }

  // Before a run's first command on `stream`: after a run on another stream, `stream` waits for it.
  void begin_run(cudaStream_t stream);
  // After a run's last command (also after a failed one): records its completion on `stream`.
  void end_run(cudaStream_t stream);

  // Blocks the host until the last run has completed (at once when none is in flight).
  void wait_for_last_run() const;
  // The same for destructors: logs a CUDA error instead of throwing it.
  void wait_for_last_run_logged() const noexcept;

 private:
  std::string owner_;
  cudaEvent_t done_ = nullptr;  // recorded after each run
  bool has_run_ = false;
  cudaStream_t last_stream_ = nullptr;
};

class ScratchBuffer {
 public:
  explicit ScratchBuffer(const RunFence& fence) : fence_(fence) {}
  ~ScratchBuffer();  // after the last run
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  // At least `bytes` (contents undefined after it grows). Reallocates only to grow, after the last
  // run. Throws CudaOutOfMemory "<method>: could not allocate 1024.0 MiB of GPU memory for <what>
  // (<free memory>); <advice>" when it does not fit; the old memory is gone then.
  void reserve(std::size_t bytes, const std::string& what,
               const std::string& advice = "use a smaller image or another method");
  // Frees the memory after the last run.
  void release();

  void* data() const { return buffer_.data(); }
  template <class T>
  T* as() const { return buffer_.as<T>(); }
  std::size_t size_bytes() const { return buffer_.size_bytes(); }

 private:
  const RunFence& fence_;
  DeviceBuffer buffer_;
};

}  // namespace gausslab
