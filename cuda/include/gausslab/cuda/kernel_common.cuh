#pragma once
// Device helpers shared by the GPU methods: pixel load/store per format, float4 arithmetic,
// launch geometry. Only included by .cu files.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "gausslab/core/border.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

// ---- float4 arithmetic (RGBA is filtered as four independent channels) -------------------------
__host__ __device__ __forceinline__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__host__ __device__ __forceinline__ float4 operator*(float s, float4 a) {
  return make_float4(s * a.x, s * a.y, s * a.z, s * a.w);
}
__host__ __device__ __forceinline__ float4& operator+=(float4& a, float4 b) {
  a = a + b;
  return a;
}
// a + s * b, fused per channel.
__host__ __device__ __forceinline__ float4 fma4(float s, float4 b, float4 a) {
  return make_float4(fmaf(s, b.x, a.x), fmaf(s, b.y, a.y), fmaf(s, b.z, a.z), fmaf(s, b.w, a.w));
}
__host__ __device__ __forceinline__ float fma4(float s, float b, float a) { return fmaf(s, b, a); }

// ---- pixel formats ---------------------------------------------------------------------------
// Storage type S as the kernels read and write it, Accum the float type they compute in.
template <PixelFormat F>
struct PixelTraits;

template <>
struct PixelTraits<PixelFormat::Rgba8> {
  using Storage = uchar4;
  using Accum = float4;
  __host__ __device__ __forceinline__ static Accum zero() { return make_float4(0.f, 0.f, 0.f, 0.f); }
  __host__ __device__ __forceinline__ static Accum load(Storage p) {
    return make_float4(p.x, p.y, p.z, p.w);
  }
  __host__ __device__ __forceinline__ static Storage store(Accum v) {
    return make_uchar4(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z), to_unorm8(v.w));
  }
};

template <>
struct PixelTraits<PixelFormat::F32> {
  using Storage = float;
  using Accum = float;
  __host__ __device__ __forceinline__ static Accum zero() { return 0.f; }
  __host__ __device__ __forceinline__ static Accum load(Storage p) { return p; }
  __host__ __device__ __forceinline__ static Storage store(Accum v) { return v; }
};

// Host-side dispatch on the runtime format: calls fn(FormatTag<F>{}); inside a generic lambda,
// `constexpr PixelFormat F = decltype(tag)::value;` recovers the format at compile time.
template <PixelFormat F>
using FormatTag = std::integral_constant<PixelFormat, F>;

template <class Fn>
void dispatch_format(PixelFormat format, Fn&& fn) {
  if (format == PixelFormat::Rgba8)
    fn(FormatTag<PixelFormat::Rgba8>{});
  else
    fn(FormatTag<PixelFormat::F32>{});
}

__host__ __device__ __forceinline__ int div_up(int a, int b) { return (a + b - 1) / b; }

// Pointer to row y of a pitched image.
template <class T>
__device__ __forceinline__ T* pitched_row(void* base, size_t pitch_bytes, int y) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + static_cast<size_t>(y) * pitch_bytes);
}
template <class T>
__device__ __forceinline__ const T* pitched_row(const void* base, size_t pitch_bytes, int y) {
  return reinterpret_cast<const T*>(static_cast<const char*>(base) + static_cast<size_t>(y) * pitch_bytes);
}

}  // namespace gausslab
