#pragma once
// Streams with a scheduling priority. The block scheduler dispatches the blocks of a waiting kernel
// on a higher-priority stream before further blocks of a lower-priority one (running blocks are not
// preempted), so the viewer's frame stream gets in between the blocks of a worker's long kernels
// (the numbers worker, compare all) instead of queueing behind their whole grids.
#include <cuda_runtime.h>

namespace gausslab {

enum class StreamPriority { Greatest, Least };

// cudaStreamCreateWithPriority with `flags` (cudaStreamDefault, cudaStreamNonBlocking) and the
// device's greatest or least priority (cudaDeviceGetStreamPriorityRange: numerically lower is
// greater). Throws CudaError when either call fails.
cudaStream_t create_stream_with_priority(StreamPriority priority, unsigned flags);

}  // namespace gausslab
