#pragma once
// tiled_1d's policy and per-thread code, written once as __host__ __device__ functions: the kernel
// in tiled_1d.cu is a thin sequence of them between barriers, and tests/cpu/methods/tiled_1d/test_tiled_1d.cpp runs
// the very same functions on the CPU, block by block and thread by thread, with checked shared
// memory (every slot filled once before it is read, reads only after the barrier).
//
// One block filters kTile consecutive outputs of the signal, in three phases:
//   1. load:    the kTile + padded_taps samples the tile needs (its halo included, each sample from
//               global memory once) into shared memory: 16-byte vector loads where the whole span
//               lies inside the signal and the pointer is 16-byte aligned, otherwise sample by sample
//               through border_index (the five border modes, exact for any radius);
//   2. compute: thread t owns the kOutputs consecutive outputs kOutputs·t ... and slides a register
//               window over the samples: per group of kOutputs taps it loads kOutputs new samples
//               and does kOutputs² multiply-adds (one shared load per kOutputs taps and outputs);
//   3. store:   the outputs go back through shared memory (after a barrier) so that the block writes
//               them with coalesced 16-byte stores, thread t the 4 outputs 4t, 4t + 4·kThreads, ...
// Shared slots are padded by one word per 32 (slot(i) = i + i / 32): in phase 2 lane l reads
// sample kOutputs·l + j, a stride of 16 words that would hit 2 banks only; with the padding the 32
// lanes hit 32 different banks.
#include <cuda_runtime.h>  // float4 and make_float4 for the host compiler too

#include <cmath>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"

namespace gausslab::tiled1d {

struct Tiled1dPolicy {
  static constexpr int kThreads = 64;
  static constexpr int kOutputs = 16;                 // consecutive outputs per thread: the register window
  static constexpr int kTile = kThreads * kOutputs;   // 1024 outputs per block
  static constexpr int kVector = 4;                   // floats per 16-byte load and store
  static constexpr int kConstantTaps = 2048;          // weights in __constant__ memory up to radius 1023
};
static_assert(Tiled1dPolicy::kTile % (Tiled1dPolicy::kThreads * Tiled1dPolicy::kVector) == 0,
              "the store phase gives every thread whole vectors");
static_assert(Tiled1dPolicy::kOutputs % Tiled1dPolicy::kVector == 0, "tiles start on 16-byte boundaries");

using P = Tiled1dPolicy;

// What every thread of a launch knows.
struct SignalArgs {
  const float* src = nullptr;
  float* dst = nullptr;
  int length = 0;       // samples
  int radius = 0;
  int taps = 0;         // 2 · radius + 1
  BorderMode border = BorderMode::Reflect;
};

GAUSSLAB_HD int padded_taps(int taps) { return (taps + P::kOutputs - 1) / P::kOutputs * P::kOutputs; }
// Samples a tile holds: the kTile outputs' windows, each group of kOutputs taps loaded whole.
GAUSSLAB_HD int tile_samples(int taps) { return P::kTile + padded_taps(taps); }
// Shared-memory slot of tile sample i (one padding word after every 32, see the header).
GAUSSLAB_HD int slot(int i) { return i + (i >> 5); }
// Shared floats a block needs: the samples (which the outputs reuse in phase 3).
GAUSSLAB_HD int shared_floats(int taps) { return slot(tile_samples(taps) - 1) + 1; }
inline long long block_count(int length) { return (static_cast<long long>(length) + P::kTile - 1) / P::kTile; }

// The signal position of the block's first output.
GAUSSLAB_HD int tile_start(int block) { return block * P::kTile; }

// True where the block may use vector loads: its whole span of samples, rounded out to vectors,
// lies inside the signal (no border rule needed) and the source is 16-byte aligned (kVectorSource).
GAUSSLAB_HD bool span_inside(const SignalArgs& args, int block) {
  const int first = tile_start(block) - args.radius;
  const long long end = static_cast<long long>(first) + tile_samples(args.taps);
  const long long vector_end = (end + P::kVector - 1) / P::kVector * P::kVector;
  return first >= 0 && vector_end <= args.length;
}

// ---- phase 1: load -------------------------------------------------------------------------------

// Loads the block's tile samples into `shared` (shared.store(slot, value)). `Source` reads the
// signal: source(i) one sample, source.vector(q) the 4 samples 4q ... 4q + 3.
template <bool kVectorSource, class Source, class Shared>
GAUSSLAB_HD void load_tile(const SignalArgs& args, int block, int thread, const Source& source, const Shared& shared) {
  const int first = tile_start(block) - args.radius;
  const int count = tile_samples(args.taps);
  if (kVectorSource && span_inside(args, block)) {
    const int q0 = first / P::kVector;  // first >= 0 here
    const int q_end = (first + count + P::kVector - 1) / P::kVector;
    for (int q = q0 + thread; q < q_end; q += P::kThreads) {
      const float4 v = source.vector(q);
      const float values[P::kVector] = {v.x, v.y, v.z, v.w};
      GAUSSLAB_UNROLL
      for (int e = 0; e < P::kVector; ++e) {
        const int i = q * P::kVector + e - first;
        if (i >= 0 && i < count) shared.store(slot(i), values[e]);
      }
    }
    return;
  }
  for (int i = thread; i < count; i += P::kThreads) {
    const int s = border_index(first + i, args.length, args.border);
    shared.store(slot(i), s >= 0 ? source(s) : 0.0f);
  }
}

// ---- phase 2: compute ----------------------------------------------------------------------------

// The thread's kOutputs outputs: out[j] = sum over taps k of weights[k] · sample(kOutputs·t + j + k),
// in groups of kOutputs taps; each group's partial sum (its taps in ascending order, one fmaf each)
// is added to the total, so the float32 rounding grows with kOutputs + groups, not with the taps.
template <class Shared, class Weights>
GAUSSLAB_HD void compute_outputs(const SignalArgs& args, int thread, const Shared& shared, const Weights& weights,
                                 float (&out)[P::kOutputs]) {
  constexpr int K = P::kOutputs;
  const int o0 = thread * K;
  float window[2 * K];  // samples o0 + k ... o0 + k + 2K - 1 of the current group k
  GAUSSLAB_UNROLL
  for (int j = 0; j < K; ++j) {
    out[j] = 0.0f;
    window[j] = shared[slot(o0 + j)];
  }
  for (int k = 0; k < args.taps; k += K) {
    GAUSSLAB_UNROLL
    for (int j = 0; j < K; ++j) window[K + j] = shared[slot(o0 + k + K + j)];
    float part[K];
    GAUSSLAB_UNROLL
    for (int j = 0; j < K; ++j) part[j] = 0.0f;
    const int group_taps = args.taps - k < K ? args.taps - k : K;  // K but in the last group
    GAUSSLAB_UNROLL
    for (int u = 0; u < K; ++u) {
      if (u < group_taps) {
        const float w = weights[k + u];
        GAUSSLAB_UNROLL
        for (int j = 0; j < K; ++j) part[j] = fmaf(w, window[u + j], part[j]);
      }
    }
    GAUSSLAB_UNROLL
    for (int j = 0; j < K; ++j) {
      out[j] += part[j];
      window[j] = window[K + j];
    }
  }
}

// ---- phase 3: store ------------------------------------------------------------------------------

// After the barrier that ends phase 2: the thread's outputs into the shared slots of samples
// kOutputs·t ... (every thread is done reading them).
template <class Shared>
GAUSSLAB_HD void stage_outputs(int thread, const float (&out)[P::kOutputs], const Shared& shared) {
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j) shared.store(slot(thread * P::kOutputs + j), out[j]);
}

