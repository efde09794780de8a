#pragma once
// The recursive (IIR) Gaussian exactly as the GPU runs it: the per-thread work of every kernel in
// recursive.cu, written once as __host__ __device__ code. The kernels are thin wrappers around these
// functions; tests/cpu/methods/recursive/recursive_host_model.hpp runs the very same functions on
// the CPU, thread by thread and block by block, so the unit tests check the GPU's arithmetic and
// indexing without a GPU.
//
// The maths (derivation in recursive_coefficients.hpp): Deriche's 4th-order Gaussian written in
// partial fractions, h[m] = Re sum_j weight_j p_j^|m| over two complex poles p_j (one of each
// conjugate pair), is computed per column as two complex one-pole recursions per pole,
//   causal      u_j[n] = x[n] + p_j u_j[n-1]      (down the column)
//   anticausal  w_j[n] = x[n] + p_j w_j[n+1]      (up the column)
//   output      y[n]   = Re sum_j weight_j (u_j[n] + w_j[n]) - centre x[n]   (centre = h[0]).
// First-order complex sections keep the recursion well conditioned at large sigma, where a
// direct-form 4th-order recursion loses its poles near z = 1 in rounding.
//
// Parallelism: a column is cut into segments of L samples, one thread per (column, segment):
//   1. zero_states: each segment runs both recursions with no history and keeps its end states;
//   2. carry: one thread per (column, pole, channel) walks the segments, adds the history that each
//      segment receives from its neighbours, and the border's own history (closed forms per mode);
//   3. segment_output: each segment runs again with its true history and writes the output.
// Linearity makes 1 + 2 exact: a segment's state is its zero-history state plus the homogeneous
// response p^k of the history it received.
#include <cuda_runtime.h>  // float4, uchar4 and make_* for the host compiler too

