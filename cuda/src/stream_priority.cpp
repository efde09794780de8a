#include "gausslab/cuda/stream_priority.hpp"

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

cudaStream_t create_stream_with_priority(StreamPriority priority, unsigned flags) {
  int least = 0, greatest = 0;
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t stream = nullptr;
  GAUSSLAB_CUDA_CHECK(
      cudaStreamCreateWithPriority(&stream, flags, priority == StreamPriority::Greatest ? greatest : least));
  return stream;
}

}  // namespace gausslab
