// The two 2D methods (naive_2d, shared_2d) without a GPU: the CPU runs the very functions their
// kernels run (cuda/methods/conv2d_common.cuh) — naive_2d thread by thread, shared_2d block by
// block with the kernel's two barrier phases per chunk — and the results are compared with the
// float64 reference. The shared-memory window is the kit's CheckedShared (every access inside the
// window, staged in the current chunk, written once per chunk). Output buffers carry poisoned guard bands, so a
// write outside the image or a pixel never written shows. Also: the chunk plan, the cost refusals
// (through the registry: they need no device) and the accuracy bounds.
#include <gtest/gtest.h>

#include <cmath>  // before conv2d_common.cuh: fmaf for the host compiler

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "conv2d_common.cuh"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "kit/channel_route.hpp"
#include "kit/checked_shared.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/method_tests.hpp"

namespace gausslab::conv2d {
namespace {

GAUSSLAB_METHOD_TESTS("naive_2d", Conv2dNaiveModel);
GAUSSLAB_METHOD_TESTS("shared_2d", Conv2dSharedModel);

// ---- a host image with guard bands, like a device buffer with something on each side ----------

constexpr int kGuard = 3;  // guard pixels on every side (and in the pitch)

template <PixelFormat F>
class GuardedImage {
 public:
  using Storage = PixelStorage<F>;
  GuardedImage(int width, int height)
      : width_(width), height_(height), pitch_(width + 2 * kGuard),
        storage_(static_cast<std::size_t>(pitch_) * (height + 2 * kGuard)) {
    for (Storage& p : storage_) p = poison();
  }
  static Storage poison() {
    if constexpr (F == PixelFormat::Rgba8)
      return make_uchar4(0xA5, 0x5A, 0xA5, 0x5A);
    else
      return std::numeric_limits<float>::quiet_NaN();
  }
  static bool is_poison(Storage p) {
    if constexpr (F == PixelFormat::Rgba8)
      return p.x == 0xA5 && p.y == 0x5A && p.z == 0xA5 && p.w == 0x5A;
    else
      return std::isnan(p);
  }
  Storage& at(int x, int y) {
    return storage_[static_cast<std::size_t>(y + kGuard) * pitch_ + (x + kGuard)];
  }
  const Storage& at(int x, int y) const {
    return storage_[static_cast<std::size_t>(y + kGuard) * pitch_ + (x + kGuard)];
  }
  ImageView view() {
    return {&at(0, 0), width_, height_, static_cast<std::size_t>(pitch_) * sizeof(Storage), F};
  }
  ConstImageView view() const {
    return {&at(0, 0), width_, height_, static_cast<std::size_t>(pitch_) * sizeof(Storage), F};
  }
  // Guard pixels that are no longer poison (written outside the image).
  int guard_writes() const {
    int count = 0;
    for (int y = -kGuard; y < height_ + kGuard; ++y)
      for (int x = -kGuard; x < width_ + kGuard; ++x) {
        const bool inside = x >= 0 && x < width_ && y >= 0 && y < height_;
        if (!inside && !is_poison(at(x, y))) ++count;
      }
    return count;
  }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_, height_, pitch_;
  std::vector<Storage> storage_;
};

template <PixelFormat F>
GuardedImage<F> random_image(int width, int height, std::uint32_t seed) {
  GuardedImage<F> image(width, height);
  std::uint32_t state = seed * 2654435761u + 12345u;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      if constexpr (F == PixelFormat::Rgba8) {
        const std::uint32_t v = next();
        image.at(x, y) = make_uchar4(v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF);
      } else {
        image.at(x, y) = static_cast<float>(next() >> 8) / 16777216.0f;  // [0, 1)
      }
    }
  return image;
}

// ---- the result against the float64 reference ----------------------------------------------

struct Check {
  double error = 0;       // F32: max |result - reference| / max |reference|; RGBA8: max levels
  AccuracyStats stats;
  int unwritten = 0;      // poison left inside the image
  int guard_writes = 0;   // written outside the image
  std::string worst;
};

template <PixelFormat F>
Check check_against_reference(const GuardedImage<F>& src, const GuardedImage<F>& result, const FilterParams& params) {
  const test::ReferenceCheck reference = test::check_against_reference(src.view(), result.view(), params);
  Check check;
  check.stats = reference.stats;
  check.error = bounded_error(reference.stats, F);
  check.worst = reference.worst;
  check.guard_writes = result.guard_writes();
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) check.unwritten += GuardedImage<F>::is_poison(result.at(x, y));
  return check;
}

FilterParams params_of(double sigma, BorderMode border, int fixed_radius = -1) {
  FilterParams params = test::sigma_params(sigma, border);
  params.fixed_radius = fixed_radius;
  return params;
}

AccuracyBound bound_of(const char* method_id, int width, int height, PixelFormat format, const FilterParams& params) {
  return test::registered_bound(method_id, FilterProblem{width, height, format, params});
}

// ---- the CPU models ---------------------------------------------------------------------------