#include <cstddef>
#include <type_traits>

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab::recursive {

// Two complex poles: Deriche's four poles are two conjugate pairs, and a real input keeps each
// pair's states conjugate, so one pole of each pair carries the whole pair (its weight is doubled).
inline constexpr int kPoles = 2;

// ---- complex arithmetic (std::complex is not usable in device code) ----------------------------

template <class T>
struct Complex {
  T re;
  T im;
};

template <class To, class From>
GAUSSLAB_HD Complex<To> complex_cast(Complex<From> z) {
  return {static_cast<To>(z.re), static_cast<To>(z.im)};
}
template <class T>
GAUSSLAB_HD Complex<T> operator+(Complex<T> a, Complex<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
GAUSSLAB_HD Complex<T> operator*(Complex<T> a, Complex<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class T>
GAUSSLAB_HD Complex<T> operator*(T s, Complex<T> a) {
  return {s * a.re, s * a.im};
}
// The one-pole step x + p * z, with x real.
template <class T>
GAUSSLAB_HD Complex<T> one_pole_step(T x, Complex<T> p, Complex<T> z) {
  return {x + (p.re * z.re - p.im * z.im), p.re * z.im + p.im * z.re};
}
// Re(a * b): a pole's contribution to the output.
template <class T>
GAUSSLAB_HD T real_of_product(Complex<T> a, Complex<T> b) {
  return a.re * b.re - a.im * b.im;
}

// ---- the plan of one 1D pass (all columns of one image), built on the host in double ------------

struct PolePlan {
  Complex<double> pole;    // p_j = exp(-lambda_j / sigma)
  Complex<double> weight;  // 2 g_j, normalised so that the whole filter has DC gain exactly 1
  // The same rounded to float, the weight renormalised for the rounded pole (float-state variant).
  Complex<float> pole_f;
  Complex<float> weight_f;
  // Powers for the carry: p^L, p^(L-1) for full segments, p^len, p^(len-1) for the last one.
  Complex<double> pow_segment, pow_segment_minus_1, pow_last, pow_last_minus_1;
  // The border's history, fed into the first sample of the causal pass as p * u[-1]:
  //   near_sum * F + far_sum * B + near_sample * x[0] + far_sample * x[N-1],
  // with F = sum_k p^k x[k] (zero-history anticausal state at row 0) and
  // B = sum_k p^(N-1-k) x[k] (zero-history causal state at row N-1). The anticausal pass uses the
  // same coefficients with the ends swapped (every border mode is symmetric).
  Complex<double> init_near_sum, init_far_sum, init_near_sample, init_far_sample;
};

struct PassPlan {
  PolePlan poles[kPoles];
  double centre = 0;       // h[0] = Re sum_j weight_j: both recursions include x[n], so it is subtracted once
  float centre_f = 0;      // the same for the float weights
  int columns = 0;         // independent lines filtered side by side (the image width)
  int length = 0;          // N: samples per column (the image height)
  int segment_length = 0;  // L
  int segments = 0;        // S = ceil(N / L)
  int last_length = 0;     // N - (S - 1) L, in [1, L]

  GAUSSLAB_HD int segment_start(int segment) const { return segment * segment_length; }
  GAUSSLAB_HD int segment_size(int segment) const { return segment == segments - 1 ? last_length : segment_length; }
  GAUSSLAB_HD long long zero_state_threads() const { return static_cast<long long>(columns) * segments; }
};

// The recursion's coefficients in the state precision S (double on the GPU; float for measurements).
template <class S>
struct StepCoefficients;
template <>
struct StepCoefficients<double> {
  GAUSSLAB_HD static Complex<double> pole(const PolePlan& p) { return p.pole; }
  GAUSSLAB_HD static Complex<double> weight(const PolePlan& p) { return p.weight; }
  GAUSSLAB_HD static double centre(const PassPlan& plan) { return plan.centre; }
};
template <>
struct StepCoefficients<float> {
  GAUSSLAB_HD static Complex<float> pole(const PolePlan& p) { return p.pole_f; }
  GAUSSLAB_HD static Complex<float> weight(const PolePlan& p) { return p.weight_f; }
  GAUSSLAB_HD static float centre(const PassPlan& plan) { return plan.centre_f; }
};

// ---- pixels as channel samples --------------------------------------------------------------------

template <int C>
struct Samples {
  float v[C];
};

GAUSSLAB_HD Samples<4> to_samples(uchar4 p) {
  return {{static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z), static_cast<float>(p.w)}};
}
GAUSSLAB_HD Samples<4> to_samples(Rgba8 p) {
  return {{static_cast<float>(p.r), static_cast<float>(p.g), static_cast<float>(p.b), static_cast<float>(p.a)}};
}
GAUSSLAB_HD Samples<4> to_samples(float4 p) { return {{p.x, p.y, p.z, p.w}}; }
GAUSSLAB_HD Samples<1> to_samples(float p) { return {{p}}; }

GAUSSLAB_HD void store_samples(const Samples<4>& s, float4& out) { out = make_float4(s.v[0], s.v[1], s.v[2], s.v[3]); }
GAUSSLAB_HD void store_samples(const Samples<1>& s, float& out) { out = s.v[0]; }
GAUSSLAB_HD void store_samples(const Samples<4>& s, uchar4& out) {
  out = make_uchar4(to_unorm8(s.v[0]), to_unorm8(s.v[1]), to_unorm8(s.v[2]), to_unorm8(s.v[3]));
}
GAUSSLAB_HD void store_samples(const Samples<4>& s, Rgba8& out) {
  out.r = to_unorm8(s.v[0]);
  out.g = to_unorm8(s.v[1]);
  out.b = to_unorm8(s.v[2]);
  out.a = to_unorm8(s.v[3]);
}

// Channel c of a sample, chosen without indexing the array at run time (which would put it in
// local memory on the device).
template <int C>
GAUSSLAB_HD float channel_of(const Samples<C>& s, int c) {
  float value = s.v[0];
  GAUSSLAB_UNROLL
  for (int i = 1; i < C; ++i)
    if (c == i) value = s.v[i];
  return value;
}

template <class Pixel>
inline constexpr int kChannelsOf = (std::is_same_v<std::remove_const_t<Pixel>, float> ? 1 : 4);

// The float intermediate between passes: float4 for RGBA (one 16-byte access), float for F32.
template <int C>
using Intermediate = std::conditional_t<C == 4, float4, float>;

// A pitched image read as columns: sample n of column c is pixel (c, n). Pixel may be const.
template <class Pixel>
struct Columns {
  Pixel* data = nullptr;
  std::size_t pitch_bytes = 0;  // from one row to the next
  int count = 0;                // columns (image width)
  int length = 0;               // samples per column (image height)

  GAUSSLAB_HD Pixel& at(int column, int n) const {
    using Byte = std::conditional_t<std::is_const_v<Pixel>, const char, char>;
    return reinterpret_cast<Pixel*>(reinterpret_cast<Byte*>(data) + static_cast<std::size_t>(n) * pitch_bytes)[column];
  }
};

// Segment states: [segment][pole][channel][column], so that threads of adjacent columns touch
// adjacent addresses (coalesced).
GAUSSLAB_HD std::size_t state_index(const PassPlan& plan, int channels, int segment, int pole, int channel,
                                    int column) {
  return ((static_cast<std::size_t>(segment) * kPoles + pole) * channels + channel) * plan.columns + column;
}
inline std::size_t state_count(const PassPlan& plan, int channels) {
  return static_cast<std::size_t>(plan.segments) * kPoles * channels * plan.columns;
}

// ---- which work item a flat thread index stands for (kernels and host model alike) -------------

// Steps 1 and 3: thread t works on column t % columns of segment t / columns, so a warp reads 32
// adjacent columns of one row (coalesced), also when the image is narrower than a warp.
struct SegmentThread {
  int column, segment;
};
GAUSSLAB_HD SegmentThread segment_thread(const PassPlan& plan, long long t) {
  return {static_cast<int>(t % plan.columns), static_cast<int>(t / plan.columns)};
}

// Step 2: one thread per (column, pole, channel) chain; adjacent threads take adjacent columns.
struct CarryThread {
  int column, pole, channel;
};
GAUSSLAB_HD long long carry_threads(const PassPlan& plan, int channels) {
  return static_cast<long long>(plan.columns) * kPoles * channels;
}
GAUSSLAB_HD CarryThread carry_thread(const PassPlan& plan, int channels, long long t) {
  const long long chain = t / plan.columns;
  return {static_cast<int>(t % plan.columns), static_cast<int>(chain / channels), static_cast<int>(chain % channels)};
}

// Rows of the float scratch images are padded to whole 32-element groups, so that every row starts
// on a 128-byte boundary (a warp's access is then one aligned transaction per row). Rows shorter
// than a warp are left as they are: padding a 1-pixel-wide column to 32 would cost 32× the memory.
GAUSSLAB_HD int padded_row_elements(int elements) { return elements < 32 ? elements : (elements + 31) / 32 * 32; }

// ---- step 1: zero-history states of one segment -------------------------------------------------

// Thread (column, segment): runs the causal recursion over the segment from no history and keeps
// its last state Uz = sum_k p^(len-1-k) x[n0+k]; accumulates the anticausal zero-history state at
// the segment's first sample, Wz = sum_k p^k x[n0+k], in the same sweep (one read of the input).
// The carry step later replaces both, in place, by the feedback the segment receives at its ends.
template <class S, class In>
GAUSSLAB_HD void zero_states(const PassPlan& plan, const Columns<const In>& src, int column, int segment,
                             Complex<double>* causal_states, Complex<double>* anticausal_states) {
  constexpr int C = kChannelsOf<In>;
  using Coeff = StepCoefficients<S>;
  const int n0 = plan.segment_start(segment);
  const int size = plan.segment_size(segment);

  Complex<S> pole[kPoles], pole_power[kPoles];
  Complex<S> causal[kPoles][C], anticausal[kPoles][C];
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    pole[j] = Coeff::pole(plan.poles[j]);
    pole_power[j] = {S(1), S(0)};
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c) causal[j][c] = anticausal[j][c] = {S(0), S(0)};
  }
  for (int k = 0; k < size; ++k) {
    const Samples<C> x = to_samples(src.at(column, n0 + k));
    GAUSSLAB_UNROLL
    for (int j = 0; j < kPoles; ++j) {
      GAUSSLAB_UNROLL
      for (int c = 0; c < C; ++c) {
        const S value = static_cast<S>(x.v[c]);
        causal[j][c] = one_pole_step(value, pole[j], causal[j][c]);
        anticausal[j][c] = anticausal[j][c] + value * pole_power[j];
      }
      pole_power[j] = pole_power[j] * pole[j];
    }
  }
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c) {
      const std::size_t i = state_index(plan, C, segment, j, c, column);
      causal_states[i] = complex_cast<double>(causal[j][c]);
      anticausal_states[i] = complex_cast<double>(anticausal[j][c]);
    }
  }
}

