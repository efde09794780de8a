#pragma once
// CUDA errors: thrown in normal code, logged in destructors, never exit(). The exception types say
// what a caller can do about the failure:
//   CudaUnavailable  no usable CUDA device: the GPU methods cannot run at all (use a CPU method);
//   CudaOutOfMemory  an allocation did not fit; the message names what needed how much and what is
//                    free: a smaller problem or another method may still run;
//   CudaError        anything else (a kernel that did not launch, a cuFFT failure, ...).
// After any of them, broken_context_reason() says whether other GPU methods can still run.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gausslab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

class CudaOutOfMemory : public CudaError {
 public:
  CudaOutOfMemory(const std::string& message, std::size_t requested_bytes)
      : CudaError(cudaErrorMemoryAllocation, message), requested_bytes_(requested_bytes) {}
  std::size_t requested_bytes() const { return requested_bytes_; }

 private:
  std::size_t requested_bytes_;
};

class CudaUnavailable : public CudaError {
 public:
  explicit CudaUnavailable(const std::string& reason) : CudaError(cudaErrorNoDevice, reason) {}
};

// Throws CudaError naming the call, the file and line, and CUDA's own description
// (CudaOutOfMemory for cudaErrorMemoryAllocation, CudaUnavailable for the no-device errors).
[[noreturn]] void cuda_throw(cudaError_t code, const char* expression, const char* file, int line);
// Prints the same to stderr instead (for destructors).
void cuda_log(cudaError_t code, const char* expression, const char* file, int line);

// Right after a kernel launch on `stream`: throws CudaError naming `kernel` when it did not launch
// (also when a test injects a launch failure, see fault_injection.hpp). Under GAUSSLAB_CUDA_SYNC=1
// it also waits for `stream` (never the whole device), so a fault in the kernel is reported here,
// naming it.
void check_launch(const char* kernel, cudaStream_t stream, const char* file, int line);
// True when GAUSSLAB_CUDA_SYNC=1 (read once).
bool cuda_sync_after_launch();

// True for the errors that mean "no usable CUDA device here" (no device, no or old driver).
bool is_no_device_error(cudaError_t code);

// After a failed CUDA call: "" when the context still works (the error was not sticky: an
// allocation or a launch that did not start), else why every later CUDA call of this process
// fails (a fault inside a kernel). Clears a non-sticky error; waits for the device, so call it
// after a failure, not in a frame.
std::string broken_context_reason();

}  // namespace gausslab

#define GAUSSLAB_CUDA_CHECK(expr)                                              \
  do {                                                                         \
    const cudaError_t gausslab_status_ = (expr);                               \
    if (gausslab_status_ != cudaSuccess)                                       \
      ::gausslab::cuda_throw(gausslab_status_, #expr, __FILE__, __LINE__);     \
  } while (0)

#define GAUSSLAB_CUDA_LOG(expr)                                                \
  do {                                                                         \
    const cudaError_t gausslab_status_ = (expr);                               \
    if (gausslab_status_ != cudaSuccess)                                       \
      ::gausslab::cuda_log(gausslab_status_, #expr, __FILE__, __LINE__);       \
  } while (0)

// Right after every kernel launch: GAUSSLAB_CUDA_CHECK_LAUNCH("MyKernel", stream).
#define GAUSSLAB_CUDA_CHECK_LAUNCH(kernel, stream) ::gausslab::check_launch(kernel, stream, __FILE__, __LINE__)