// naive_2d: every thread of every 32 × 8 block, as naive2dKernel runs them.
// `unrolled`: radius 1..3 through the compile-time code, as the method's default instance runs it.
// halo_in_memory: src is a view inside a gathered tile whose memory holds the halo (HaloReads).
// bands: the bands of the window this run sums (window_bands.hpp; default all).
template <PixelFormat F>
void run_naive_model(const ConstImageView& src, GuardedImage<F>& dst, const FilterParams& params, bool unrolled = true,
                     bool halo_in_memory = false, const BandRange& bands = {}) {
  NaiveArgs<F> args = make_naive_args<F>(src, dst.view(), params);
  args.halo_in_memory = halo_in_memory;
  args.bands = bands;
  unrolled = unrolled && bands.first == 0 && bands.end >= naive_band_count(args);  // as the launch chooses
  const std::vector<float> weights = naive_weights_for(params);
  const int tiles_x = div_up(src.width, NaivePolicy::kThreadsX);
  const long long blocks = tile_block_count(src.width, src.height, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);
  for (long long block = 0; block < blocks; ++block) {
    const TileOrigin tile = tile_at(block, tiles_x, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);
    for (int ty = 0; ty < NaivePolicy::kThreadsY; ++ty)
      for (int tx = 0; tx < NaivePolicy::kThreadsX; ++tx) {
        const int x = tile.x0 + tx, y = tile.y0 + ty;
        if (x >= args.dst.width || y >= args.dst.height) continue;
        dispatch_radius(args.radius, unrolled, [&](auto radius) {
          finish_output<F>(args.dst, args.bands, naive_band_count(args), x, y,
                           naive_output<F>(args, weights.data(), x, y, radius), args.rule);
        });
      }
  }
}

// shared_2d: every block; per chunk all threads stage, (barrier), all threads accumulate — the
// order of shared2dKernel. `max_chunk` stands for the device's shared-memory limit.
template <PixelFormat F, int Capacity = kLargeWeightCapacity>
void run_shared_model(const ConstImageView& src, GuardedImage<F>& dst, const FilterParams& params, int max_chunk,
                      bool unrolled = true, bool halo_in_memory = false, const BandRange& bands = {}) {
  using P = Shared2dPolicy<F>;
  const int taps = 2 * params.radius() + 1;
  const ChunkPlan plan = make_chunk_plan(taps, max_chunk);
  Shared2dArgs<F, Capacity> args = make_shared_2d_args<F, Capacity>(
      src, dst.view(), params, plan, gaussian_weights_f32(params.sigma, params.radius()));
  args.halo_in_memory = halo_in_memory;
  args.bands = bands;
  // Exactly what the launch allocates: window_bytes of the plan's chunk, checked (kit/checked_shared.hpp).
  test::CheckedShared<PixelAccum<F>> shared(window_bytes<F>(plan.chunk) / sizeof(PixelAccum<F>), "window");
  auto window = shared.access();
  std::vector<ThreadSums<F>> sums(P::kThreads);
  const long long blocks = tile_block_count(src.width, src.height, P::kTileWidth, P::kTileHeight);
  for (long long block = 0; block < blocks; ++block) {
    const TileOrigin tile = shared_2d_tile<F>(block, args.tiles_x);
    for (int ty = 0; ty < P::kThreadsY; ++ty)
      for (int tx = 0; tx < P::kThreadsX; ++tx) {
        ThreadSums<F>& s = sums[ty * P::kThreadsX + tx];
        clear(s);
        if (thread_row_in_image(args, tile, ty)) load_running_totals(args, tile, tx, ty, s);
      }
    for (int index = first_chunk(args); index < end_chunk(args); ++index) {
      const Chunk chunk = chunk_at(args.chunks, index);
      shared.begin_fill();  // after the barrier that ends the previous chunk's reads
      for (int ty = 0; ty < P::kThreadsY; ++ty)
        for (int tx = 0; tx < P::kThreadsX; ++tx) stage_chunk(args, tile, chunk, tx, ty, window);
      shared.begin_read();  // the barrier after staging
      // The staging must cover exactly the (tile + chunk - 1) window of this chunk.
      const std::size_t expected = static_cast<std::size_t>(P::kTileHeight + chunk.rows - 1) *
                                   (P::kTileWidth + chunk.columns - 1);
      if (shared.filled() != expected)
        throw test::ModelError("chunk " + std::to_string(index) + " staged " + std::to_string(shared.filled()) +
                               " elements, expected " + std::to_string(expected));
      for (int ty = 0; ty < P::kThreadsY; ++ty)
        for (int tx = 0; tx < P::kThreadsX; ++tx)
          if (thread_row_in_image(args, tile, ty))
            dispatch_radius(args.radius, unrolled && plan.chunks_per_side == 1, [&](auto radius) {
              accumulate_chunk(args, chunk, tx, ty, window, sums[ty * P::kThreadsX + tx], radius);
            });
    }
    for (int ty = 0; ty < P::kThreadsY; ++ty)
      for (int tx = 0; tx < P::kThreadsX; ++tx)
        if (thread_row_in_image(args, tile, ty)) store_outputs(args, tile, tx, ty, sums[ty * P::kThreadsX + tx]);
  }
}

enum class Model { Naive, Shared };

template <PixelFormat F>
Check run_case(Model model, int width, int height, const FilterParams& params, int max_chunk = 32,
               std::uint32_t seed = 7) {
  const GuardedImage<F> src = random_image<F>(width, height, seed);
  GuardedImage<F> dst(width, height);
  if (model == Model::Naive)
    run_naive_model(src.view(), dst, params);
  else
    run_shared_model(src.view(), dst, params, max_chunk);
  return check_against_reference(src, dst, params);
}

// ---- chunk plan, summation chunk, tiles --------------------------------------------------------