// ---- step 2: carry the histories across segments (double) ---------------------------------------

// Thread (column, pole, channel). On entry the state arrays hold the zero-history states of step 1;
// on return causal_states[s] holds the feedback p * u[n0 - 1] that segment s receives at its first
// sample, and anticausal_states[s] the feedback p * w[n1 + 1] at its last sample n1, both including
// the border's history. The chains are walked in double: they carry p^L over whole segments.
template <class In>
GAUSSLAB_HD void carry(const PassPlan& plan, const Columns<const In>& src, int column, int pole_index, int channel,
                       Complex<double>* causal_states, Complex<double>* anticausal_states) {
  constexpr int C = kChannelsOf<In>;
  const PolePlan& k = plan.poles[pole_index];
  const Complex<double> p = k.pole;
  const Complex<double> zero{0.0, 0.0};
  const int last = plan.segments - 1;
  auto index = [&](int segment) { return state_index(plan, C, segment, pole_index, channel, column); };
  auto pow_size = [&](int segment) { return segment == last ? k.pow_last : k.pow_segment; };
  auto pow_size_minus_1 = [&](int segment) { return segment == last ? k.pow_last_minus_1 : k.pow_segment_minus_1; };

  // Zero-history chains over the whole column give B (causal state at row N-1) and F (anticausal
  // state at row 0): with the two end samples they determine the border's history in every mode.
  Complex<double> feedback = zero;
  for (int s = 0; s < last; ++s) feedback = p * causal_states[index(s)] + pow_size(s) * feedback;
  const Complex<double> far_sum_causal = causal_states[index(last)] + pow_size_minus_1(last) * feedback;  // B
  feedback = zero;
  for (int s = last; s > 0; --s) feedback = p * anticausal_states[index(s)] + pow_size(s) * feedback;
  const Complex<double> near_sum_causal = anticausal_states[index(0)] + pow_size_minus_1(0) * feedback;  // F

  const double first = channel_of(to_samples(src.at(column, 0)), channel);
  const double last_sample = channel_of(to_samples(src.at(column, plan.length - 1)), channel);
  const Complex<double> causal_init = k.init_near_sum * near_sum_causal + k.init_far_sum * far_sum_causal +
                                      first * k.init_near_sample + last_sample * k.init_far_sample;
  const Complex<double> anticausal_init = k.init_near_sum * far_sum_causal + k.init_far_sum * near_sum_causal +
                                          last_sample * k.init_near_sample + first * k.init_far_sample;

  // True chains, in place: read the zero-history state of segment s before overwriting it.
  feedback = causal_init;
  for (int s = 0; s <= last; ++s) {
    const Complex<double> zero_state = causal_states[index(s)];
    causal_states[index(s)] = feedback;
    feedback = p * zero_state + pow_size(s) * feedback;
  }
  feedback = anticausal_init;
  for (int s = last; s >= 0; --s) {
    const Complex<double> zero_state = anticausal_states[index(s)];
    anticausal_states[index(s)] = feedback;
    feedback = p * zero_state + pow_size(s) * feedback;
  }
}

