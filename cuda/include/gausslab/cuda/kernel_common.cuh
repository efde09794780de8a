#pragma once
// Device helpers shared by the GPU methods and their CPU models: float4 arithmetic, the pixel
// conversions, format dispatch, launch geometry. Compiled by nvcc (the .cu files) and by the host
// compiler (the CPU-model tests run the same per-thread code).
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
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

// ---- pixels: the one set of conversions every kernel uses ----------------------------------------
// Storage types as kernels read and write them (uchar4 for RGBA8, float for F32) and the float types
// they compute in (float4, float); float4 and float are also the intermediates between two passes.
// to_accum: storage → float, exactly; FromAccum<Out>::convert: float → storage (to_unorm8, the
// project's one rounding rule, for RGBA8); zero_value<T>(): a zero of any of these types.

// A byte as a float without an int-to-float conversion: the float whose bits are 0x4B0000xx is
// 2^23 + xx exactly, so subtracting 2^23 leaves xx, exactly. On the GPU this is an OR and an add,
// where a conversion goes through a quarter-rate unit (16 per SM and clock): a kernel that converts
// every sample it loads (the RGBA8 row passes) would spend more on four conversions per sample than
// on its multiply-adds at small radii.
GAUSSLAB_HD float exact_byte_to_float(unsigned byte) {
  const unsigned bits = 0x4B000000u | byte;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits) - 8388608.0f;
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value - 8388608.0f;
#endif
}

GAUSSLAB_HD float4 to_accum(uchar4 p) {
  return make_float4(exact_byte_to_float(p.x), exact_byte_to_float(p.y), exact_byte_to_float(p.z),
                     exact_byte_to_float(p.w));
}
GAUSSLAB_HD float4 to_accum(float4 p) { return p; }
GAUSSLAB_HD float to_accum(float p) { return p; }

// The same exact values through the conversion unit (I2F), a pipe beside the multiply-adds. For
// kernels whose loop is bound by the FMA pipe rather than by conversions (naive_2d and shared_2d:
// one sample and four multiply-adds per tap) the OR-and-add above puts four more FADDs on that
// pipe per tap: on the H100 naive_2d RGBA8 ran 5-11 % slower with it than with these.
GAUSSLAB_HD float4 to_accum_via_i2f(uchar4 p) { return make_float4(p.x, p.y, p.z, p.w); }
GAUSSLAB_HD float4 to_accum_via_i2f(float4 p) { return p; }
GAUSSLAB_HD float to_accum_via_i2f(float p) { return p; }

// The float type a kernel computes in for a storage type.
template <class Storage>
using AccumOf = decltype(to_accum(Storage{}));

template <class T>
GAUSSLAB_HD T zero_value();
template <>
GAUSSLAB_HD uchar4 zero_value<uchar4>() { return make_uchar4(0, 0, 0, 0); }
template <>
GAUSSLAB_HD float4 zero_value<float4>() { return make_float4(0.f, 0.f, 0.f, 0.f); }
template <>
GAUSSLAB_HD float zero_value<float>() { return 0.f; }

template <class Out>
struct FromAccum;
template <>
struct FromAccum<uchar4> {
  GAUSSLAB_HD static uchar4 convert(float4 v) {
    return make_uchar4(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z), to_unorm8(v.w));
  }
};
template <>
struct FromAccum<float4> {
  GAUSSLAB_HD static float4 convert(float4 v) { return v; }
};
template <>
struct FromAccum<float> {
  GAUSSLAB_HD static float convert(float v) { return v; }
};

// FromAccum<uchar4>::convert for sums known to be >= 0 (non-negative samples times non-negative
// weights), as the uchar4's four bytes, without float → int conversions (a quarter-rate unit, like
// I2F): s = min(v, 255) + 0.5 is the float to_unorm8 truncates, and adding 2^23 rounding toward
// -infinity leaves 2^23 + floor(s) exactly (the floats in [2^23, 2^24) are the integers), so
// floor(s) is the low byte of its bits. Bit for bit to_unorm8 for every v >= 0 (a negative v would
// need the lower clamp); the host converts with FromAccum itself.
GAUSSLAB_HD unsigned nonnegative_to_unorm8_bits(float4 v) {
#if defined(__CUDA_ARCH__)
  auto low_byte = [](float x) { return __float_as_uint(__fadd_rd(fminf(x, 255.0f) + 0.5f, 8388608.0f)); };
  const unsigned lo = __byte_perm(low_byte(v.x), low_byte(v.y), 0x0040);  // bytes x, y
  const unsigned hi = __byte_perm(low_byte(v.z), low_byte(v.w), 0x0040);  // bytes z, w
  return __byte_perm(lo, hi, 0x5410);
#else
  const uchar4 pixel = FromAccum<uchar4>::convert(v);
  unsigned bits;
  std::memcpy(&bits, &pixel, sizeof bits);
  return bits;
#endif
}

// The storage and float types of a pixel format.
template <PixelFormat F>
struct PixelTraits;
template <>
struct PixelTraits<PixelFormat::Rgba8> {
  using Storage = uchar4;
  using Accum = float4;
};
template <>
struct PixelTraits<PixelFormat::F32> {
  using Storage = float;
  using Accum = float;
};
template <PixelFormat F>
using PixelStorage = typename PixelTraits<F>::Storage;
template <PixelFormat F>
using PixelAccum = typename PixelTraits<F>::Accum;

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

// A launch bound's "at least this many blocks an SM", capped at what the architecture being compiled
// holds (ptxas ignores a larger one, with a warning): sm_75 runs at most 1024 threads an SM, sm_86,
// sm_87 and sm_89 1536, the others we build for 2048. A policy tuned for Hopper's 2048 threads (16
// blocks of 128) thus asks sm_75 for 8.
constexpr int resident_blocks_bound(int threads_per_block, int wanted_blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
  constexpr int kMaxThreadsPerSm = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
  constexpr int kMaxThreadsPerSm = 1536;
#else
  constexpr int kMaxThreadsPerSm = 2048;
#endif
  return wanted_blocks * threads_per_block > kMaxThreadsPerSm ? kMaxThreadsPerSm / threads_per_block : wanted_blocks;
}

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