TEST(Conv2dChunkPlan, ChunksAreBalancedNonEmptyAndCoverEveryTapOnce) {
  auto check = [](int taps, int max_chunk) {
    const ChunkPlan plan = make_chunk_plan(taps, max_chunk);
    const std::string at = "taps " + std::to_string(taps) + ", max chunk " + std::to_string(max_chunk);
    ASSERT_EQ(plan.taps, taps) << at;
    ASSERT_GE(plan.chunk, 1) << at;
    ASSERT_LE(plan.chunk, max_chunk) << at;
    ASSERT_EQ(plan.chunks_per_side, div_up(taps, max_chunk)) << at << ": more chunks than needed";
    int next_row = 0, next_column = 0;
    for (int c = 0; c < plan.chunks_per_side; ++c) {
      const Chunk band_start = chunk_at(plan, c * plan.chunks_per_side);  // first chunk of band c
      const Chunk first_row = chunk_at(plan, c);                          // chunk c of band 0
      ASSERT_EQ(band_start.i0, next_row) << at;
      ASSERT_GE(band_start.rows, 1) << at;
      ASSERT_TRUE(band_start.starts_band) << at;
      ASSERT_EQ(band_start.ends_band, plan.chunks_per_side == 1) << at;
      ASSERT_EQ(first_row.j0, next_column) << at;
      ASSERT_GE(first_row.columns, 1) << at;
      ASSERT_EQ(first_row.ends_band, c == plan.chunks_per_side - 1) << at;
      ASSERT_EQ(first_row.starts_band, c == 0) << at;
      if (c < plan.chunks_per_side - 1) {  // all but the last have the full size
        ASSERT_EQ(first_row.columns, plan.chunk) << at;
        ASSERT_EQ(band_start.rows, plan.chunk) << at;
      }
      next_row += band_start.rows;
      next_column += first_row.columns;
    }
    ASSERT_EQ(next_row, taps) << at;
    ASSERT_EQ(next_column, taps) << at;
  };
  for (int taps = 1; taps <= 801; taps += 2)
    for (int max_chunk = 1; max_chunk <= 40; ++max_chunk) check(taps, max_chunk);
  for (int max_chunk : {8, 16, 23, 24, 32}) check(2 * kMaxRadius + 1, max_chunk);
  // Balanced, not 32 + 1:
  EXPECT_EQ(make_chunk_plan(33, 32).chunk, 17);
  EXPECT_EQ(make_chunk_plan(17, 32).chunks_per_side, 1);
}

TEST(Conv2dChunkPlan, WindowFitsTheSharedMemoryOfEachTarget) {
  // Opt-in shared memory per block: Turing 64 KB, Ampere/Ada consumer 99 KB, Hopper 227 KB.
  EXPECT_EQ(max_chunk_for<PixelFormat::Rgba8>(227 * 1024), 32);
  EXPECT_EQ(max_chunk_for<PixelFormat::Rgba8>(99 * 1024), 32);
  const int turing_rgba8 = max_chunk_for<PixelFormat::Rgba8>(64 * 1024);
  EXPECT_GE(turing_rgba8, 16);
  EXPECT_LE(window_bytes<PixelFormat::Rgba8>(turing_rgba8), 64u * 1024u);
  EXPECT_EQ(max_chunk_for<PixelFormat::F32>(48 * 1024), 32) << "F32 should need no opt-in";
  EXPECT_LE(window_bytes<PixelFormat::F32>(32), 48u * 1024u);
  EXPECT_EQ(max_chunk_for<PixelFormat::Rgba8>(1000), 0);
  std::cout << "[ CONV2D   ] window at chunk 32: rgba8 " << window_bytes<PixelFormat::Rgba8>(32) << " B, f32 "
            << window_bytes<PixelFormat::F32>(32) << " B; rgba8 chunk on a 64 KB device: " << turing_rgba8 << " ("
            << window_bytes<PixelFormat::Rgba8>(turing_rgba8) << " B)\n";
}

