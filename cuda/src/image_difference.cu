// The A-against-B reduction (see the header). Per-thread and per-block steps are the GAUSSLAB_HD
// functions of the header, so the CPU-model test runs exactly this code's arithmetic.
#include <algorithm>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/image_difference.hpp"

namespace gausslab {

namespace {

// Merges the block's partials in shared memory; thread 0 ends with the block's sum.
__device__ void merge_block(DifferencePartial* parts) {
  for (int half = DifferencePolicy::kThreads / 2; half > 0; half /= 2) {
    __syncthreads();
    difference_tree_step(parts, static_cast<int>(threadIdx.x), half);
  }
}

__global__ void __launch_bounds__(DifferencePolicy::kThreads)
    DifferencePartialsKernel(DifferenceInput in, DifferencePartial* d_block_parts) {
  __shared__ alignas(DifferencePartial) unsigned char storage[sizeof(DifferencePartial) * DifferencePolicy::kThreads];
  DifferencePartial* parts = reinterpret_cast<DifferencePartial*>(storage);  // raw: no shared-memory constructors
  parts[threadIdx.x] = difference_thread_part(in, static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x),
                                              static_cast<int>(gridDim.x));
  merge_block(parts);
  if (threadIdx.x == 0) d_block_parts[blockIdx.x] = parts[0];
}

// One block: thread t merges block partials t, t + kThreads, ... in order, then the tree.
__global__ void __launch_bounds__(DifferencePolicy::kThreads)
    DifferenceMergeKernel(const DifferencePartial* d_block_parts, int blocks, DifferencePartial* d_total) {
  __shared__ alignas(DifferencePartial) unsigned char storage[sizeof(DifferencePartial) * DifferencePolicy::kThreads];
  DifferencePartial* parts = reinterpret_cast<DifferencePartial*>(storage);
  DifferencePartial mine;
  for (int b = static_cast<int>(threadIdx.x); b < blocks; b += DifferencePolicy::kThreads)
    merge_into(mine, d_block_parts[b]);
  parts[threadIdx.x] = mine;
  merge_block(parts);
  if (threadIdx.x == 0) *d_total = parts[0];
}

}  // namespace

int difference_blocks(long long samples) {
  const long long needed = (samples + DifferencePolicy::kThreads - 1) / DifferencePolicy::kThreads;
  return static_cast<int>(std::clamp<long long>(needed, 1, DifferencePolicy::kMaxBlocks));
}

void image_difference_async(const DifferenceInput& d_input, DifferencePartial* h_result, DeviceBuffer& scratch,
                            cudaEvent_t done, cudaStream_t stream) {
  const int blocks = difference_blocks(d_input.samples());
  scratch.resize(sizeof(DifferencePartial) * static_cast<std::size_t>(blocks + 1));
  DifferencePartial* d_parts = scratch.as<DifferencePartial>();
  DifferencePartialsKernel<<<blocks, DifferencePolicy::kThreads, 0, stream>>>(d_input, d_parts);
  GAUSSLAB_CUDA_CHECK_LAUNCH("DifferencePartialsKernel", stream);
  DifferenceMergeKernel<<<1, DifferencePolicy::kThreads, 0, stream>>>(d_parts, blocks, d_parts + blocks);
  GAUSSLAB_CUDA_CHECK_LAUNCH("DifferenceMergeKernel", stream);
  GAUSSLAB_CUDA_CHECK(
      cudaMemcpyAsync(h_result, d_parts + blocks, sizeof(DifferencePartial), cudaMemcpyDeviceToHost, stream));
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(done, stream));
}

}  // namespace gausslab
