#pragma once
// recursive_tiled: the per-thread code of its kernels, for recursive_tiled.cu and for the CPU model in
// tests/cpu/test_recursive_tiled.cpp (which runs it unchanged, thread by thread, block by block).
//
// The filter is recursive's (Deriche 4th order as two complex one-pole recursions per direction,
// coefficients and closed-form border histories from recursive_coefficients.hpp, the same segment +
// carry algebra as recursive_model.hpp); what differs is the schedule: no transposes, each output
// written once per direction, and float segment states.
//   1. column states    one thread per (column, 64-row segment): the zero-history states of the
//                       segment (the causal state at its last row, the anticausal one at its first).
//   2. column carry     one thread per (column, pole): the feedback each segment receives, borders
//                       included (in double; stored as float).
//   3. columns          one block per 64×64 tile: the tile into shared memory, every column filtered
//                       down and up with its feedback (the causal half kept in registers), the
//                       filtered tile written out as Y — and, from the tile in shared memory, the
//                       zero-history states of its 64 rows over its 64 columns (the row pass's step 1,
//                       so the row pass never reads Y for it).
//   4. row carry        the same as 2 over the rows of Y.
//   5. rows             one block per 64×64 tile of Y: every row filtered with its feedback, the
//                       result written out.
// Global traffic per pixel (F32): read 4 + 4 + 4, write 4 + 4, segment states about 4 B.
#include <cuda_runtime.h>

#include "gausslab/core/host_device.hpp"
#include "gausslab/cuda/tile_grid.cuh"
#include "recursive_model.hpp"

namespace gausslab::recursive_tiled {

using recursive::Complex;
using recursive::kPoles;
using recursive::PassPlan;
using recursive::PolePlan;

inline constexpr int kTile = 64;  // the tile side = the segment length of both passes = threads per block

// Segment states of one pass, complex float, index (segment * kPoles + pole) * lines + line: threads
// of adjacent lines touch adjacent addresses.
struct StateArrays {
  Complex<float>* causal;
  Complex<float>* anticausal;
};
GAUSSLAB_HD long long state_index(const PassPlan& plan, int segment, int pole, int line) {
  return (static_cast<long long>(segment) * kPoles + pole) * plan.columns + line;
}
inline long long state_count(const PassPlan& plan) { return static_cast<long long>(plan.segments) * kPoles * plan.columns; }

// ---- 1. zero-history states of a column segment ----------------------------------------------------

// x(n) reads sample n of the thread's line. Uz = sum_k p^(len-1-k) x[n0+k], Wz = sum_k p^k x[n0+k].
template <class Sample>
GAUSSLAB_HD void segment_zero_states(const PassPlan& plan, int line, int segment, const Sample& x,
                                     const StateArrays& states) {
  const int n0 = plan.segment_start(segment);
  const int size = plan.segment_size(segment);
  Complex<float> pole[kPoles], power[kPoles], causal[kPoles], anticausal[kPoles];
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    pole[j] = plan.poles[j].pole_f;
    power[j] = {1.0f, 0.0f};
    causal[j] = anticausal[j] = {0.0f, 0.0f};
  }
  for (int k = 0; k < size; ++k) {
    const float v = x(n0 + k);
    GAUSSLAB_UNROLL
    for (int j = 0; j < kPoles; ++j) {
      causal[j] = recursive::one_pole_step(v, pole[j], causal[j]);
      anticausal[j] = anticausal[j] + v * power[j];
      power[j] = power[j] * pole[j];
    }
  }
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    states.causal[state_index(plan, segment, j, line)] = causal[j];
    states.anticausal[state_index(plan, segment, j, line)] = anticausal[j];
  }
}

// ---- 2. and 4. the carry --------------------------------------------------------------------------

// Thread (line, pole): on entry the arrays hold the zero-history states; on return causal[s] holds the
// feedback p u[n0 - 1] that segment s receives at its first sample and anticausal[s] the feedback
// p w[n1 + 1] at its last, the border's history included (recursive::carry's algebra, in double).
// first / last: the line's samples 0 and N - 1.
// Schedule: the causal chain runs forward and the anticausal one backward in the same loop (two
// independent chains), and the states are read kCarryBatch segments at a time before they are used,
// so a thread waits for global memory once per batch rather than once per segment (measured on an
// H100 with one load per step: 69 µs per carry kernel for 4096², 64 segments per line).
inline constexpr int kCarryBatch = 8;