// Both models with the compile-time code and with the run-time loop: the same bytes.
template <PixelFormat F>
void expect_unrolled_equals_looped(Model model, int width, int height, const FilterParams& params) {
  const GuardedImage<F> src = random_image<F>(width, height, 11u);
  GuardedImage<F> unrolled(width, height), looped(width, height);
  if (model == Model::Naive) {
    run_naive_model(src.view(), unrolled, params, true);
    run_naive_model(src.view(), looped, params, false);
  } else {
    run_shared_model(src.view(), unrolled, params, 32, true);
    run_shared_model(src.view(), looped, params, 32, false);
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      ASSERT_EQ(std::memcmp(&unrolled.at(x, y), &looped.at(x, y), sizeof(PixelStorage<F>)), 0)
          << (model == Model::Naive ? "naive " : "shared ") << width << "x" << height << ", " << describe(params)
          << " at " << x << "," << y;
}

TEST(Conv2dModels, CompileTimeSmallKernelsEqualTheRunTimeLoopBitForBit) {
  for (const int radius : {1, 2, 3})
    for (const BorderMode border : kAllBorderModes)
      for (const auto& [w, h] : {std::pair{1, 1}, {2, 5}, {37, 11}, {161, 17}}) {
        FilterParams params;
        params.sigma = radius / 3.0 + 0.2;
        params.fixed_radius = radius;
        params.border = border;
        for (const Model model : {Model::Naive, Model::Shared}) {
          expect_unrolled_equals_looped<PixelFormat::Rgba8>(model, w, h, params);
          expect_unrolled_equals_looped<PixelFormat::F32>(model, w, h, params);
        }
      }
  // The compile-time chunk is the run-time one.
  for (int taps = 1; taps <= 2 * kMaxRadius + 1; ++taps) ASSERT_EQ(summation_chunk_of(taps), summation_chunk(taps));
  static_assert(summation_chunk_of(7) == 3 && summation_chunk_of(5) == 3 && summation_chunk_of(3) == 2);
}

// A tile's core computed from a gathered tile whose halo is in memory (HaloReads, the sliced
// runs' tiles): the same sums over the same values as the whole run, so the same bytes, for both
// models, every border (wrap and 'constant' included), radii 1 (compile-time code) to 9, with
// tiles at the picture's corners and inside it.
template <PixelFormat F>
void expect_core_from_halo_equals_whole_run(Model model, int width, int height, const FilterParams& params, int x0,
                                            int y0, int core_w, int core_h) {
  const GuardedImage<F> src = random_image<F>(width, height, 23u);
  GuardedImage<F> whole(width, height);
  if (model == Model::Naive)
    run_naive_model(src.view(), whole, params);
  else
    run_shared_model(src.view(), whole, params, 32);
  const int r = params.radius();
  GuardedImage<F> gathered(core_w + 2 * r, core_h + 2 * r);  // the tile with its halo, border rule applied
  for (int y = 0; y < core_h + 2 * r; ++y)
    for (int x = 0; x < core_w + 2 * r; ++x) {
      const int sx = border_index(x0 - r + x, width, params.border), sy = border_index(y0 - r + y, height, params.border);
      gathered.at(x, y) = sx < 0 || sy < 0 ? zero_value<PixelStorage<F>>() : src.at(sx, sy);
    }
  const ConstImageView core{&gathered.at(r, r), core_w, core_h, gathered.view().pitch_bytes, F};
  GuardedImage<F> out(core_w, core_h);
  if (model == Model::Naive)
    run_naive_model(core, out, params, true, true);
  else
    run_shared_model(core, out, params, 32, true, true);
  EXPECT_EQ(out.guard_writes(), 0);
  for (int y = 0; y < core_h && y0 + y < height; ++y)
    for (int x = 0; x < core_w && x0 + x < width; ++x)
      ASSERT_EQ(std::memcmp(&out.at(x, y), &whole.at(x0 + x, y0 + y), sizeof(PixelStorage<F>)), 0)
          << (model == Model::Naive ? "naive" : "shared") << " border " << to_string(params.border) << " radius " << r
          << " tile at " << x0 << "," << y0 << ": pixel " << x << "," << y;
}

TEST(Conv2dModels, ACoreReadFromItsHaloInMemoryEqualsTheWholeRunBitForBit) {
  for (BorderMode border : kAllBorderModes)
    for (double sigma : {0.4, 1.0, 3.0})
      for (Model model : {Model::Naive, Model::Shared}) {
        const FilterParams params = params_of(sigma, border);
        // The top-left corner (halo beyond two sides), the middle, the bottom-right corner overhanging.
        expect_core_from_halo_equals_whole_run<PixelFormat::Rgba8>(model, 45, 37, params, 0, 0, 20, 13);
        expect_core_from_halo_equals_whole_run<PixelFormat::Rgba8>(model, 45, 37, params, 12, 9, 20, 13);
        expect_core_from_halo_equals_whole_run<PixelFormat::F32>(model, 45, 37, params, 30, 28, 20, 13);
      }
}

// A window summed over several launches, a range of its bands each, the running totals kept in
// memory between them (window_bands.hpp; a sliced run's steps): the same additions in the same order
// as one launch, so the same bytes, for both models, every border, one to three bands a launch.
template <PixelFormat F>
void expect_bands_in_steps_equal_one_run(Model model, int width, int height, const FilterParams& params, int max_chunk,
                                         int bands_per_launch) {
  const GuardedImage<F> src = random_image<F>(width, height, 31u);
  GuardedImage<F> whole(width, height);
  GuardedImage<F> stepped(width, height);
  const int radius = params.radius();
  const WindowBands bands = model == Model::Naive
                                ? naive_window_bands<F>(radius)
                                : shared_window_bands(make_chunk_plan(2 * radius + 1, max_chunk), sizeof(PixelAccum<F>));
  ASSERT_GT(bands.count, bands_per_launch) << "the case must be split";
  std::vector<PixelAccum<F>> totals(static_cast<std::size_t>(width) * height);
  for (int first = 0; first < bands.count; first += bands_per_launch) {
    BandRange range{first, std::min(first + bands_per_launch, bands.count), totals.data(), width * sizeof(PixelAccum<F>)};
    if (range.end == bands.count) range.end = INT_MAX;  // the last launch as SlicedRun makes it
    if (model == Model::Naive)
      run_naive_model(src.view(), stepped, params, true, false, range);
    else
      run_shared_model(src.view(), stepped, params, max_chunk, true, false, range);
  }
  if (model == Model::Naive)
    run_naive_model(src.view(), whole, params);
  else
    run_shared_model(src.view(), whole, params, max_chunk);
  EXPECT_EQ(stepped.guard_writes(), 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      ASSERT_EQ(std::memcmp(&stepped.at(x, y), &whole.at(x, y), sizeof(PixelStorage<F>)), 0)
          << (model == Model::Naive ? "naive" : "shared") << " border " << to_string(params.border) << " radius "
          << radius << ", " << bands_per_launch << " bands a launch: pixel " << x << "," << y;
}

TEST(Conv2dModels, AWindowSummedBandsAtATimeEqualsOneRunBitForBit) {
  // Radius 3 (7 taps: naive's 3 bands of 3 rows, the compile-time radius; shared with 2-tap chunks:
  // 4 bands) and radius 9 (naive 4 bands, shared 10).
  for (BorderMode border : kAllBorderModes)
    for (const auto& [radius, bands_per_launch] : {std::pair{3, 1}, {3, 2}, {9, 1}, {9, 2}, {9, 3}}) {
      const FilterParams params = params_of(radius / 3.0, border, radius);
      for (Model model : {Model::Naive, Model::Shared}) {
        expect_bands_in_steps_equal_one_run<PixelFormat::Rgba8>(model, 37, 29, params, 2, bands_per_launch);
        expect_bands_in_steps_equal_one_run<PixelFormat::F32>(model, 41, 23, params, 2, bands_per_launch);
      }
    }
}

TEST(Conv2dSummation, ChunkIsTheCeilingOfTheSquareRoot) {
  for (int taps = 1; taps <= 2 * kMaxRadius + 1; ++taps) {
    const int c = summation_chunk(taps);
    ASSERT_GE(c * c, taps) << taps;
    ASSERT_LT((c - 1) * (c - 1), taps) << taps;
  }
}

TEST(Conv2dWeights, NaiveKernelIsTheProductOfTheReferenceWeights) {
  for (const auto& [sigma, radius] : {std::pair{0.1, 0}, {1.0, 4}, {2.5, 10}, {30.0, 63}, {16.0, 64}}) {
    const std::vector<float> weights = naive_weights_2d(sigma, radius);
    const std::vector<double> w = gaussian_weights(sigma, radius);
    const int taps = 2 * radius + 1;
    ASSERT_EQ(weights.size(), static_cast<std::size_t>(taps) * taps);
    double sum = 0;
    for (int i = 0; i < taps; ++i)
      for (int j = 0; j < taps; ++j) {
        const float value = weights[static_cast<std::size_t>(i) * taps + j];
        ASSERT_EQ(value, static_cast<float>(w[i] * w[j])) << "sigma " << sigma << " (" << i << ", " << j << ")";
        ASSERT_EQ(value, weights[static_cast<std::size_t>(j) * taps + i]) << "not symmetric";
        sum += value;
      }
    EXPECT_NEAR(sum, 1.0, 1e-6) << "sigma " << sigma;
  }
}

// ---- the models against the float64 reference --------------------------------------------------

struct SizeCase {
  int width, height;
};

template <PixelFormat F>
void sweep(Model model, const char* method_id, const std::vector<SizeCase>& sizes, const std::vector<double>& sigmas,
           const std::vector<int>& max_chunks, double* worst_error = nullptr) {
  for (const SizeCase& size : sizes)
    for (const double sigma : sigmas)
      for (const BorderMode border : kAllBorderModes)
        for (const int max_chunk : max_chunks) {
          const FilterParams params = params_of(sigma, border);
          const std::string at = std::string(method_id) + ", " +
                                 test::describe_case(F, size.width, size.height, params) + ", max chunk " +
                                 std::to_string(max_chunk);
          Check check;
          try {
            check = run_case<F>(model, size.width, size.height, params, max_chunk);
          } catch (const std::exception& e) {
            ADD_FAILURE() << at << ": " << e.what();
            continue;
          }
          const AccuracyBound bound = bound_of(method_id, size.width, size.height, F, params);
          EXPECT_TRUE(meets(check.stats, bound, F))
              << at << ": error " << check.error << " against the bound " << bound_for(bound, F) << ", worst at "
              << check.worst;
          EXPECT_EQ(check.unwritten, 0) << at << ": pixels never written";
          EXPECT_EQ(check.guard_writes, 0) << at << ": pixels written outside the image";
          if (worst_error) *worst_error = std::max(*worst_error, check.error);
          if (model == Model::Naive) break;  // the chunk is a shared_2d notion
        }
}

// Sizes: single pixel and lines, smaller than a warp, primes, one past a tile edge (96 + 1 for
// RGBA8, 160 + 1 for F32, 8 + 1 rows), and radii from 0 to well past every side.
const std::vector<SizeCase> kSmallSizes = {{1, 1}, {1, 11}, {11, 1}, {7, 5}, {13, 17}, {33, 9}};
const std::vector<double> kSigmas = {0.1, 0.5, 1.0, 2.5, 8.0};  // radius 0, 2, 4, 10, 32

TEST(Conv2dNaiveModel, MatchesTheReferenceOnEdgeSizesForEveryBorder) {
  sweep<PixelFormat::Rgba8>(Model::Naive, "naive_2d", kSmallSizes, kSigmas, {0});
  sweep<PixelFormat::F32>(Model::Naive, "naive_2d", kSmallSizes, kSigmas, {0});
}

// The F32 model as the channel adapter runs it on every other format (kit/channel_route.hpp).
ImageF32 f32_model(Model model, const ImageF32& src, const FilterParams& params) {
  GuardedImage<PixelFormat::F32> dst(src.width(), src.height());
  if (model == Model::Naive)
    run_naive_model(src.view(), dst, params);
  else
    run_shared_model(src.view(), dst, params, 32);
  ImageF32 out(src.width(), src.height());
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) out.at(x, y) = dst.at(x, y);
  return out;
}

TEST(Conv2dNaiveModel, EveryOtherFormatThroughFloatPlanesMeetsTheBoundInItsOwnUnit) {
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound(
                "naive_2d", {0.6, 2.5},
                [](const ImageF32& src, const FilterParams& params) { return f32_model(Model::Naive, src, params); }),
            kPixelFormatCount - 2);
}

