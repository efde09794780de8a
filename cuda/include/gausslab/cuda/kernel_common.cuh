#pragma once
// Device helpers shared by the GPU methods and their CPU models: float2/3/4 arithmetic, the pixel
// types and their conversions, format dispatch, launch geometry. Compiled by nvcc (the .cu files) and
// by the host compiler (the CPU-model tests run the same per-thread code).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "gausslab/core/border.hpp"
#include "gausslab/core/half.hpp"
#include "gausslab/core/pixel_format.hpp"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace gausslab {

// ---- float2/3/4 arithmetic (the channels of a pixel are filtered independently) -------------------
__host__ __device__ __forceinline__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__host__ __device__ __forceinline__ float2 operator*(float s, float2 a) { return make_float2(s * a.x, s * a.y); }
__host__ __device__ __forceinline__ float2& operator+=(float2& a, float2 b) {
  a = a + b;
  return a;
}
__host__ __device__ __forceinline__ float3 operator+(float3 a, float3 b) {
  return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}
__host__ __device__ __forceinline__ float3 operator*(float s, float3 a) {
  return make_float3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ __forceinline__ float3& operator+=(float3& a, float3 b) {
  a = a + b;
  return a;
}
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
__host__ __device__ __forceinline__ float2 fma4(float s, float2 b, float2 a) {
  return make_float2(fmaf(s, b.x, a.x), fmaf(s, b.y, a.y));
}
__host__ __device__ __forceinline__ float3 fma4(float s, float3 b, float3 a) {
  return make_float3(fmaf(s, b.x, a.x), fmaf(s, b.y, a.y), fmaf(s, b.z, a.z));
}

// ---- pixels: the one set of conversions every kernel uses ----------------------------------------
// A pixel of C interleaved channels is stored as a C-vector of its sample type and computed in
// float32, one float per channel:
//   u8   unsigned char, uchar2, uchar3, uchar4      levels 0..255
//   u16  unsigned short, ushort2, ushort3, ushort4  levels 0..65535
//   f16  Half, Half2, Half3, Half4                  IEEE binary16, as its bits
//   f32  float, float2, float3, float4
// and computed in float, float2, float3, float4 (also the intermediates between two passes).
// to_accum: storage → float, exactly; FromAccum<Out>::convert: float → storage by the format's store
// rule (pixel_format.hpp): integers round half up and saturate (to_unorm8, to_unorm16), f16 rounds to
// nearest even with ±infinity beyond 65504 and NaN kept, f32 is stored as it is. zero_value<T>(): a
// zero of any of these types. PixelTraits<F> names the two types of a format.

// A level as a float without an int-to-float conversion: the float whose bits are 0x4B000000 | v is
// 2^23 + v exactly for every v < 2^23 (bytes and 16-bit levels alike), so subtracting 2^23 leaves v,
// exactly. On the GPU this is an OR and an add,
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


// Binary16 bits as float and back: the device's conversions (cvt.f32.f16 and cvt.rn.f16.f32) on the
// GPU, core/half.hpp's on the host, which gives the same results for every value.
GAUSSLAB_HD float half_value(unsigned short bits) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(bits));
#else
  return half_to_float(bits);
#endif
}
GAUSSLAB_HD unsigned short half_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(value));
#else
  return float_to_half(value);
#endif
}

// The f16 storage types: binary16 bits, aligned as the vectors of the other 16-bit type.
struct Half {
  unsigned short x;
};
struct __align__(4) Half2 {
  unsigned short x, y;
};
struct Half3 {
  unsigned short x, y, z;
};
struct __align__(8) Half4 {
  unsigned short x, y, z, w;
};

// Storage → float, exactly (the OR and add above for the integer levels).
GAUSSLAB_HD float to_accum(unsigned char p) { return exact_byte_to_float(p); }
GAUSSLAB_HD float2 to_accum(uchar2 p) { return make_float2(exact_byte_to_float(p.x), exact_byte_to_float(p.y)); }
GAUSSLAB_HD float3 to_accum(uchar3 p) {
  return make_float3(exact_byte_to_float(p.x), exact_byte_to_float(p.y), exact_byte_to_float(p.z));
}
GAUSSLAB_HD float4 to_accum(uchar4 p) {
  return make_float4(exact_byte_to_float(p.x), exact_byte_to_float(p.y), exact_byte_to_float(p.z),
                     exact_byte_to_float(p.w));
}
GAUSSLAB_HD float to_accum(unsigned short p) { return exact_byte_to_float(p); }
GAUSSLAB_HD float2 to_accum(ushort2 p) { return make_float2(exact_byte_to_float(p.x), exact_byte_to_float(p.y)); }
GAUSSLAB_HD float3 to_accum(ushort3 p) {
  return make_float3(exact_byte_to_float(p.x), exact_byte_to_float(p.y), exact_byte_to_float(p.z));
}
GAUSSLAB_HD float4 to_accum(ushort4 p) {
  return make_float4(exact_byte_to_float(p.x), exact_byte_to_float(p.y), exact_byte_to_float(p.z),
                     exact_byte_to_float(p.w));
}
GAUSSLAB_HD float to_accum(Half p) { return half_value(p.x); }
GAUSSLAB_HD float2 to_accum(Half2 p) { return make_float2(half_value(p.x), half_value(p.y)); }
GAUSSLAB_HD float3 to_accum(Half3 p) { return make_float3(half_value(p.x), half_value(p.y), half_value(p.z)); }
GAUSSLAB_HD float4 to_accum(Half4 p) {
  return make_float4(half_value(p.x), half_value(p.y), half_value(p.z), half_value(p.w));
}
GAUSSLAB_HD float to_accum(float p) { return p; }
GAUSSLAB_HD float2 to_accum(float2 p) { return p; }
GAUSSLAB_HD float3 to_accum(float3 p) { return p; }
GAUSSLAB_HD float4 to_accum(float4 p) { return p; }

