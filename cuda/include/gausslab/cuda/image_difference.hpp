#pragma once
// A against B over a whole image on the GPU (the figures of core's difference_stats.hpp): a
// grid-stride pass in which each thread accumulates its samples, a tree merge per block in shared
// memory, and one block merging the blocks' partials. Asynchronous on a stream: the caller reads
// the result once its event has completed, so nothing waits inside a frame.
#include <cuda_runtime.h>

#include "gausslab/core/difference_stats.hpp"
#include "gausslab/cuda/device_buffer.hpp"

namespace gausslab {

// The launch shape, shared by the kernels and the CPU model of them (tests/cpu).
struct DifferencePolicy {
  static constexpr int kThreads = 256;    // per block; a power of two for the tree merge
  static constexpr int kMaxBlocks = 1024; // enough to fill an H100 (132 SMs) a few times over
  static_assert((kThreads & (kThreads - 1)) == 0, "the tree merge halves the block");
};

// Blocks of the first pass for n samples.
int difference_blocks(long long samples);

// The first pass's share of thread `thread` of block `block`: samples thread + k * stride.
GAUSSLAB_HD DifferencePartial difference_thread_part(const DifferenceInput& in, int block, int thread, int blocks) {
  DifferencePartial part;
  const long long stride = static_cast<long long>(blocks) * DifferencePolicy::kThreads;
  for (long long i = static_cast<long long>(block) * DifferencePolicy::kThreads + thread; i < in.samples(); i += stride)
    accumulate_sample(part, in, i);
  return part;
}

// One step of the tree merge over a block's partials: thread t < half takes t + half.
GAUSSLAB_HD void difference_tree_step(DifferencePartial* parts, int thread, int half) {
  if (thread < half) merge_into(parts[thread], parts[thread + half]);
}

// Runs the reduction of device operands on `stream`; the result lands in *h_result (pinned host
// memory the caller owns) when `done` (recorded here) completes. `scratch` holds the blocks'
// partials and grows as needed. Throws CudaError when a launch fails.
void image_difference_async(const DifferenceInput& d_input, DifferencePartial* h_result, DeviceBuffer& scratch,
                            cudaEvent_t done, cudaStream_t stream);

}  // namespace gausslab
