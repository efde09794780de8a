#pragma once
// IEEE 754 binary16 ("half", the f16 sample type) as its 16 bits, converted to and from float32 on
// the host and in device code alike (core/ includes no CUDA header; kernels may use cuda_fp16's
// intrinsics instead, which give the same results).
//   half → float is exact (every half is a float);
//   float → half rounds to nearest, ties to even, as the hardware conversion (cvt.rn.f16.f32):
//   beyond 65504 (exactly: from 65520 on) it gives ±infinity, below 2^-24 ± 0 (through the
//   subnormals), NaN stays NaN (quiet, its sign kept).
#include <cstdint>
#include <cstring>

#include "gausslab/core/host_device.hpp"

namespace gausslab {

inline constexpr float kHalfMax = 65504.0f;

GAUSSLAB_HD std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
GAUSSLAB_HD float float_from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

GAUSSLAB_HD float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  std::uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_from_bits(sign);  // ±0
  // A subnormal half: mantissa × 2^-24, a normal float.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  return float_from_bits(sign | (static_cast<std::uint32_t>(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13));
}

GAUSSLAB_HD std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = float_bits(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // inf stays inf; NaN stays a (quiet) NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u | ((magnitude >> 13) & 0x3ffu) : 0u));
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to ≥ 65536: inf
  if (magnitude >= 0x38800000u) {  // a normal half (≥ 2^-14)
    const std::uint32_t exponent = (magnitude >> 23) - 112u;
    const std::uint32_t mantissa = magnitude & 0x7fffffu;
    std::uint32_t result = (exponent << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;  // a carry into the exponent is right
    return static_cast<std::uint16_t>(sign | result);
  }
  if (magnitude < 0x33000000u) return sign;  // below half the smallest subnormal (2^-25): ±0
  // A subnormal half: round magnitude / 2^-24 to an integer, ties to even.
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126u - exponent;  // 14..24 for exponents 102..112
  std::uint32_t result = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (result & 1u))) ++result;
  return static_cast<std::uint16_t>(sign | result);
}

}  // namespace gausslab