// The same exact values through the conversion unit (I2F), a pipe beside the multiply-adds. For
// kernels whose loop is bound by the FMA pipe rather than by conversions (naive_2d and shared_2d:
// one sample and four multiply-adds per tap) the OR-and-add above puts four more FADDs on that
// pipe per tap: on the H100 naive_2d RGBA8 ran 5-11 % slower with it than with these. The float
// types are not converted at all.
GAUSSLAB_HD float to_accum_via_i2f(unsigned char p) { return static_cast<float>(p); }
GAUSSLAB_HD float2 to_accum_via_i2f(uchar2 p) { return make_float2(p.x, p.y); }
GAUSSLAB_HD float3 to_accum_via_i2f(uchar3 p) { return make_float3(p.x, p.y, p.z); }
GAUSSLAB_HD float4 to_accum_via_i2f(uchar4 p) { return make_float4(p.x, p.y, p.z, p.w); }
GAUSSLAB_HD float to_accum_via_i2f(unsigned short p) { return static_cast<float>(p); }
GAUSSLAB_HD float2 to_accum_via_i2f(ushort2 p) { return make_float2(p.x, p.y); }
GAUSSLAB_HD float3 to_accum_via_i2f(ushort3 p) { return make_float3(p.x, p.y, p.z); }
GAUSSLAB_HD float4 to_accum_via_i2f(ushort4 p) { return make_float4(p.x, p.y, p.z, p.w); }
template <class Storage>
GAUSSLAB_HD auto to_accum_via_i2f(Storage p) -> decltype(to_accum(p)) {
  return to_accum(p);  // f16 and f32: no integer conversion
}

// The float type a kernel computes in for a storage type.
template <class Storage>
using AccumOf = decltype(to_accum(Storage{}));

// A zero of any storage or float type (value-initialised: every lane 0, for f16 the bits of +0).
template <class T>
GAUSSLAB_HD T zero_value() {
  return T{};
}