GAUSSLAB_HD void carry_line(const PassPlan& plan, int line, int pole_index, double first, double last_sample,
                            const StateArrays& states) {
  const PolePlan& k = plan.poles[pole_index];
  const Complex<double> p = k.pole;
  const int last = plan.segments - 1;
  auto index = [&](int segment) { return state_index(plan, segment, pole_index, line); };
  auto pow_size = [&](int segment) { return segment == last ? k.pow_last : k.pow_segment; };
  auto pow_size_minus_1 = [&](int segment) { return segment == last ? k.pow_last_minus_1 : k.pow_segment_minus_1; };

  // Zero-history chains over the whole line: B (causal state at sample N - 1, forward over segments
  // 0 .. last - 1) and F (anticausal state at sample 0, backward over last .. 1), side by side.
  Complex<double> forward{0.0, 0.0}, backward{0.0, 0.0};
  for (int s0 = 0; s0 < last; s0 += kCarryBatch) {
    Complex<float> u[kCarryBatch], w[kCarryBatch];
    GAUSSLAB_UNROLL
    for (int b = 0; b < kCarryBatch; ++b)
      if (s0 + b < last) {
        u[b] = states.causal[index(s0 + b)];
        w[b] = states.anticausal[index(last - (s0 + b))];
      }
    GAUSSLAB_UNROLL
    for (int b = 0; b < kCarryBatch; ++b)
      if (s0 + b < last) {
        forward = p * recursive::complex_cast<double>(u[b]) + pow_size(s0 + b) * forward;
        backward = p * recursive::complex_cast<double>(w[b]) + pow_size(last - (s0 + b)) * backward;
      }
  }
  const Complex<double> far_sum =
      recursive::complex_cast<double>(states.causal[index(last)]) + pow_size_minus_1(last) * forward;  // B
  const Complex<double> near_sum =
      recursive::complex_cast<double>(states.anticausal[index(0)]) + pow_size_minus_1(0) * backward;  // F

  const Complex<double> causal_init =
      k.init_near_sum * near_sum + k.init_far_sum * far_sum + first * k.init_near_sample + last_sample * k.init_far_sample;
  const Complex<double> anticausal_init = k.init_near_sum * far_sum + k.init_far_sum * near_sum +
                                          last_sample * k.init_near_sample + first * k.init_far_sample;
  // True chains, in place: each segment's zero-history state is read before its feedback overwrites it.
  forward = causal_init;
  backward = anticausal_init;
  for (int s0 = 0; s0 <= last; s0 += kCarryBatch) {
    Complex<float> u[kCarryBatch], w[kCarryBatch];
    GAUSSLAB_UNROLL
    for (int b = 0; b < kCarryBatch; ++b)
      if (s0 + b <= last) {
        u[b] = states.causal[index(s0 + b)];
        w[b] = states.anticausal[index(last - (s0 + b))];
      }
    GAUSSLAB_UNROLL
    for (int b = 0; b < kCarryBatch; ++b)
      if (s0 + b <= last) {
        const int s = s0 + b, t = last - (s0 + b);
        states.causal[index(s)] = recursive::complex_cast<float>(forward);
        forward = p * recursive::complex_cast<double>(u[b]) + pow_size(s) * forward;
        states.anticausal[index(t)] = recursive::complex_cast<float>(backward);
        backward = p * recursive::complex_cast<double>(w[b]) + pow_size(t) * backward;
      }
  }
}

// ---- 3. and 5. one tile --------------------------------------------------------------------------

// The tile in shared memory: kTile rows of kPitch floats (odd: a warp reading one element of 32
// different rows hits 32 banks).
inline constexpr int kPitch = kTile + 1;