TEST(Conv2dSharedModel, EveryOtherFormatThroughFloatPlanesMeetsTheBoundInItsOwnUnit) {
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound(
                "shared_2d", {0.6, 2.5},
                [](const ImageF32& src, const FilterParams& params) { return f32_model(Model::Shared, src, params); }),
            kPixelFormatCount - 2);
}

// Custom kernels: matrices of any rank (square and not, asymmetric, unnormalised, convolved,
// normalised), a mask and a pair (as their outer products), on edge sizes and one past the tile
// edge, every border, nearest/floor/ceil for RGBA8: within the registered bound of the reference.
std::vector<FilterKernel> custom_kernels() {
  FilterKernel full = FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10});
  FilterKernel wide = FilterKernel::matrix_2d(5, 3, {0.5, -1, 2, 0.25, 1, 3, 0, -2, 1, 0.5, 1, 1, 4, -0.5, 2});
  wide.convolve = true;
  FilterKernel tall_normalised = FilterKernel::matrix_2d(1, 7, {1, 3, 5, 9, 5, 2, 1});
  tall_normalised.normalize = true;
  return {full, wide, tall_normalised, FilterKernel::mask({1, 2, 5}), FilterKernel::pair({1, 0, -1}, {1, 2, 1})};
}

template <PixelFormat F>
int sweep_custom_kernels(const std::vector<SizeCase>& sizes) {
  int cases = 0;
  for (const FilterKernel& kernel : custom_kernels())
    for (const SizeCase& size : sizes)
      for (const BorderMode border : kAllBorderModes)
        for (const IntegerRounding rounding : {IntegerRounding::Nearest, IntegerRounding::Floor, IntegerRounding::Ceil}) {
          if (F == PixelFormat::F32 && rounding != IntegerRounding::Nearest) continue;
          FilterParams params;
          params.kernel = kernel;
          params.border = border;
          params.rounding = rounding;
          const std::string at = test::describe_case(F, size.width, size.height, params);
          const Check check = run_case<F>(Model::Naive, size.width, size.height, params);
          const AccuracyBound bound = bound_of("naive_2d", size.width, size.height, F, params);
          EXPECT_TRUE(meets(check.stats, bound, F))
              << at << ": error " << check.error << " against the bound " << bound_for(bound, F) << ", worst at "
              << check.worst;
          EXPECT_EQ(check.unwritten, 0) << at;
          EXPECT_EQ(check.guard_writes, 0) << at;
          ++cases;
        }
  return cases;
}

