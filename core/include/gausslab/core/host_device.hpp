#pragma once
// Marks the few maths helpers that the CPU build and the CUDA build share, so that nvcc compiles
// them for the device too, without core/ including any CUDA header.
#if defined(__CUDACC__)
#define GAUSSLAB_HD __host__ __device__ __forceinline__
#else
#define GAUSSLAB_HD inline
#endif
