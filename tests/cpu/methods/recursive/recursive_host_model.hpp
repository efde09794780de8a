#pragma once
// The CPU model of the recursive method: runs the per-thread functions of recursive_model.hpp in
// the order the GPU launches them — every thread of a kernel, every block of a transpose with its
// barrier between the load and the store phase — on host buffers laid out as the device's.
// test_recursive.cpp compares it with the float64 reference; recursive.cu launches the same functions.
#include <stdexcept>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "recursive_coefficients.hpp"

namespace gausslab::recursive {

// The three kernels of one 1D pass, thread by thread. `states` are the two state arrays, resized here.
template <class S, class In, class Out>
void run_pass_on_host(const PassPlan& plan, const Columns<const In>& src, const Columns<Out>& dst,
                      std::vector<Complex<double>>& causal_states, std::vector<Complex<double>>& anticausal_states) {
  constexpr int C = kChannelsOf<In>;
  causal_states.assign(state_count(plan, C), Complex<double>{0, 0});
  anticausal_states.assign(state_count(plan, C), Complex<double>{0, 0});
  for (long long t = 0; t < plan.zero_state_threads(); ++t) {
    const SegmentThread thread = segment_thread(plan, t);
    zero_states<S>(plan, src, thread.column, thread.segment, causal_states.data(), anticausal_states.data());
  }
  for (long long t = 0; t < carry_threads(plan, C); ++t) {
    const CarryThread thread = carry_thread(plan, C, t);
    carry(plan, src, thread.column, thread.pole, thread.channel, causal_states.data(), anticausal_states.data());
  }
  for (long long t = 0; t < plan.zero_state_threads(); ++t) {
    const SegmentThread thread = segment_thread(plan, t);
    segment_output<S>(plan, src, dst, thread.column, thread.segment, causal_states.data(), anticausal_states.data());
  }
}

// The transpose kernel, block by block: all threads load, (barrier), all threads store.
template <class In, class Out>
void transpose_on_host(const Columns<const In>& src, const Columns<Out>& dst) {
  if (dst.count != src.length || dst.length != src.count)
    throw std::invalid_argument("transpose_on_host: the destination is not the transposed size");
  const TransposeGrid grid = transpose_grid(src.count, src.length);
  std::vector<In> storage(kTileSide * (kTileSide + 1));
  Tile<In>& tile = *reinterpret_cast<Tile<In>*>(storage.data());
  for (long long t = 0; t < grid.tiles(); ++t) {
    const int tile_x = static_cast<int>(t % grid.tiles_x), tile_y = static_cast<int>(t / grid.tiles_x);
    for (int ty = 0; ty < kTileRowsPerPass; ++ty)
      for (int tx = 0; tx < kTileSide; ++tx) transpose_load(src, tile_x, tile_y, tx, ty, tile);
    for (int ty = 0; ty < kTileRowsPerPass; ++ty)
      for (int tx = 0; tx < kTileSide; ++tx) transpose_store(tile, dst, tile_x, tile_y, tx, ty);
  }
}

// The whole method on host images (Pixel = Rgba8 or float), with the recursion state in S.
// forced_segment_length > 0 overrides the segment length the GPU would choose.
template <class S, class Pixel>
void filter_on_host(const Image<Pixel>& src, Image<Pixel>& dst, const FilterParams& params,
                    int forced_segment_length = 0) {
  constexpr int C = kChannelsOf<Pixel>;
  using Scratch = Intermediate<C>;
  const int width = src.width(), height = src.height();
  if (dst.width() != width || dst.height() != height)
    throw std::invalid_argument("filter_on_host: source and destination differ in size");
  const ImagePlan plan = plan_image(width, height, params.sigma, params.border, forced_segment_length);
  std::vector<Scratch> scratch_a(plan.scratch_elements), scratch_b(plan.scratch_elements);
  std::vector<Complex<double>> causal, anticausal;

  const Columns<const Pixel> source{src.data(), src.pitch_bytes(), width, height};
  const Columns<Scratch> a_image{scratch_a.data(), plan.pitch_elements_columns * sizeof(Scratch), width, height};
  const Columns<Scratch> b_transposed{scratch_b.data(), plan.pitch_elements_rows * sizeof(Scratch), height, width};
  const Columns<Scratch> a_transposed{scratch_a.data(), plan.pitch_elements_rows * sizeof(Scratch), height, width};
  const Columns<Pixel> destination{dst.data(), dst.pitch_bytes(), width, height};
  auto as_const = [](const Columns<Scratch>& v) {
    return Columns<const Scratch>{v.data, v.pitch_bytes, v.count, v.length};
  };

  run_pass_on_host<S>(plan.columns, source, a_image, causal, anticausal);
  transpose_on_host(as_const(a_image), b_transposed);
  run_pass_on_host<S>(plan.rows, as_const(b_transposed), a_transposed, causal, anticausal);
  transpose_on_host(as_const(a_transposed), destination);
}

}  // namespace gausslab::recursive