TEST(Conv2dNaiveModel, CustomKernelsOfEveryRankMeetTheBoundAtEveryBorder) {
  const std::vector<SizeCase> sizes = {{1, 1}, {7, 5}, {33, 9}};
  EXPECT_EQ(sweep_custom_kernels<PixelFormat::Rgba8>(sizes), 5 * 3 * 5 * 3);
  EXPECT_EQ(sweep_custom_kernels<PixelFormat::F32>(sizes), 5 * 3 * 5);
}

TEST(Conv2dNaiveModel, CustomWeightsAreTheMatrixCentredInTheSquareOfItsReach) {
  FilterParams params;
  params.kernel = FilterKernel::matrix_2d(3, 1, {1, 2, 4});  // reach 1 along x, 0 along y
  params.kernel.convolve = true;
  const std::vector<float> w = naive_weights_for(params);
  EXPECT_EQ(w, (std::vector<float>{0, 0, 0, 4, 2, 1, 0, 0, 0}));  // flipped, in the middle row
}

// The original BMP system's kind of table, a full-rank integer matrix divided by its sum and
// floored with a zero border, against integer arithmetic written here: byte for byte.
TEST(Conv2dNaiveModel, FloorOfANormalisedIntegerTableIsExact) {
  const std::vector<int> table = {1, 4, 7, 4, 1, 4, 16, 26, 16, 4, 7, 26, 41, 26, 7, 4, 16, 26, 16, 4, 1, 4, 7, 4, 2};
  int sum = 0;
  for (int v : table) sum += v;
  FilterParams params;
  params.kernel = FilterKernel::matrix_2d(5, 5, std::vector<double>(table.begin(), table.end()));
  params.kernel.normalize = true;
  params.border = BorderMode::Constant;
  params.rounding = IntegerRounding::Floor;
  const GuardedImage<PixelFormat::Rgba8> src = random_image<PixelFormat::Rgba8>(37, 19, 3);
  GuardedImage<PixelFormat::Rgba8> dst(37, 19);
  run_naive_model(src.view(), dst, params);
  for (int y = 0; y < 19; ++y)
    for (int x = 0; x < 37; ++x)
      for (int c = 0; c < 4; ++c) {
        long total = 0;
        for (int j = 0; j < 5; ++j)
          for (int i = 0; i < 5; ++i) {
            const int sx = x + i - 2, sy = y + j - 2;
            if (sx < 0 || sy < 0 || sx >= 37 || sy >= 19) continue;
            total += table[static_cast<std::size_t>(j) * 5 + i] * (&src.at(sx, sy).x)[c];
          }
        ASSERT_EQ((&dst.at(x, y).x)[c], total / sum) << x << ", " << y << ", channel " << c;
      }
}

TEST(Conv2dNaiveModel, TileEdgesAndRadiusAroundTheConstantMemorySwitch) {
  sweep<PixelFormat::Rgba8>(Model::Naive, "naive_2d", {{33, 9}, {31, 7}}, {15.8, 16.0}, {0});  // radius 63, 64
  sweep<PixelFormat::F32>(Model::Naive, "naive_2d", {{65, 17}}, {1.0}, {0});
}

