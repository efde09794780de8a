#include "gausslab/cuda/run_fence.hpp"


#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/fault_injection.hpp"

namespace gausslab {

RunFence::~RunFence() {
  wait_for_last_run_logged();
  if (done_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(done_));
}

void RunFence::begin_run(cudaStream_t stream) {
  if (!done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  if (has_run_ && stream != last_stream_) GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, done_, 0));
}

void RunFence::end_run(cudaStream_t stream) {
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_, stream));
  has_run_ = true;
  last_stream_ = stream;
}

void RunFence::wait_for_last_run() const {
  if (has_run_) GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_));
}

void RunFence::wait_for_last_run_logged() const noexcept {
  if (has_run_) GAUSSLAB_CUDA_LOG(cudaEventSynchronize(done_));
}

ScratchBuffer::~ScratchBuffer() {
  if (buffer_.data()) fence_.wait_for_last_run_logged();
}

void ScratchBuffer::reserve(std::size_t bytes, const std::string& what, const std::string& advice) {
  if (bytes > buffer_.capacity_bytes()) fence_.wait_for_last_run();  // it reallocates: no run may read it
  try {
    buffer_.resize(bytes);
  } catch (const CudaOutOfMemory&) {
    const std::string memory = injected_fault() == InjectedFault::OutOfMemory
                                   ? "out of memory injected by GAUSSLAB_INJECT_FAULT"
                                   : describe_free_device_memory();
    throw CudaOutOfMemory(fence_.owner() + ": could not allocate " + describe_bytes(bytes) + " of GPU memory for " +
                              what + " (" + memory + "); " + advice,
                          bytes);
  }
}

void ScratchBuffer::release() {
  if (!buffer_.data()) return;
  fence_.wait_for_last_run();
  buffer_.release();
}

}  // namespace gausslab
