#pragma once
// Marks the few maths helpers that the CPU build and the CUDA build share, so that nvcc compiles
// them for the device too, without core/ including any CUDA header.
#if defined(__CUDACC__)
#define GAUSSLAB_HD __host__ __device__ __forceinline__
#else
#define GAUSSLAB_HD inline
#endif

// Unrolls the short loop that follows in device code (so that its arrays live in registers); the
// host compiler, which runs the same code in the CPU models, does not know the pragma.
#if defined(__CUDA_ARCH__)
#define GAUSSLAB_UNROLL _Pragma("unroll")
#else
#define GAUSSLAB_UNROLL
#endif