TEST(Conv2dSharedModel, MatchesTheReferenceOnEdgeSizesForEveryBorder) {
  // Chunk 32: one chunk up to radius 15; 7 and 3: many chunks, short last chunks, unrolled steps
  // with and without the single-tap tail; 1: one tap per chunk.
  sweep<PixelFormat::Rgba8>(Model::Shared, "shared_2d", kSmallSizes, kSigmas, {32, 7});
  sweep<PixelFormat::F32>(Model::Shared, "shared_2d", kSmallSizes, kSigmas, {32, 7});
  sweep<PixelFormat::Rgba8>(Model::Shared, "shared_2d", kSmallSizes, {1.0, 2.5}, {3});
  sweep<PixelFormat::F32>(Model::Shared, "shared_2d", kSmallSizes, {1.0, 2.5}, {3});
  sweep<PixelFormat::F32>(Model::Shared, "shared_2d", {{5, 3}}, {1.0}, {1});
}

TEST(Conv2dSharedModel, TileEdgesAndSeveralTiles) {
  sweep<PixelFormat::Rgba8>(Model::Shared, "shared_2d", {{97, 9}, {95, 17}, {193, 3}}, {1.0, 2.5}, {32, 5});
  sweep<PixelFormat::F32>(Model::Shared, "shared_2d", {{161, 9}, {159, 17}, {321, 2}}, {1.0, 2.5}, {32, 5});
}

TEST(Conv2dSharedModel, RadiusBeyondTheChunkAndTheImage) {
  // Radius 64 and 120 on tiny images: 2 × 2 and 8 × 8 chunks, every border folding many times.
  sweep<PixelFormat::Rgba8>(Model::Shared, "shared_2d", {{3, 2}, {1, 5}}, {16.0}, {32});
  sweep<PixelFormat::F32>(Model::Shared, "shared_2d", {{3, 2}}, {30.0}, {32, 24});
}

TEST(Conv2dModels, FixedRadiusAndShortTruncate) {
  for (const int fixed : {0, 1, 3}) {
    const FilterParams params = params_of(3.0, BorderMode::Nearest, fixed);
    EXPECT_LE(run_case<PixelFormat::F32>(Model::Naive, 19, 11, params).error, 1e-5) << fixed;
    EXPECT_LE(run_case<PixelFormat::F32>(Model::Shared, 19, 11, params).error, 1e-5) << fixed;
  }
  FilterParams short_truncate = params_of(5.0, BorderMode::Wrap);
  short_truncate.truncate = 1.0;  // radius 5
  EXPECT_LE(run_case<PixelFormat::Rgba8>(Model::Shared, 29, 13, short_truncate, 4).error, 0.51);
  EXPECT_LE(run_case<PixelFormat::Rgba8>(Model::Naive, 29, 13, short_truncate).error, 0.51);
}

TEST(Conv2dModels, ConstantImageStaysConstantExceptWithZeroBorder) {
  for (const Model model : {Model::Naive, Model::Shared})
    for (const BorderMode border : kAllBorderModes) {
      GuardedImage<PixelFormat::Rgba8> src(23, 14), dst(23, 14);
      for (int y = 0; y < 14; ++y)
        for (int x = 0; x < 23; ++x) src.at(x, y) = make_uchar4(255, 0, 128, 77);
      const FilterParams params = params_of(6.0, border);
      if (model == Model::Naive)
        run_naive_model(src.view(), dst, params);
      else
        run_shared_model(src.view(), dst, params, 32);
      int changed = 0;
      for (int y = 0; y < 14; ++y)
        for (int x = 0; x < 23; ++x) {
          const uchar4 p = dst.at(x, y);
          changed += !(p.x == 255 && p.y == 0 && p.z == 128 && p.w == 77);
        }
      if (border == BorderMode::Constant)
        EXPECT_GT(changed, 0) << "zero border darkens the edges";
      else
        EXPECT_EQ(changed, 0) << (model == Model::Naive ? "naive" : "shared") << ", " << to_string(border);
    }
}

// The numbers for the methods' header blocks: worst error of each model on random images of both
// formats (every border), and at the largest radius the CPU can afford here.
TEST(Conv2dModels, AccuracyTable) {
  for (const Model model : {Model::Naive, Model::Shared}) {
    const char* id = model == Model::Naive ? "naive_2d" : "shared_2d";
    double rgba8 = 0, f32 = 0;
    sweep<PixelFormat::Rgba8>(model, id, {{61, 47}}, {0.5, 1.0, 2.0, 5.0}, {32}, &rgba8);
    sweep<PixelFormat::F32>(model, id, {{61, 47}}, {0.5, 1.0, 2.0, 5.0}, {32}, &f32);
    sweep<PixelFormat::F32>(model, id, {{24, 8}}, {12.0}, {32}, &f32);  // radius 48
    std::cout << "[ CONV2D   ] " << id << " CPU model, random 61x47 sigma 0.5-5 and 24x8 sigma 12, every border: "
              << "F32 max relative error " << f32 << ", RGBA8 max " << rgba8 << " levels\n";
  }
  // Radius 800 (sigma 200): the largest default-truncate radius, the naive model only (the shared
  // model computes 160 × 8 padded outputs per tile: too slow for a unit test on the CPU).
  double worst = 0;
  for (const BorderMode border : {BorderMode::Reflect, BorderMode::Wrap}) {
    const FilterParams params = params_of(200.0, border);
    const Check check = run_case<PixelFormat::F32>(Model::Naive, 2, 2, params);
    EXPECT_LE(check.error, bound_of("naive_2d", 2, 2, PixelFormat::F32, params).max_relative_error) << check.worst;
    worst = std::max(worst, check.error);
  }
  std::cout << "[ CONV2D   ] naive_2d CPU model, radius 800 on 2x2 F32: max relative error " << worst << "\n";
}

// ---- bounds ----------------------------------------------------------------------------------