struct TileGeometry {
  int x0, y0;  // first pixel
  int w, h;    // pixels of the tile inside the image
};
GAUSSLAB_HD TileGeometry tile_geometry(int width, int height, int block) {
  const TileOrigin origin = tile_at(block, div_up(width, kTile), kTile, kTile);
  TileGeometry t;
  t.x0 = origin.x0;
  t.y0 = origin.y0;
  t.w = width - t.x0 < kTile ? width - t.x0 : kTile;
  t.h = height - t.y0 < kTile ? height - t.y0 : kTile;
  return t;
}
GAUSSLAB_HD long long tile_count(int width, int height) { return tile_block_count(width, height, kTile, kTile); }

// Phase 1 (then __syncthreads): thread t copies column t of the tile (coalesced along rows).
// src.load(x, y) reads pixel (x, y) as float; tile.store(i, v) writes slot i.
template <class Src, class Tile>
GAUSSLAB_HD void tile_load(const TileGeometry& g, int thread, const Src& src, const Tile& tile) {
  if (thread >= g.w) return;
  for (int r = 0; r < g.h; ++r) tile.store(r * kPitch + thread, src.load(g.x0 + thread, g.y0 + r));
}

// Phase 2 (then __syncthreads): filters line `thread` of the tile in place: along a column (down the
// tile, slot r * kPitch + line) or along a row (slot line * kPitch + r). The causal pass keeps its half
// of the output in registers; the anticausal pass adds the other half and overwrites the sample.
// Feedback from the carried states of (line, segment). Every slot of the line is read and written by
// this thread only.
template <bool kAlongColumn, class Tile>
GAUSSLAB_HD void filter_tile_line(const PassPlan& plan, int line, int segment, int length, int thread, const Tile& tile,
                                  const StateArrays& states) {
  auto slot = [&](int r) { return kAlongColumn ? r * kPitch + thread : thread * kPitch + r; };
  Complex<float> pole[kPoles], weight[kPoles], state[kPoles];
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) {
    pole[j] = plan.poles[j].pole_f;
    weight[j] = plan.poles[j].weight_f;
    state[j] = states.causal[state_index(plan, segment, j, line)];
  }
  const float centre = plan.centre_f;
  float causal_half[kTile];
  GAUSSLAB_UNROLL
  for (int r = 0; r < kTile; ++r) {
    if (r < length) {
      const float x = tile[slot(r)];
      float sum = -centre * x;
      GAUSSLAB_UNROLL
      for (int j = 0; j < kPoles; ++j) {
        const Complex<float> u{x + state[j].re, state[j].im};
        sum += recursive::real_of_product(weight[j], u);
        state[j] = pole[j] * u;
      }
      causal_half[r] = sum;
    }
  }
  GAUSSLAB_UNROLL
  for (int j = 0; j < kPoles; ++j) state[j] = states.anticausal[state_index(plan, segment, j, line)];
  GAUSSLAB_UNROLL
  for (int r = kTile - 1; r >= 0; --r) {
    if (r < length) {
      const float x = tile[slot(r)];
      float sum = causal_half[r];
      GAUSSLAB_UNROLL
      for (int j = 0; j < kPoles; ++j) {
        const Complex<float> w{x + state[j].re, state[j].im};
        sum += recursive::real_of_product(weight[j], w);
        state[j] = pole[j] * w;
      }
      tile.store(slot(r), sum);
    }
  }
}

// Phase 3 of the column pass (after __syncthreads): thread t computes the zero-history states of
// tile row t over the tile's columns for the row pass (row_plan: lines = image rows, segments of
// kTile columns). Reads the filtered tile only.
template <class Tile>
GAUSSLAB_HD void tile_row_zero_states(const PassPlan& row_plan, const TileGeometry& g, int thread, const Tile& tile,
                                      const StateArrays& row_states) {
  if (thread >= g.h) return;
  segment_zero_states(row_plan, g.y0 + thread, g.x0 / kTile, [&](int n) { return tile[thread * kPitch + (n - g.x0)]; },
                      row_states);
}

// Last phase: thread t writes column t of the tile (coalesced along rows). dst.store(x, y, v).
template <class Tile, class Dst>
GAUSSLAB_HD void tile_store(const TileGeometry& g, int thread, const Tile& tile, const Dst& dst) {
  if (thread >= g.w) return;
  for (int r = 0; r < g.h; ++r) dst.store(g.x0 + thread, g.y0 + r, tile[r * kPitch + thread]);
}

}  // namespace gausslab::recursive_tiled
