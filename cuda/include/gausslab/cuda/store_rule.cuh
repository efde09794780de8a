#pragma once
// How a final result is stored when the filter is not the plain Gaussian: a custom kernel's
// divisor and --rounding floor/ceil (FilterParams::kernel, FilterParams::rounding). Used by the
// methods that take them (MethodInfo::kernels, all_roundings) and by the channel adapter's packing.
#include "gausslab/cuda/kernel_common.cuh"

namespace gausslab {

// How a final result is stored (custom kernels, --rounding): divided by the kernel's sum when it is
// normalised (one correctly rounded division after the sums, so that an integer table's floors are
// exact), then stored by the format's rule, integers by `rounding` (round_to_level: floor and ceil
// saturate as half up does; float formats keep their value). The Gaussian's rule is the default,
// FromAccum<Out>::convert itself.
struct StoreRule {
  float divisor = 1.0f;  // 1: not divided
  IntegerRounding rounding = IntegerRounding::Nearest;

  GAUSSLAB_HD bool plain() const { return divisor == 1.0f && rounding == IntegerRounding::Nearest; }
};

GAUSSLAB_HD float divide_rn(float v, float d) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(v, d);
#else
  return v / d;
#endif
}
GAUSSLAB_HD float2 divide_rn(float2 v, float d) { return make_float2(divide_rn(v.x, d), divide_rn(v.y, d)); }
GAUSSLAB_HD float3 divide_rn(float3 v, float d) {
  return make_float3(divide_rn(v.x, d), divide_rn(v.y, d), divide_rn(v.z, d));
}
GAUSSLAB_HD float4 divide_rn(float4 v, float d) {
  return make_float4(divide_rn(v.x, d), divide_rn(v.y, d), divide_rn(v.z, d), divide_rn(v.w, d));
}

// Float → storage with floor or ceil: the integer types round each channel by round_to_level, the
// float types (nothing to round) are FromAccum's.
template <class Out>
struct DirectedFromAccum {
  template <class Accum>
  GAUSSLAB_HD static Out convert(Accum v, IntegerRounding) {
    return FromAccum<Out>::convert(v);
  }
};
#define GAUSSLAB_DIRECTED_STORE(SCALAR, T, LEVEL)                                              \
  template <>                                                                                \
  struct DirectedFromAccum<SCALAR> {                                                         \
    GAUSSLAB_HD static SCALAR convert(float v, IntegerRounding r) { return level(v, r); }    \
    GAUSSLAB_HD static SCALAR level(float v, IntegerRounding r) {                            \
      return static_cast<SCALAR>(round_to_level(v, r, LEVEL));                               \
    }                                                                                        \
  };                                                                                         \
  template <>                                                                                \
  struct DirectedFromAccum<T##2> {                                                           \
    GAUSSLAB_HD static T##2 convert(float2 v, IntegerRounding r) {                           \
      using L = DirectedFromAccum<SCALAR>;                                                   \
      return make_##T##2(L::level(v.x, r), L::level(v.y, r));                                \
    }                                                                                        \
  };                                                                                         \
  template <>                                                                                \
  struct DirectedFromAccum<T##3> {                                                           \
    GAUSSLAB_HD static T##3 convert(float3 v, IntegerRounding r) {                           \
      using L = DirectedFromAccum<SCALAR>;                                                   \
      return make_##T##3(L::level(v.x, r), L::level(v.y, r), L::level(v.z, r));              \
    }                                                                                        \
  };                                                                                         \
  template <>                                                                                \
  struct DirectedFromAccum<T##4> {                                                           \
    GAUSSLAB_HD static T##4 convert(float4 v, IntegerRounding r) {                           \
      using L = DirectedFromAccum<SCALAR>;                                                   \
      return make_##T##4(L::level(v.x, r), L::level(v.y, r), L::level(v.z, r), L::level(v.w, r)); \
    }                                                                                        \
  };
GAUSSLAB_DIRECTED_STORE(unsigned char, uchar, 255)
GAUSSLAB_DIRECTED_STORE(unsigned short, ushort, 65535)
#undef GAUSSLAB_DIRECTED_STORE

// The final store of a result by `rule`.
template <class Out, class Accum>
GAUSSLAB_HD Out store_by(Accum v, const StoreRule& rule) {
  if (rule.plain()) return FromAccum<Out>::convert(v);
  if (rule.divisor != 1.0f) v = divide_rn(v, rule.divisor);
  return rule.rounding == IntegerRounding::Nearest ? FromAccum<Out>::convert(v)
                                                   : DirectedFromAccum<Out>::convert(v, rule.rounding);
}

// One sample of S into element i of a row by `rounding` (store_sample's rule with floor and ceil).
template <SampleType S>
GAUSSLAB_HD void store_sample_rounded(void* row, long long i, float value, IntegerRounding rounding) {
  using T = typename SampleVector<S, 1>::type;
  static_cast<T*>(row)[i] = store_by<T>(value, StoreRule{1.0f, rounding});
}

}  // namespace gausslab