// Float → storage by the format's store rule.
template <class Out>
struct FromAccum;
template <>
struct FromAccum<unsigned char> {
  GAUSSLAB_HD static unsigned char convert(float v) { return to_unorm8(v); }
};
template <>
struct FromAccum<uchar2> {
  GAUSSLAB_HD static uchar2 convert(float2 v) { return make_uchar2(to_unorm8(v.x), to_unorm8(v.y)); }
};
template <>
struct FromAccum<uchar3> {
  GAUSSLAB_HD static uchar3 convert(float3 v) { return make_uchar3(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z)); }
};
template <>
struct FromAccum<uchar4> {
  GAUSSLAB_HD static uchar4 convert(float4 v) {
    return make_uchar4(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z), to_unorm8(v.w));
  }
};
template <>
struct FromAccum<unsigned short> {
  GAUSSLAB_HD static unsigned short convert(float v) { return to_unorm16(v); }
};
template <>
struct FromAccum<ushort2> {
  GAUSSLAB_HD static ushort2 convert(float2 v) { return make_ushort2(to_unorm16(v.x), to_unorm16(v.y)); }
};
template <>
struct FromAccum<ushort3> {
  GAUSSLAB_HD static ushort3 convert(float3 v) {
    return make_ushort3(to_unorm16(v.x), to_unorm16(v.y), to_unorm16(v.z));
  }
};
template <>
struct FromAccum<ushort4> {
  GAUSSLAB_HD static ushort4 convert(float4 v) {
    return make_ushort4(to_unorm16(v.x), to_unorm16(v.y), to_unorm16(v.z), to_unorm16(v.w));
  }
};
template <>
struct FromAccum<Half> {
  GAUSSLAB_HD static Half convert(float v) { return Half{half_bits(v)}; }
};
template <>
struct FromAccum<Half2> {
  GAUSSLAB_HD static Half2 convert(float2 v) { return Half2{half_bits(v.x), half_bits(v.y)}; }
};
template <>
struct FromAccum<Half3> {
  GAUSSLAB_HD static Half3 convert(float3 v) { return Half3{half_bits(v.x), half_bits(v.y), half_bits(v.z)}; }
};
template <>
struct FromAccum<Half4> {
  GAUSSLAB_HD static Half4 convert(float4 v) {
    return Half4{half_bits(v.x), half_bits(v.y), half_bits(v.z), half_bits(v.w)};
  }
};
template <>
struct FromAccum<float> {
  GAUSSLAB_HD static float convert(float v) { return v; }
};
template <>
struct FromAccum<float2> {
  GAUSSLAB_HD static float2 convert(float2 v) { return v; }
};
template <>
struct FromAccum<float3> {
  GAUSSLAB_HD static float3 convert(float3 v) { return v; }
};
template <>
struct FromAccum<float4> {
  GAUSSLAB_HD static float4 convert(float4 v) { return v; }
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
template <SampleType S, int C>
struct SampleVector;
template <>
struct SampleVector<SampleType::U8, 1> {
  using type = unsigned char;
};
template <>
struct SampleVector<SampleType::U8, 2> {
  using type = uchar2;
};
template <>
struct SampleVector<SampleType::U8, 3> {
  using type = uchar3;
};
template <>
struct SampleVector<SampleType::U8, 4> {
  using type = uchar4;
};
template <>
struct SampleVector<SampleType::U16, 1> {
  using type = unsigned short;
};
template <>
struct SampleVector<SampleType::U16, 2> {
  using type = ushort2;
};
template <>
struct SampleVector<SampleType::U16, 3> {
  using type = ushort3;
};
template <>
struct SampleVector<SampleType::U16, 4> {
  using type = ushort4;
};
template <>
struct SampleVector<SampleType::F16, 1> {
  using type = Half;
};
template <>
struct SampleVector<SampleType::F16, 2> {
  using type = Half2;
};
template <>
struct SampleVector<SampleType::F16, 3> {
  using type = Half3;
};
template <>
struct SampleVector<SampleType::F16, 4> {
  using type = Half4;
};
template <>
struct SampleVector<SampleType::F32, 1> {
  using type = float;
};
template <>
struct SampleVector<SampleType::F32, 2> {
  using type = float2;
};
template <>
struct SampleVector<SampleType::F32, 3> {
  using type = float3;
};
template <>
struct SampleVector<SampleType::F32, 4> {
  using type = float4;
};
template <int C>
struct FloatVector;
template <>
struct FloatVector<1> {
  using type = float;
};
template <>
struct FloatVector<2> {
  using type = float2;
};
template <>
struct FloatVector<3> {
  using type = float3;
};
template <>
struct FloatVector<4> {
  using type = float4;
};

template <PixelFormat F>
struct PixelTraits {
  using Storage = typename SampleVector<sample_type(F), channel_count(F)>::type;
  using Accum = typename FloatVector<channel_count(F)>::type;
};
template <PixelFormat F>
using PixelStorage = typename PixelTraits<F>::Storage;
template <PixelFormat F>
using PixelAccum = typename PixelTraits<F>::Accum;

// One sample of a row of S samples (index i counts samples, not pixels) as float, and its store by
// the format's rule: what the channel planes adapter reads and writes (channel_planes.cuh).
template <SampleType S>
GAUSSLAB_HD float load_sample(const void* row, long long i) {
  using T = typename SampleVector<S, 1>::type;
  return to_accum(static_cast<const T*>(row)[i]);
}
template <SampleType S>
GAUSSLAB_HD void store_sample(void* row, long long i, float value) {
  using T = typename SampleVector<S, 1>::type;
  static_cast<T*>(row)[i] = FromAccum<T>::convert(value);
}

// Host-side dispatch on the runtime format: calls fn(FormatTag<F>{}) for the F of the list that
// equals `format`; inside a generic lambda, `constexpr PixelFormat F = decltype(tag)::value;`
// recovers it at compile time. Only the listed formats are instantiated: a method lists those its
// kernels take as they are (GpuMethod routes the others, gpu_method.hpp). A format not in the list
// is a logic error (std::logic_error): the route should have sent it elsewhere.
template <PixelFormat F>
using FormatTag = std::integral_constant<PixelFormat, F>;
template <PixelFormat... Fs>
struct FormatList {};
// The formats every GPU method's kernels take as they are (RGBA8: the viewer's; F32: the papers').
using BaseFormats = FormatList<PixelFormat::Rgba8, PixelFormat::F32>;
// Those and the 16-bit and float RGBA of the fast FIR paths.
using RgbaAndFloatFormats = FormatList<PixelFormat::Rgba8, PixelFormat::F32, PixelFormat::Rgba16, PixelFormat::Rgba32F>;

template <PixelFormat... Fs>
constexpr bool contains(FormatList<Fs...>, PixelFormat format) {
  return ((format == Fs) || ...);
}

template <PixelFormat... Fs, class Fn>
void dispatch_format(FormatList<Fs...>, PixelFormat format, Fn&& fn) {
  const bool found = ((format == Fs ? (fn(FormatTag<Fs>{}), true) : false) || ...);
  if (!found) throw std::logic_error("a kernel dispatched for a pixel format it was not compiled for");
}
template <class Fn>
void dispatch_format(PixelFormat format, Fn&& fn) {
  dispatch_format(BaseFormats{}, format, fn);
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