// ---- step 3: the output of one segment ----------------------------------------------------------

// Thread (column, segment): the causal pass down the segment writes its half of the output (and
// subtracts the centre tap, counted by both passes); the anticausal pass up the segment reads it
// back and adds its half. Each output sample belongs to exactly one thread.
template <class S, class In, class Out>
GAUSSLAB_HD void segment_output(const PassPlan& plan, const Columns<const In>& src, const Columns<Out>& dst, int column,
                                int segment, const Complex<double>* causal_states,
                                const Complex<double>* anticausal_states) {
  constexpr int C = kChannelsOf<In>;
  static_assert(std::is_same_v<Out, Intermediate<C>>, "the causal half is stored and re-read in float");
  using Coeff = StepCoefficients<S>;
  const int n0 = plan.segment_start(segment);
  const int n1 = n0 + plan.segment_size(segment) - 1;

  Complex<S> pole[kPoles], weight[kPoles], state[kPoles][C];
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    pole[j] = Coeff::pole(plan.poles[j]);
    weight[j] = Coeff::weight(plan.poles[j]);
  }
  const S centre = Coeff::centre(plan);

  // Causal: the first step adds the received feedback p * u[n0 - 1]; later steps feed back p * u.
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c) {
      state[j][c] = complex_cast<S>(causal_states[state_index(plan, C, segment, j, c, column)]);
    }
  }
  for (int n = n0; n <= n1; ++n) {
    const Samples<C> x = to_samples(src.at(column, n));
    Samples<C> y;
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c) {
      const S value = static_cast<S>(x.v[c]);
      S sum = -centre * value;
      GAUSSLAB_UNROLL
      for (int j = 0; j < kPoles; ++j) {
        const Complex<S> u{value + state[j][c].re, state[j][c].im};
        sum += real_of_product(weight[j], u);
        state[j][c] = pole[j] * u;  // the feedback into the next sample
      }
      y.v[c] = static_cast<float>(sum);
    }
    store_samples(y, dst.at(column, n));
  }

  // Anticausal, the same up the segment, adding to the causal half.
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c)
      state[j][c] = complex_cast<S>(anticausal_states[state_index(plan, C, segment, j, c, column)]);
  }
  for (int n = n1; n >= n0; --n) {
    const Samples<C> x = to_samples(src.at(column, n));
    Samples<C> y = to_samples(dst.at(column, n));
    GAUSSLAB_UNROLL
    for (int c = 0; c < C; ++c) {
      const S value = static_cast<S>(x.v[c]);
      S sum = static_cast<S>(y.v[c]);
      GAUSSLAB_UNROLL
      for (int j = 0; j < kPoles; ++j) {
        const Complex<S> w{value + state[j][c].re, state[j][c].im};
        sum += real_of_product(weight[j], w);
        state[j][c] = pole[j] * w;
      }
      y.v[c] = static_cast<float>(sum);
    }
    store_samples(y, dst.at(column, n));
  }
}