// After the next barrier: the block's outputs to the signal, thread t writing outputs 4t ... 4t + 3,
// then 4t + 4·kThreads ...: whole 16-byte vectors where the tile lies inside the signal and the
// destination is aligned (kVectorDestination), else sample by sample up to the signal's end.
// `Destination`: destination.store(i, value) one sample, destination.store_vector(q, float4).
template <bool kVectorDestination, class Shared, class Destination>
GAUSSLAB_HD void store_outputs(const SignalArgs& args, int block, int thread, const Shared& shared,
                               const Destination& destination) {
  const int t0 = tile_start(block);
  const bool whole_tile = static_cast<long long>(t0) + P::kTile <= args.length;
  for (int o = thread * P::kVector; o < P::kTile; o += P::kThreads * P::kVector) {
    float values[P::kVector];
    GAUSSLAB_UNROLL
    for (int e = 0; e < P::kVector; ++e) values[e] = shared[slot(o + e)];
    if (kVectorDestination && whole_tile) {
      destination.store_vector((t0 + o) / P::kVector, make_float4(values[0], values[1], values[2], values[3]));
    } else {
      GAUSSLAB_UNROLL
      for (int e = 0; e < P::kVector; ++e)
        if (t0 + o + e < args.length) destination.store(t0 + o + e, values[e]);
    }
  }
}

// ---- accuracy ----------------------------------------------------------------------------------

// First-order float32 worst case relative to sum |w·x|, in units of 2^-24: the weights rounded once
// (1), a group's partial sum (kOutputs), the groups (ceil(taps / kOutputs)).
inline double error_units(int taps) { return 1.0 + P::kOutputs + (taps + P::kOutputs - 1) / P::kOutputs; }
// The promise: the FIR class, widened by that worst case where it is larger (radius beyond 1199).
inline double error_bound(int taps) {
  const double units = error_units(taps) * 5.9604644775390625e-8;
  return units > kFloatRoundingBound.max_relative_error ? units : kFloatRoundingBound.max_relative_error;
}

}  // namespace gausslab::tiled1d