TEST(Conv2dBounds, WorstCaseRoundingStaysWithinOneInTenToTheFiveForUsualRadii) {
  int naive_first_above = -1, shared_first_above = -1;
  for (int radius = 0; radius <= kMaxRadius; ++radius) {
    const int taps = 2 * radius + 1;
    if (naive_first_above < 0 && naive_error_units(taps) * kUnitRoundoff > 1e-5) naive_first_above = radius;
    if (shared_first_above < 0 && shared_error_units(make_chunk_plan(taps, 32)) * kUnitRoundoff > 1e-5)
      shared_first_above = radius;
  }
  EXPECT_GT(naive_first_above, 400);
  EXPECT_GT(shared_first_above, 400);
  std::cout << "[ CONV2D   ] worst-case rounding bound: naive " << naive_error_units(127) * kUnitRoundoff
            << " at radius 63, " << naive_error_units(1601) * kUnitRoundoff << " at radius 800, above 1e-5 from radius "
            << naive_first_above << "; shared (chunk 32) " << shared_error_units(make_chunk_plan(127, 32)) * kUnitRoundoff
            << " at radius 63, " << shared_error_units(make_chunk_plan(1601, 32)) * kUnitRoundoff
            << " at radius 800, above 1e-5 from radius " << shared_first_above << "\n";
  for (const char* id : {"naive_2d", "shared_2d"}) {
    const AccuracyBound bound = bound_of(id, 640, 480, PixelFormat::F32, params_of(15.0, BorderMode::Reflect));
    EXPECT_EQ(bound.max_relative_error, 1e-5) << id;
    EXPECT_EQ(bound.max_error_8bit, 0.51) << id;
  }
}

// ---- cost refusals (the registry's methods: no device needed) -----------------------------------

bool mentions_cost(const std::string& reason) {
  return reason.find("multiply-adds") != std::string::npos && reason.find(" s ") != std::string::npos &&
         reason.find_first_of("0123456789") != std::string::npos;
}

TEST(Conv2dCost, RefusesSigma200OnA4096SquareNamingTheEstimate) {
  for (const char* id : {"naive_2d", "shared_2d"}) {
    const std::unique_ptr<Method> method = find_method(id)->create();
    FilterProblem problem{4096, 4096, PixelFormat::Rgba8, params_of(200.0, BorderMode::Reflect)};
    const std::string reason = method->unsupported_reason(problem);
    ASSERT_FALSE(reason.empty()) << id;
    EXPECT_TRUE(mentions_cost(reason)) << id << ": " << reason;
    EXPECT_NE(reason.find("lower sigma below"), std::string::npos) << id << ": " << reason;
    EXPECT_THROW(method->prepare(problem), std::invalid_argument) << id;
    std::cout << "[ CONV2D   ] " << id << " refuses: " << reason << "\n";

    problem.params.fixed_radius = 1500;
    EXPECT_NE(method->unsupported_reason(problem).find("lower the radius to"), std::string::npos) << id;

    FilterProblem textbook{1920, 1080, PixelFormat::Rgba8, params_of(2.0, BorderMode::Reflect)};
    EXPECT_EQ(method->unsupported_reason(textbook), "") << id;
    FilterProblem tiny{1, 1, PixelFormat::Rgba8, params_of(200.0, BorderMode::Mirror)};
    tiny.params.truncate = 10.0;  // radius 2000, the project's largest
    EXPECT_EQ(method->unsupported_reason(tiny), "") << id << " refuses radius 2000 on one pixel";
  }
}

TEST(Conv2dCost, SharedAcceptsEveryProblemNaiveAccepts) {
  const std::unique_ptr<Method> naive = find_method("naive_2d")->create();
  const std::unique_ptr<Method> shared = find_method("shared_2d")->create();
  int naive_accepted = 0;
  for (const auto& [width, height] : {std::pair{1, 1}, {1, 4099}, {4099, 1}, {17, 4099}, {4099, 17}, {33, 300},
                                      {512, 512}, {1000, 872}, {1920, 1080}, {4096, 4096}})
    for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
      for (double sigma = 0.1; sigma <= 200.0; sigma *= 1.3) {
        const FilterProblem problem{width, height, format, params_of(sigma, BorderMode::Reflect)};
        if (!naive->unsupported_reason(problem).empty()) continue;
        ++naive_accepted;
        EXPECT_EQ(shared->unsupported_reason(problem), "")
            << "shared_2d refuses what naive_2d accepts: "
            << test::describe_case(format, width, height, problem.params);
      }
  EXPECT_GT(naive_accepted, 100);
}

TEST(Conv2dCost, LargestRadiusAtCommonSizes) {
  // The examples in the methods' header blocks.
  for (const char* id : {"naive_2d", "shared_2d"}) {
    const std::unique_ptr<Method> method = find_method(id)->create();
    for (const auto& [width, height] : {std::pair{1920, 1080}, {4096, 4096}, {512, 512}})
      for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32}) {
        int largest = -1;
        for (int radius = 0; radius <= kMaxRadius; ++radius) {
          const FilterProblem problem{width, height, format, params_of(10.0, BorderMode::Reflect, radius)};
          if (!method->unsupported_reason(problem).empty()) break;
          largest = radius;
        }
        std::cout << "[ CONV2D   ] " << id << " " << to_string(format) << " " << width << "x" << height
                  << ": accepts up to radius " << largest << " (sigma " << (largest + 0.5) / 4.0 << ")\n";
        EXPECT_GE(largest, 20) << id;
      }
  }
}

}  // namespace
}  // namespace gausslab::conv2d