// ---- the transposes: 32×32 tiles through shared memory ------------------------------------------

// Block (tile_x, tile_y) moves the tile of source columns [32 tile_x, +32) and rows [32 tile_y, +32)
// with 32 × 8 threads, each thread 4 rows. The +1 column of padding puts the 32 elements of a tile
// column in 32 different banks (also for float4: 16-byte accesses are served 8 threads at a time).
inline constexpr int kTileSide = 32;
inline constexpr int kTileRowsPerPass = 8;

template <class T>
using Tile = T[kTileSide][kTileSide + 1];

// Phase 1 (before the barrier): thread (tx, ty) reads source rows ty, ty + 8, ... of the tile.
template <class In>
GAUSSLAB_HD void transpose_load(const Columns<const In>& src, int tile_x, int tile_y, int tx, int ty, Tile<In>& tile) {
  const int column = tile_x * kTileSide + tx;
  GAUSSLAB_UNROLL
  for (int i = 0; i < kTileSide; i += kTileRowsPerPass) {
    const int row = tile_y * kTileSide + ty + i;
    if (column < src.count && row < src.length) tile[ty + i][tx] = src.at(column, row);
  }
}

// Phase 2 (after the barrier): thread (tx, ty) writes destination rows ty, ty + 8, ... of the
// transposed tile: destination (x, y) = source (y, x). Converts to the destination's pixel type.
template <class In, class Out>
GAUSSLAB_HD void transpose_store(const Tile<In>& tile, const Columns<Out>& dst, int tile_x, int tile_y, int tx,
                                 int ty) {
  const int column = tile_y * kTileSide + tx;  // a source row
  GAUSSLAB_UNROLL
  for (int i = 0; i < kTileSide; i += kTileRowsPerPass) {
    const int row = tile_x * kTileSide + ty + i;  // a source column
    if (column < dst.count && row < dst.length) store_samples(to_samples(tile[tx][ty + i]), dst.at(column, row));
  }
}

// Tiles are numbered along a flat grid (the long side of a 1 × 10^8 image needs more than the
// 65535 blocks that gridDim.y allows): tile t covers tile_x = t % tiles_x, tile_y = t / tiles_x.
struct TransposeGrid {
  int tiles_x = 0, tiles_y = 0;
  GAUSSLAB_HD long long tiles() const { return static_cast<long long>(tiles_x) * tiles_y; }
};
GAUSSLAB_HD TransposeGrid transpose_grid(int src_columns, int src_rows) {
  return {(src_columns + kTileSide - 1) / kTileSide, (src_rows + kTileSide - 1) / kTileSide};
}

}  // namespace gausslab::recursive
