#pragma once
// Programmatic dependent launch (compute capability 9.0 on): a kernel that reads what the kernel
// before it in the stream wrote is launched with launch_after_previous, and waits at the top for that
// kernel's grid (wait_for_previous_grid); the kernel before lets it launch early
// (allow_next_grid). The dependent grid's launch and block scheduling then overlap the last wave of
// the one before instead of following its completion: a chain of short kernels (multires: four of
// 20 to 50 µs at 4096² on an H100) loses less time between them. The wait holds until the previous
// grid has completed and its writes are visible, so nothing a kernel reads changes: before its wait a
// kernel must neither read what the previous one writes nor write what it reads.
// Where the device is older, or the stream records an event between the kernels (a stage timer),
// the launch is an ordinary one and both calls do nothing.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace gausslab {

__device__ inline void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ inline void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, shared, stream>>>(args...), allowed to start before the previous kernel in
// the stream has finished when overlap is true (the caller checks the device: compute capability 9.0
// or later). A failed launch is left for cudaGetLastError, as after <<<>>>: follow it with
// GAUSSLAB_CUDA_CHECK_LAUNCH.
template <class... Params, class... Args>
void launch_after_previous(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block,
                                  std::size_t shared, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = overlap ? 1 : 0;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace gausslab
