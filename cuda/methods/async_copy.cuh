#pragma once
// Copies from global into shared memory that do not pass through registers (cp.async, sm_80 and
// later): a block's whole fill is in flight at once, so a fill's latency is paid once rather than
// once per loop trip, and the registers stay free. Before sm_80 a plain load and store. Every copy
// is complete after wait_async_copies() (then __syncthreads() for the other threads' copies).

// Copies Bytes (4, 8 or 16) bytes; both addresses aligned to Bytes.
template <int Bytes>
__device__ __forceinline__ void copy_async(void* shared_dst, const void* global_src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  // L2::128B: the L2 fetches the whole 128-byte line from DRAM at once (H100, 4096²: separable_fused
  // F32 7×7 0.0607 -> 0.0599 ms, RGBA8 sigma 0.5 0.103 -> 0.1015 ms).
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;\n" ::"r"(dst), "l"(global_src), "n"(Bytes)
               : "memory");
#else
  if constexpr (Bytes == 4)
    *static_cast<unsigned*>(shared_dst) = __ldg(static_cast<const unsigned*>(global_src));
  else if constexpr (Bytes == 8)
    *static_cast<uint2*>(shared_dst) = __ldg(static_cast<const uint2*>(global_src));
  else
    *static_cast<uint4*>(shared_dst) = __ldg(static_cast<const uint4*>(global_src));
#endif
}

// A 4-byte word (separable_fused's fill).
__device__ __forceinline__ void copy_word_async(void* shared_dst, const void* global_src) {
  copy_async<4>(shared_dst, global_src);
}

__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Closes the group of copies this thread issued since the last commit (a fill in parts).
__device__ __forceinline__ void commit_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits, leaving at most `Pending` of this thread's latest committed groups in flight: the older
// groups' copies are then complete (visible to the thread; to its warp after __syncwarp()).
template <int Pending>
__device__ __forceinline__ void wait_async_copies_leaving() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}
