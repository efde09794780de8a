#pragma once
// CUDA error handling: throw in normal code, log in destructors; never exit().
#include <cuda_runtime.h>

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

// Throws CudaError naming the call, the file and line, and CUDA's own description.
void cuda_throw(cudaError_t code, const char* expression, const char* file, int line);
// Prints the same to stderr instead (for destructors).
void cuda_log(cudaError_t code, const char* expression, const char* file, int line);
// True when GAUSSLAB_CUDA_SYNC=1: every launch check also synchronises, to pin a fault on its kernel.
bool cuda_sync_after_launch();

// True for the errors that mean "no usable CUDA device here" (no device, no or old driver).
bool is_no_device_error(cudaError_t code);

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

// Right after every kernel launch: launch errors now, execution errors too under GAUSSLAB_CUDA_SYNC=1.
#define GAUSSLAB_CUDA_CHECK_LAUNCH(name)                                                   \
  do {                                                                                     \
    GAUSSLAB_CUDA_CHECK(cudaGetLastError());                                               \
    if (::gausslab::cuda_sync_after_launch()) GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
