// separable_fused on the CPU: separable_fused_common.cuh holds the kernel's per-thread code, and the
// model here runs it block by block and thread by thread, phase by phase between the kernel's
// __syncthreads(), through the same kernel choice (dispatch_fused_kernel) and shared-memory layout
// (fused_layout) as the launch, with checked memory:
//   - each shared array (h, raw, weights) is the kit's CheckedShared (kit/checked_shared.hpp: races,
//     missing fills and out-of-range slots throw), sized from the layout's byte offsets;
//   - global reads outside the source image throw; every destination pixel must be written exactly
//     once.
// The results must equal, bit for bit, a plain per-pixel loop of the same formula (fmaf over the
// 2r + 1 taps in ascending order, border_index for every sample, rows first) for both formats, all
// five borders, radii from 0 through the compiled-radius kernels (0–8, F32 0–22) and the run-time one (up to 64)
// to radii larger than the image, and sizes from 1×1 past several tiles. The model also meets the
// method's accuracy bound against the float64 reference, and the method refuses what it cannot run.
//
// SeparableFusedAccuracy.DISABLED_Table prints the accuracy table in docs/methods/separable_fused.md:
//   gausslab_cpu_method_tests --gtest_also_run_disabled_tests --gtest_filter='SeparableFusedAccuracy.DISABLED_Table'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "kit/channel_route.hpp"
#include "kit/checked_shared.hpp"
#include "gausslab/core/pooling.hpp"
#include "kit/method_tests.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"
#include "kit/plain_separable.hpp"
#include "separable_fused_common.cuh"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("separable_fused", SeparableFusedModel);
GAUSSLAB_METHOD_TESTS("separable_fused", SeparableFusedAccuracy);

using namespace fused;
using namespace test;

using F32Small = FusedPolicyFor<PixelFormat::F32, false>::type;
using F32Large = FusedPolicyFor<PixelFormat::F32, true>::type;
using F32Medium = FusedMediumPolicyF32::type;
using RgbaSmall = FusedPolicyFor<PixelFormat::Rgba8, false>::type;
using RgbaLarge = FusedPolicyFor<PixelFormat::Rgba8, true>::type;
using F32Wide = FusedSmallRadiusPolicy<PixelFormat::F32>::type;  // the smallest radii's wide tiles
using RgbaWide = FusedSmallRadiusPolicy<PixelFormat::Rgba8>::type;

constexpr unsigned kH100SharedPerBlock = 227 * 1024;  // cudaDevAttrMaxSharedMemoryPerBlockOptin, sm_90
constexpr unsigned kTuringSharedPerBlock = 64 * 1024;   // the same on sm_75, the oldest we build for

// ---- checked memory: the kit's shared arrays, and global memory here --------------------------------

// Copies made by fill_tile's fast path (tiles whose apron lies inside the image), over all models.
long long g_inside_copies = 0;

// The fill phase's memory, as DeviceFill in separable_fused.cu: checked source reads.
template <class In>
struct ModelFill {
  const std::vector<In>* src;
  int width;
  int height;
  const std::vector<float>* weights;
  typename CheckedShared<In>::Access raw;
  typename CheckedShared<float>::Access shared_weights;

  void copy(int slot, int source_row, int source_col) const {
    if (source_row < 0 || source_col < 0) {
      raw.store(slot, zero_value<In>());
      return;
    }
    if (source_row >= height || source_col >= width)
      throw ModelError("global read of (" + std::to_string(source_col) + ", " + std::to_string(source_row) +
                       ") outside the " + std::to_string(width) + "×" + std::to_string(height) + " source");
    raw.store(slot, (*src)[static_cast<std::size_t>(source_row) * width + source_col]);
  }
  // The fast path's copy: the indices must be inside the image (-1 is an error here, not a zero).
  void copy_inside(int slot, int source_row, int source_col) const {
    if (source_row < 0 || source_col < 0)
      throw ModelError("copy_inside of (" + std::to_string(source_col) + ", " + std::to_string(source_row) + ")");
    copy(slot, source_row, source_col);
    ++g_inside_copies;
  }
  void copy_weight(int t) const {
    if (t < 0 || static_cast<std::size_t>(t) >= weights->size())
      throw ModelError("weight " + std::to_string(t) + " outside the " + std::to_string(weights->size()) + " taps");
    shared_weights.store(t, (*weights)[static_cast<std::size_t>(t)]);
  }
};

template <class Out>
struct ModelStore {
  std::vector<Out>* dst;
  std::vector<int>* writes;
  int width;
  int height;
  template <class Accum>
  void store(int x, int y, Accum value) const {
    if (x < 0 || x >= width || y < 0 || y >= height)
      throw ModelError("global write of (" + std::to_string(x) + ", " + std::to_string(y) + ") outside the " +
                       std::to_string(width) + "×" + std::to_string(height) + " destination");
    const std::size_t k = static_cast<std::size_t>(y) * width + x;
    (*dst)[k] = FromAccum<Out>::convert(value);
    ++(*writes)[k];
  }
};

// ---- the model ---------------------------------------------------------------------------------

// The pooled image of a pooled run: whole pixels, each written once.
template <class Out>
struct ModelPooledStore {
  std::vector<Out>* dst;
  std::vector<int>* writes;
  int width;
  int height;
  void store(int x, int y, Out value) const {
    if (x < 0 || x >= width || y < 0 || y >= height)
      throw ModelError("pooled write of (" + std::to_string(x) + ", " + std::to_string(y) + ") outside the " +
                       std::to_string(width) + "×" + std::to_string(height) + " pooled image");
    const std::size_t k = static_cast<std::size_t>(y) * width + x;
    (*dst)[k] = value;
    ++(*writes)[k];
  }
};

// SeparableFusedKernel<P, In, kTaps, pool != None> over a width × height image (row-major, no
// padding); with a pool mode, the pooled image of pooled_side(width) × pooled_side(height).
template <class P, class In, int kTaps>
std::vector<In> model_fused_kernel(const TileProblem& problem, const std::vector<In>& src,
                                   const std::vector<float>& weights, PoolMode pool = PoolMode::None) {
  using Accum = AccumOf<In>;
  const FusedLayout layout = fused_layout<P, In, Accum>(problem.radius);
  // The arrays exactly as large as the layout's byte ranges make them.
  CheckedShared<float> shared_weights(layout.h_offset_bytes / sizeof(float), "weights");
  CheckedShared<Accum> h((layout.raw_offset_bytes - layout.h_offset_bytes) / sizeof(Accum), "h");
  CheckedShared<In> raw((layout.total_bytes - layout.raw_offset_bytes) / sizeof(In), "raw");
  if (layout.h_offset_bytes % 16 != 0 || layout.raw_offset_bytes % 4 != 0)
    throw ModelError("misaligned shared-memory layout");

  std::vector<In> dst(static_cast<std::size_t>(problem.width) * problem.height);
  std::vector<int> writes(dst.size(), 0);
  const ModelFill<In> fill{&src, problem.width, problem.height, &weights, raw.access(), shared_weights.access()};
  const ModelStore<In> out{&dst, &writes, problem.width, problem.height};
  const bool pooled = pool != PoolMode::None;
  const int pooled_w = pooled_side(problem.width), pooled_h = pooled_side(problem.height);
  std::vector<In> pooled_dst(static_cast<std::size_t>(pooled_w) * pooled_h);
  std::vector<int> pooled_writes(pooled_dst.size(), 0);
  const ModelPooledStore<In> pooled_out{&pooled_dst, &pooled_writes, pooled_w, pooled_h};

  const long long blocks = block_count<P>(problem.width, problem.height);
  for (long long b = 0; b < blocks; ++b) {
    const TileOrigin tile = tile_of<P>(problem, static_cast<int>(b));
    raw.begin_fill();
    shared_weights.begin_fill();
    h.begin_fill();
    for (int t = 0; t < P::kThreads; ++t) fill_tile<P>(problem, layout, tile, t, fill);
    raw.begin_read();  // cp.async.wait_all + __syncthreads()
    shared_weights.begin_read();
    for (int t = 0; t < P::kThreads; ++t) {
      if constexpr (kTaps > 0) {
        float w[kTaps];
        load_register_weights(shared_weights.access(), w);
        row_pass<P, kTaps>(problem, layout, tile, t, raw.access(), w, h.access());
      } else {
        row_pass<P, 0>(problem, layout, tile, t, raw.access(), shared_weights.access(), h.access());
      }
    }
    h.begin_read();  // __syncthreads()
    if (pooled) raw.begin_fill();  // the row pass, raw's last reader, is done: the outputs are staged there
    for (int t = 0; t < P::kThreads; ++t) {
      auto columns = [&](const auto& w) {
        if (pooled)
          column_pass<P, kTaps>(problem, tile, t, h.access(),
                                w, StagedOutputs<P, In, typename CheckedShared<In>::Access>{raw.access(), tile});
        else
          column_pass<P, kTaps>(problem, tile, t, h.access(), w, out);
      };
      if constexpr (kTaps > 0) {
        float w[kTaps];
        load_register_weights(shared_weights.access(), w);
        columns(w);
      } else {
        columns(shared_weights.access());
      }
    }
    if (pooled) {
      raw.begin_read();  // __syncthreads()
      if constexpr (std::is_same_v<In, uchar4> || std::is_same_v<In, float>)  // the pixels pool_stored takes
        for (int t = 0; t < P::kThreads; ++t) pool_pass<P>(problem, tile, t, raw.access(), pool, pooled_out);
      else
        throw ModelError("the fused pool pass is for RGBA8 and F32 only");
    }
  }
  if (pooled) {
    for (std::size_t k = 0; k < pooled_writes.size(); ++k)
      if (pooled_writes[k] != 1) throw ModelError("pooled pixel " + std::to_string(k) + " written " +
                                                  std::to_string(pooled_writes[k]) + " times");
    return pooled_dst;
  }
  check_written_once(writes, problem.width, "fused kernel");
  return dst;
}

// Which kernel ran: the model records it so that tests can check they cover both kinds.
struct ModelRun {
  int max_radius = -1;  // of the kernel's policy
  int exact_taps = -1;  // kTaps of the kernel: 0 for the run-time one
};

// separable_fused on the CPU, choosing the kernel as the launch does.
template <class Pixel>
Image<Pixel> model_separable_fused(const Image<Pixel>& src, const FilterParams& params, ModelRun* run = nullptr,
                                   PoolMode pool = PoolMode::None) {
  using Storage = typename StorageOf<Pixel>::type;
  constexpr PixelFormat F = Image<Pixel>::format();
  const int radius = params.radius();
  if (radius > kMaxFusedRadius) throw std::invalid_argument("radius beyond separable_fused's limit");
  const TileProblem problem{src.width(), src.height(), radius, params.border};
  const std::vector<float> weights = gaussian_weights_f32(params.sigma, radius);
  const std::vector<Storage> in = to_storage(src);
  std::vector<Storage> out;
  dispatch_fused_kernel<F>(radius, [&](auto policy, auto taps) {
    using P = typename decltype(policy)::type;
    constexpr int kTaps = decltype(taps)::value;
    if (run) *run = {P::kMaxRadius, kTaps};
    out = model_fused_kernel<P, Storage, kTaps>(problem, in, weights, pool);
  });
  const int width = pool == PoolMode::None ? src.width() : pooled_side(src.width());
  const int height = pool == PoolMode::None ? src.height() : pooled_side(src.height());
  return from_storage<Pixel>(out, width, height);
}

// The model against the plain loop, bit for bit, every border; returns the number of cases run.
template <class Pixel>
int check_model_matches_plain_loop(int width, int height, const std::vector<int>& radii) {
  return expect_models_match_plain_loop<Pixel>(
      width, height, radii,
      {{"separable_fused", [](const Image<Pixel>& src, const FilterParams& params) {
          return model_separable_fused(src, params);
        }}});
}

// ---- tests: the pieces ----------------------------------------------------------------------------

template <int N, int kTaps>
void expect_window_is_the_direct_sum(int taps) {
  std::vector<float> samples(200), weights(140);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 1.0f / (1.0f + static_cast<float>(i));
  float acc[N], expected[N];
  for (int j = 0; j < N; ++j) acc[j] = expected[j] = 0.25f * static_cast<float>(j) - 0.5f;
  std::vector<int> calls;
  const auto sample = [&](int i) {
    calls.push_back(i);
    return samples[static_cast<std::size_t>(i)];
  };
  fused_window<N, kTaps>(acc, weights.data(), taps, sample);
  const int used_taps = kTaps > 0 ? kTaps : taps;
  for (int j = 0; j < N; ++j)
    for (int t = 0; t < used_taps; ++t)
      expected[j] = std::fmaf(weights[static_cast<std::size_t>(t)], samples[static_cast<std::size_t>(t + j)], expected[j]);
  for (int j = 0; j < N; ++j)
    EXPECT_EQ(acc[j], expected[j]) << "N " << N << ", taps " << used_taps << ", output " << j;
  // Each sample once, in order: taps + N - 1 of them, no padding.
  ASSERT_EQ(static_cast<int>(calls.size()), used_taps + N - 1) << "N " << N << ", taps " << used_taps;
  for (int i = 0; i < static_cast<int>(calls.size()); ++i) EXPECT_EQ(calls[static_cast<std::size_t>(i)], i);
}

TEST(SeparableFusedWindow, EqualsTheDirectSumInTheSameOrderForEveryTapCount) {
  // Run-time tap counts on both sides of every multiple of the window (the tail of 1 to N - 1 taps).
  for (int taps = 1; taps <= 2 * kMaxFusedRadius + 1; taps += 2) {
    expect_window_is_the_direct_sum<4, 0>(taps);
    expect_window_is_the_direct_sum<8, 0>(taps);
  }
  // Compile-time tap counts (the argument is ignored).
  expect_window_is_the_direct_sum<4, 1>(99);
  expect_window_is_the_direct_sum<4, 7>(99);
  expect_window_is_the_direct_sum<4, 9>(99);
  expect_window_is_the_direct_sum<8, 7>(99);
  expect_window_is_the_direct_sum<8, 17>(99);
}

template <PixelFormat F>
void expect_compiled_radii_then_the_run_time_kernel(int last_compiled) {
  for (int radius = 0; radius <= kMaxFusedRadiusOf<F>; ++radius) {
    int calls = 0, taps = -1, max_radius = -1;
    dispatch_fused_kernel<F>(radius, [&](auto policy, auto k) {
      ++calls;
      taps = decltype(k)::value;
      max_radius = decltype(policy)::type::kMaxRadius;
    });
    EXPECT_EQ(calls, 1) << "radius " << radius;
    EXPECT_EQ(taps, radius <= last_compiled ? 2 * radius + 1 : 0) << "radius " << radius;
    EXPECT_GE(max_radius, radius);
  }
}

TEST(SeparableFusedKernelChoice, CompiledRadiiUpToEightF32UpTo22ThenTheRunTimeKernel) {
  EXPECT_EQ(kMaxCompiledRadius<PixelFormat::F32>, kMaxMediumRadius);
  EXPECT_EQ(kMaxCompiledRadius<PixelFormat::Rgba8>, kMaxExactRadius);
  expect_compiled_radii_then_the_run_time_kernel<PixelFormat::F32>(kMaxMediumRadius);
  expect_compiled_radii_then_the_run_time_kernel<PixelFormat::Rgba8>(kMaxExactRadius);
  expect_compiled_radii_then_the_run_time_kernel<PixelFormat::Rgba16>(kMaxExactRadius);
  expect_compiled_radii_then_the_run_time_kernel<PixelFormat::Rgba32F>(kMaxExactRadius);
}

template <class P, class In>
void expect_layouts_fit(int min_radius, unsigned limit, const char* name) {
  using Accum = AccumOf<In>;
  unsigned last = 0;
  for (int radius = min_radius; radius <= P::kMaxRadius; ++radius) {
    const FusedLayout layout = fused_layout<P, In, Accum>(radius);
    EXPECT_EQ(layout.rows, P::kTileH + 2 * radius);
    EXPECT_EQ(layout.raw_pitch % 2, 1) << name << ": raw pitch at radius " << radius;
    EXPECT_GE(layout.raw_pitch, P::kTileW + 2 * radius);
    // The weights (in room for whole quads, so that h starts 16-byte aligned), h, raw: nothing more.
    EXPECT_EQ(layout.weight_slots % 4, 0);
    EXPECT_LT(layout.weight_slots - layout.taps, 4);
    EXPECT_EQ(layout.h_offset_bytes, static_cast<unsigned>(4 * layout.weight_slots));
    EXPECT_EQ(layout.raw_offset_bytes - layout.h_offset_bytes, static_cast<unsigned>(layout.rows * P::kHPitch * sizeof(Accum)));
    EXPECT_EQ(layout.total_bytes - layout.raw_offset_bytes,
              static_cast<unsigned>(layout.rows * layout.raw_pitch * sizeof(In)));
    EXPECT_GT(layout.total_bytes, last) << name << ": shared memory must grow with the radius";
    last = layout.total_bytes;
  }
  EXPECT_LE(last, limit) << name << " at radius " << P::kMaxRadius;
}

TEST(SeparableFusedPolicy, SharedMemoryFitsAndTheLargestRadiusFitsAnH100) {
  EXPECT_EQ(F32Small::kHPitch % 2, 1);
  EXPECT_EQ(RgbaLarge::kHPitch % 2, 1);
  // The compiled-radius kernels (0–8) fit even a Turing block; the run-time kernels fit an H100 block
  // up to kMaxFusedRadius.
  expect_layouts_fit<F32Small, float>(0, kTuringSharedPerBlock, "f32 small");
  expect_layouts_fit<RgbaSmall, uchar4>(0, kTuringSharedPerBlock, "rgba8 small");
  // The wide tiles: five (F32) and four (RGBA8) blocks on an H100 SM.
  expect_layouts_fit<F32Wide, float>(0, (228u * 1024u) / 5u - 1024u, "f32 wide");
  expect_layouts_fit<RgbaWide, uchar4>(0, (228u * 1024u) / 4u - 1024u, "rgba8 wide");
  EXPECT_EQ(F32Wide::kMaxRadius, FusedSmallRadiusPolicy<PixelFormat::F32>::kMaxRadius);
  EXPECT_EQ(RgbaWide::kMaxRadius, FusedSmallRadiusPolicy<PixelFormat::Rgba8>::kMaxRadius);
  expect_layouts_fit<F32Large, float>(kMaxExactRadius + 1, kH100SharedPerBlock, "f32 large");
  // The compiled F32 radii 9–22: three blocks on an H100 SM (228 KiB, 1 KiB of it reserved per block).
  expect_layouts_fit<F32Medium, float>(kMaxExactRadius + 1, (228u * 1024u) / 3u - 1024u, "f32 medium");
  EXPECT_EQ(F32Medium::kMaxRadius, kMaxMediumRadius);
  expect_layouts_fit<RgbaLarge, uchar4>(kMaxExactRadius + 1, kH100SharedPerBlock, "rgba8 large");
  EXPECT_EQ(F32Large::kMaxRadius, kMaxFusedRadius);
  EXPECT_EQ(RgbaLarge::kMaxRadius, kMaxFusedRadius);
  EXPECT_EQ(F32Small::kMaxRadius, kMaxExactRadius);
  // One more radius would not fit an H100 block with the RGBA8 tile: the limit is the shared memory.
  using Accum = AccumOf<uchar4>;
  const unsigned beyond = fused_layout<RgbaLarge, uchar4, Accum>(kMaxFusedRadius + 2).total_bytes;
  EXPECT_GT(beyond, kH100SharedPerBlock);
}

// RGBA16 and RGBA32F run RGBA8's tiles with larger raw tiles: every radius up to their limit fits an
// H100 or H200 block, the next does not (the limit is the shared memory), and the compiled radii fit
// beside each other as RGBA8's do on that GPU (two blocks an SM at least).
template <PixelFormat F>
void expect_rgba_tiles_fit_up_to_their_limit(const char* name) {
  using In = PixelStorage<F>;
  using Small = typename FusedPolicyFor<F, false>::type;
  using Large = typename FusedPolicyFor<F, true>::type;
  using Wide = typename FusedSmallRadiusPolicy<F>::type;
  static_assert(Large::kMaxRadius == kMaxFusedRadiusOf<F>, "the run-time kernel reaches the format's limit");
  expect_layouts_fit<Wide, In>(0, kH100SharedPerBlock, name);
  expect_layouts_fit<Small, In>(0, (228u * 1024u) / 2u - 1024u, name);
  expect_layouts_fit<Large, In>(kMaxExactRadius + 1, kH100SharedPerBlock, name);
  EXPECT_GT((fused_layout<Large, In, AccumOf<In>>(kMaxFusedRadiusOf<F> + 1).total_bytes), kH100SharedPerBlock) << name;
}

TEST(SeparableFusedPolicy, Rgba16AndRgba32FTilesFitUpToRadius44And27) {
  EXPECT_EQ(kMaxFusedRadiusOf<PixelFormat::Rgba16>, 44);
  EXPECT_EQ(kMaxFusedRadiusOf<PixelFormat::Rgba32F>, 27);
  expect_rgba_tiles_fit_up_to_their_limit<PixelFormat::Rgba16>("rgba16");
  expect_rgba_tiles_fit_up_to_their_limit<PixelFormat::Rgba32F>("rgba32f");
}

// Bank conflicts of one warp instruction: lane l reads element `index(l)` of 4-byte words (or 16-byte
// float4s); a request is served in 128-byte wavefronts: 32 lanes of words need 32 different banks,
// each quarter warp of float4s 8 different 16-byte groups.
template <class Index>
int max_wavefronts(int element_words, const Index& index) {
  const int lanes_per_wavefront = 32 / element_words;
  int worst = 1;
  for (int first = 0; first < 32; first += lanes_per_wavefront) {
    std::vector<std::set<int>> per_bank(32 / element_words);
    for (int lane = first; lane < first + lanes_per_wavefront; ++lane) {
      const int element = index(lane);
      per_bank[static_cast<std::size_t>(element % (32 / element_words))].insert(element);
    }
    for (const auto& addresses : per_bank) worst = std::max(worst, static_cast<int>(addresses.size()));
  }
  return worst;
}

template <class P, int kAccumWords>
void expect_row_pass_conflict_free(int radius, const char* name) {
  const FusedLayout layout = fused_layout<P, float, float>(radius);
  // A warp of the row pass of an inner tile: 32 consecutive items from any first item, every tap.
  const int rows = layout.rows;
  for (int first = 0; first < rows * P::kRowGroups; first += 7)
    for (int i = 0; i < layout.taps + P::kRowOutputs - 1; ++i) {
      const auto raw_index = [&](int lane) {
        const int item = first + lane;
        return (item % rows) * layout.raw_pitch + (item / rows) * P::kRowOutputs + i;
      };
      // At most 2 wavefronts: a warp whose items wrap into the next row group may meet itself once.
      EXPECT_LE(max_wavefronts(1, raw_index), 2) << name << ", radius " << radius << ", item " << first;
      const bool one_group = (first / rows) == ((first + 31) / rows);
      if (one_group) {
        EXPECT_EQ(max_wavefronts(1, raw_index), 1) << name << ", radius " << radius;
      }
    }
  for (int first = 0; first + 31 < rows; ++first)
    for (int j = 0; j < P::kRowOutputs; ++j)
      EXPECT_EQ(max_wavefronts(kAccumWords, [&](int lane) { return (first + lane) * P::kHPitch + j; }), 1)
          << name << ": h writes";
}

// The policy each compiled radius runs: the wide tiles up to FusedSmallRadiusPolicy's radius, then
// the square ones (the model tests below run every radius through the same choice).
template <PixelFormat F>
std::string policy_of_radius(int radius) {
  std::string name;
  dispatch_fused_kernel<F>(radius, [&](auto policy, auto) {
    using P = typename decltype(policy)::type;
    name = std::to_string(P::kTileW) + "x" + std::to_string(P::kTileH);
  });
  return name;
}

TEST(SeparableFusedPolicy, TheSmallestRadiiRunTheWideTiles) {
  for (int radius = 0; radius <= 3; ++radius) EXPECT_EQ(policy_of_radius<PixelFormat::F32>(radius), "128x32") << radius;
  EXPECT_EQ(policy_of_radius<PixelFormat::F32>(4), "64x64");
  for (int radius = 0; radius <= 2; ++radius) EXPECT_EQ(policy_of_radius<PixelFormat::Rgba8>(radius), "64x32") << radius;
  EXPECT_EQ(policy_of_radius<PixelFormat::Rgba8>(3), "32x64");
  for (int radius = 0; radius <= 4; ++radius) EXPECT_EQ(policy_of_radius<PixelFormat::Rgba16>(radius), "64x32") << radius;
  EXPECT_EQ(policy_of_radius<PixelFormat::Rgba16>(5), "32x64");
  EXPECT_EQ(policy_of_radius<PixelFormat::Rgba32F>(2), "64x32");
  EXPECT_EQ(policy_of_radius<PixelFormat::Rgba32F>(3), "32x64");
}

TEST(SeparableFusedPolicy, RowPassReadsAndWritesWithoutBankConflicts) {
  for (const int radius : {0, 3, 4, 8}) {
    expect_row_pass_conflict_free<F32Small, 1>(radius, "f32 small");
    expect_row_pass_conflict_free<RgbaSmall, 4>(radius, "rgba8 small");
  }
  for (const int radius : {0, 1, 2}) {
    expect_row_pass_conflict_free<F32Wide, 1>(radius, "f32 wide");
    expect_row_pass_conflict_free<RgbaWide, 4>(radius, "rgba8 wide");
  }
  expect_row_pass_conflict_free<F32Wide, 1>(3, "f32 wide");
  for (const int radius : {9, 20, 33, 64}) {
    expect_row_pass_conflict_free<F32Large, 1>(radius, "f32 large");
    expect_row_pass_conflict_free<RgbaLarge, 4>(radius, "rgba8 large");
  }
}

template <class P>
void expect_tiles_cover_every_pixel_once(int width, int height) {
  std::vector<int> owners(static_cast<std::size_t>(width) * height, 0);
  const TileProblem problem{width, height, 3, BorderMode::Reflect};
  const long long blocks = block_count<P>(width, height);
  for (long long b = 0; b < blocks; ++b) {
    const TileOrigin tile = tile_of<P>(problem, static_cast<int>(b));
    EXPECT_EQ(tile.x0 % P::kTileW, 0);
    EXPECT_EQ(tile.y0 % P::kTileH, 0);
    const FusedExtent e = fused_extent<P>(problem, tile);
    EXPECT_GT(e.outputs_w, 0);
    EXPECT_GT(e.outputs_h, 0);
    for (int y = tile.y0; y < tile.y0 + e.outputs_h; ++y)
      for (int x = tile.x0; x < tile.x0 + e.outputs_w; ++x) ++owners[static_cast<std::size_t>(y) * width + x];
  }
  EXPECT_TRUE(std::all_of(owners.begin(), owners.end(), [](int n) { return n == 1; })) << width << "×" << height;
}

TEST(SeparableFusedPolicy, TilesCoverEveryPixelOnceAndTheLargestImagesFitTheGrid) {
  for (const auto& [w, h] : {std::pair{1, 1}, {1, 300}, {300, 1}, {7, 5}, {64, 64}, {65, 129}, {131, 257}}) {
    expect_tiles_cover_every_pixel_once<F32Small>(w, h);
    expect_tiles_cover_every_pixel_once<F32Large>(w, h);
    expect_tiles_cover_every_pixel_once<RgbaSmall>(w, h);
    expect_tiles_cover_every_pixel_once<F32Wide>(w, h);
    expect_tiles_cover_every_pixel_once<RgbaWide>(w, h);
  }
  for (const auto& [w, h] : {std::pair{1, 1 << 30}, {1 << 30, 1}, {32768, 32768}, {33, 32537631}}) {
    EXPECT_LE(block_count<RgbaSmall>(w, h), 0x7fffffffLL) << w << "×" << h;
    EXPECT_LE(block_count<F32Small>(w, h), 0x7fffffffLL) << w << "×" << h;
    EXPECT_LE(block_count<F32Large>(w, h), 0x7fffffffLL) << w << "×" << h;
    EXPECT_LE(block_count<RgbaWide>(w, h), 0x7fffffffLL) << w << "×" << h;
  }
}

TEST(SeparableFusedModel, CheckedGlobalReadsCatchWhatTheyShould) {
  // The model's fill memory itself (the shared arrays' checks are tested with the kit).
  const std::vector<float> image(6, 1.0f), weights(3, 0.5f);
  CheckedShared<float> raw(8, "raw"), w(3, "w");
  raw.begin_fill();
  w.begin_fill();
  const ModelFill<float> fill{&image, 3, 2, &weights, raw.access(), w.access()};
  EXPECT_THROW(fill.copy(0, 2, 0), ModelError);  // row 2 of a 2-row source
  EXPECT_THROW(fill.copy(0, 0, 3), ModelError);
  EXPECT_THROW(fill.copy_weight(3), ModelError);
  fill.copy(5, -1, 2);  // 'constant' outside: a zero
  raw.begin_read();
  EXPECT_EQ(raw.access()[5], 0.0f);
}

TEST(SeparableFusedModel, ARaceOrAMissingFillIsCaught) {
  // A fill that skips the last raw column, and a row pass that writes every row's first window twice:
  // the model must throw, not return an image.
  using P = F32Small;
  const TileProblem problem{5, 3, 2, BorderMode::Reflect};
  const FusedLayout layout = fused_layout<P, float, float>(problem.radius);
  CheckedShared<float> raw(layout.rows * static_cast<std::size_t>(layout.raw_pitch), "raw");
  CheckedShared<float> h(layout.rows * static_cast<std::size_t>(P::kHPitch), "h");
  const std::vector<float> w = gaussian_weights_f32(1.0, problem.radius);
  const TileOrigin tile{0, 0};
  const FusedExtent e = fused_extent<P>(problem, tile);
  raw.begin_fill();
  for (int row = 0; row < e.rows; ++row)
    for (int col = 0; col + 1 < e.cols; ++col) raw.access().store(row * layout.raw_pitch + col, 1.0f);
  raw.begin_read();
  h.begin_fill();
  EXPECT_THROW((row_pass<P, 5>(problem, layout, tile, 0, raw.access(), w.data(), h.access())), ModelError);
  CheckedShared<float> h2(layout.rows * static_cast<std::size_t>(P::kHPitch), "h");
  h2.begin_fill();
  CheckedShared<float> full(layout.rows * static_cast<std::size_t>(layout.raw_pitch), "raw");
  full.begin_fill();
  for (int row = 0; row < e.rows; ++row)
    for (int col = 0; col < e.cols; ++col) full.access().store(row * layout.raw_pitch + col, 1.0f);
  full.begin_read();
  row_pass<P, 5>(problem, layout, tile, 1, full.access(), w.data(), h2.access());
  EXPECT_THROW((row_pass<P, 5>(problem, layout, tile, 1, full.access(), w.data(), h2.access())), ModelError);
}

// ---- tests: the model against the plain loop, bit for bit --------------------------------------------

TEST(SeparableFusedModel, OddSizesEveryBorderEveryKindOfKernel) {
  // Radii: 0, the compiled ones around the window sizes (4, 8) and the largest compiled one (8), the
  // next kernel's first (9: F32 compiled, RGBA8 run-time), a tail of every length, the last compiled
  // F32 one (22) and the run-time F32 kernel's first (23), and the largest (64); most exceed the image.
  const std::vector<int> radii = {0, 1, 3, 4, 8, 9, 10, 17, 22, 23, 64};
  int cases = 0;
  for (const auto& [w, h] : {std::pair{1, 1}, {1, 13}, {13, 1}, {7, 5}, {2, 3}, {17, 11}}) {
    cases += check_model_matches_plain_loop<Rgba8>(w, h, radii);
    cases += check_model_matches_plain_loop<float>(w, h, radii);
  }
  EXPECT_EQ(cases, 6 * 2 * 11 * 5);
}

TEST(SeparableFusedModel, Rgba16AndRgba32FOddSizesEveryBorderEveryKindOfKernel) {
  // Their own kernels (ushort4 and float4 raw tiles): the compiled radii, the run-time kernel, the
  // largest radius each runs; sizes from 1×1 past one tile.
  int cases = 0;
  for (const auto& [w, h] : {std::pair{1, 1}, {13, 7}, {37, 71}}) {
    cases += check_model_matches_plain_loop<Rgba16>(w, h, {0, 2, 3, 8, 9, 27, 44});
    cases += check_model_matches_plain_loop<Rgba32f>(w, h, {0, 2, 3, 8, 9, 27});
  }
  EXPECT_EQ(cases, 3 * (7 + 6) * 5);
}

TEST(SeparableFusedModel, FusedPoolingEqualsPoolingTheResultOnTheCpu) {
  // Odd and even sides, one tile and several (partial tiles at the edges), both kinds of kernel.
  int cases = 0;
  for (const auto& [w, h] : {std::pair{2, 2}, {3, 5}, {67, 131}, {131, 66}})
    for (const int radius : {1, 3, 9})
      for (const BorderMode border : {BorderMode::Reflect, BorderMode::Constant, BorderMode::Wrap})
        for (const PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2}) {
          FilterParams params;
          params.sigma = radius / 3.0;
          params.fixed_radius = radius;
          params.border = border;
          const std::string where = std::to_string(w) + "x" + std::to_string(h) + ", " + describe(params) + ", " +
                                    to_string(mode);
          const ImageRgba8 rgba = make_random_rgba8(w, h, 17u);
          EXPECT_EQ(model_separable_fused(rgba, params, nullptr, mode).pixels(),
                    pool_2x2(model_separable_fused(rgba, params), mode).pixels())
              << where << " rgba8";
          const ImageF32 grey = make_random_f32(w, h, 17u);
          EXPECT_EQ(model_separable_fused(grey, params, nullptr, mode).pixels(),
                    pool_2x2(model_separable_fused(grey, params), mode).pixels())
              << where << " f32";
          ++cases;
        }
  EXPECT_EQ(cases, 4 * 3 * 3 * 2);
}

TEST(SeparableFusedPolicy, StagedOutputsFitTheRawTile) {
  // The pool pass stages kTileW × kTileH outputs where the raw tile (kTileH + 2r rows) lives.
  dispatch_fused_kernel<PixelFormat::Rgba8>(0, [&](auto policy, auto) {
    using P = typename decltype(policy)::type;
    const FusedLayout layout = fused_layout<P, uchar4, float4>(0);
    EXPECT_GE((layout.total_bytes - layout.raw_offset_bytes) / sizeof(uchar4), static_cast<unsigned>(staged_slots<P>()));
  });
  dispatch_fused_kernel<PixelFormat::F32>(0, [&](auto policy, auto) {
    using P = typename decltype(policy)::type;
    const FusedLayout layout = fused_layout<P, float, float>(0);
    EXPECT_GE((layout.total_bytes - layout.raw_offset_bytes) / sizeof(float), static_cast<unsigned>(staged_slots<P>()));
  });
}

TEST(SeparableFusedModel, TilesInsideTheImageTakeTheFastFillAndMatch) {
  // Three or more tiles each way, so that inner tiles have their whole apron inside the image (the
  // fast fill, no border mapping) beside edge tiles (the general one): every border, both kinds of
  // kernel, F32's compiled radii 9-22 too.
  g_inside_copies = 0;
  check_model_matches_plain_loop<float>(211, 197, {1, 3, 8, 20, 29});
  const long long f32_inside = g_inside_copies;
  EXPECT_GT(f32_inside, 0);
  check_model_matches_plain_loop<Rgba8>(101, 197, {2, 8, 12});
  EXPECT_GT(g_inside_copies, f32_inside);
}

TEST(SeparableFusedModel, PrimeSizesLargerThanATile) {
  // Several tiles in both directions, partial tiles at the right and bottom edges.
  check_model_matches_plain_loop<Rgba8>(67, 131, {1, 4, 5, 8, 12, 31});
  check_model_matches_plain_loop<float>(131, 67, {2, 3, 7, 8, 13, 29});
  check_model_matches_plain_loop<float>(37, 139, {6, 20});
  check_model_matches_plain_loop<Rgba8>(139, 37, {6, 20});
}

TEST(SeparableFusedModel, LargestRadiusOnLinesAndTilesItExceedsManyTimes) {
  check_model_matches_plain_loop<Rgba8>(1, 97, {kMaxFusedRadius});
  check_model_matches_plain_loop<float>(97, 1, {kMaxFusedRadius});
  check_model_matches_plain_loop<float>(41, 29, {kMaxFusedRadius, 63});
  check_model_matches_plain_loop<Rgba8>(29, 41, {kMaxFusedRadius});
}

TEST(SeparableFusedModel, ChoosesTheCompiledKernelUpToRadiusEightF32UpTo22) {
  const ImageF32 image = make_random_f32(9, 9, 1);
  ModelRun run;
  model_separable_fused(image, radius_params(8, BorderMode::Reflect), &run);
  EXPECT_EQ(run.exact_taps, 17);
  EXPECT_EQ(run.max_radius, kMaxExactRadius);
  model_separable_fused(image, radius_params(9, BorderMode::Reflect), &run);
  EXPECT_EQ(run.exact_taps, 19);
  EXPECT_EQ(run.max_radius, kMaxMediumRadius);
  model_separable_fused(image, radius_params(22, BorderMode::Reflect), &run);
  EXPECT_EQ(run.exact_taps, 45);
  model_separable_fused(image, radius_params(23, BorderMode::Reflect), &run);
  EXPECT_EQ(run.exact_taps, 0);
  EXPECT_EQ(run.max_radius, kMaxFusedRadius);
}

TEST(SeparableFusedModel, NonFiniteSourceValuesStayWithinTheRadius) {
  // No zero-weight padding: an infinity reaches exactly the pixels within r of it in each direction.
  ImageF32 image(23, 19, 0.5f);
  image.at(11, 9) = std::numeric_limits<float>::infinity();
  for (const int radius : {2, 3, 9, 10}) {
    const ImageF32 out = model_separable_fused(image, radius_params(radius, BorderMode::Constant));
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const bool reached = std::abs(x - 11) <= radius && std::abs(y - 9) <= radius;
        EXPECT_EQ(std::isfinite(out.at(x, y)), !reached) << "radius " << radius << ", pixel (" << x << ", " << y << ")";
      }
  }
}

// The float stores keep NaN and infinity (nothing clamps them) in RGBA32F's own kernels and in the
// f16 route (half keeps them too): exactly the pixels whose window holds one.
TEST(SeparableFusedModel, NanAndInfinityReachExactlyTheirWindowInEveryFloatFormat) {
  const int radius = 4;
  Image<Rgba32f> rgba(23, 19, Rgba32f{0.5f, 0.25f, 1.0f, 0.0f});
  rgba.at(11, 9).g = std::numeric_limits<float>::infinity();
  rgba.at(3, 15).a = std::numeric_limits<float>::quiet_NaN();
  const Image<Rgba32f> out = model_separable_fused(rgba, radius_params(radius, BorderMode::Mirror));
  HostImage half(23, 19, PixelFormat::Rgb16F);
  for (int y = 0; y < 19; ++y)
    for (int x = 0; x < 23; ++x)
      for (int c = 0; c < 3; ++c) half.set_sample(x, y, c, 0.5f);
  half.set_sample(11, 9, 1, std::numeric_limits<float>::infinity());
  half.set_sample(3, 15, 2, std::numeric_limits<float>::quiet_NaN());
  const std::unique_ptr<Method> method = find_method("separable_fused")->create();
  const auto f32 = [](const ImageF32& src, const FilterParams& params) { return model_separable_fused(src, params); };
  const HostImage half_out =
      run_routed(dynamic_cast<const GpuMethod&>(*method), half, radius_params(radius, BorderMode::Mirror), f32, {});
  for (int y = 0; y < 19; ++y)
    for (int x = 0; x < 23; ++x) {
      const bool near_inf = std::abs(x - 11) <= radius && std::abs(y - 9) <= radius;
      const bool near_nan = std::abs(x - 3) <= radius && std::abs(y - 15) <= radius;
      EXPECT_EQ(std::isinf(out.at(x, y).g), near_inf) << x << ", " << y;
      EXPECT_EQ(std::isnan(out.at(x, y).a), near_nan) << x << ", " << y;
      EXPECT_TRUE(std::isfinite(out.at(x, y).r) && std::isfinite(out.at(x, y).b)) << x << ", " << y;
      EXPECT_EQ(std::isinf(half_out.sample(x, y, 1)), near_inf) << "f16 " << x << ", " << y;
      EXPECT_EQ(std::isnan(half_out.sample(x, y, 2)), near_nan) << "f16 " << x << ", " << y;
      EXPECT_TRUE(std::isfinite(half_out.sample(x, y, 0))) << "f16 " << x << ", " << y;
    }
}

// ---- tests: accuracy against the float64 reference ----------------------------------------------------

const auto model_fused = [](const auto& image, const FilterParams& params) { return model_separable_fused(image, params); };

TEST(SeparableFusedAccuracy, Rgba16AndRgba32FMeetTheBoundInTheirOwnUnits) {
  const Image<Rgba16> rgba16 = random_image<Rgba16>(45, 37, 4);
  const Image<Rgba32f> rgba32f = random_image<Rgba32f>(45, 37, 4);
  for (const double sigma : {0.6, 2.5, 6.0})
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = sigma_params(sigma, border);
      const AccuracyBound bound = registered_bound("separable_fused", {45, 37, PixelFormat::Rgba16, params});
      EXPECT_LE(error_against_reference(rgba16, model_fused(rgba16, params), params),
                bound_for(bound, PixelFormat::Rgba16))
          << describe(params);
      EXPECT_LE(error_against_reference(rgba32f, model_fused(rgba32f, params), params),
                bound_for(bound, PixelFormat::Rgba32F))
          << describe(params);
    }
}

TEST(SeparableFusedAccuracy, EveryOtherFormatThroughFloatPlanesMeetsTheBoundInItsOwnUnit) {
  EXPECT_EQ(expect_routed_formats_meet_their_bound("separable_fused", {0.6, 2.5},
                                                   [](const ImageF32& src, const FilterParams& params) {
                                                     return model_separable_fused(src, params);
                                                   }),
            kPixelFormatCount - 4);
}

TEST(SeparableFusedAccuracy, ModelMeetsTheBoundOnPhotosAndNoise) {
  // Sigma 16 at truncate 4 is radius 64, the largest.
  expect_model_meets_its_bound("separable_fused", {0.3, 1.0, 2.0, 2.5, 9.0, 16.0}, model_fused);
}

TEST(SeparableFusedAccuracy, FlatImagesStayFlat) { expect_flat_images_stay_flat({0.5, 1.0, 3.0, 16.0}, model_fused); }

// Prints the table in docs/methods/separable_fused.md.
TEST(SeparableFusedAccuracy, DISABLED_Table) { print_accuracy_table({0.3, 1.0, 2.0, 5.0, 10.0, 16.0}, model_fused); }

// ---- tests: what the method refuses ----------------------------------------------------------------

TEST(SeparableFusedMethod, RefusesRadiiBeyondItsLimitUpFrontAndNamesTheAlternative) {
  const MethodEntry* entry = find_method("separable_fused");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->info.backend, Backend::Cuda);
  const std::unique_ptr<Method> method = entry->create();
  for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
    for (const BorderMode border : kAllBorderModes) {
      FilterProblem problem{640, 480, format, radius_params(kMaxFusedRadius + 1, border)};
      const std::string reason = method->unsupported_reason(problem);
      EXPECT_NE(reason.find("radius 65 exceeds separable_fused's 64"), std::string::npos) << reason;
      EXPECT_NE(reason.find("use separable_shared"), std::string::npos) << reason;
      try {
        method->prepare(problem);
        ADD_FAILURE() << "prepare accepted radius 65";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
      }
      // Sigma 20 at the default truncate is radius 80: refused the same way.
      problem.params = sigma_params(20.0, border);
      EXPECT_NE(method->unsupported_reason(problem).find("radius 80 exceeds"), std::string::npos);
      // Without a device there is no device limit to meet: the largest radius and tiny images pass.
      // (With one, only a GPU with less shared memory per block than an H100 refuses, naming it.)
      if (!cuda_device_status().available) {
        for (const auto& [w, h] : {std::pair{1, 1}, {1, 5000}, {5000, 1}}) {
          problem = {w, h, format, radius_params(kMaxFusedRadius, border)};
          EXPECT_EQ(method->unsupported_reason(problem), "") << w << "×" << h;
          problem.params = radius_params(0, border);
          EXPECT_EQ(method->unsupported_reason(problem), "") << w << "×" << h;
        }
      }
    }
  // RGBA16 and RGBA32F stop where their tiles fill the shared memory; their other channel counts run
  // as F32 planes and reach F32's limit.
  EXPECT_NE(method->unsupported_reason({64, 64, PixelFormat::Rgba16, radius_params(45, BorderMode::Reflect)})
                .find("radius 45 exceeds separable_fused's 44 for rgba16"),
            std::string::npos);
  EXPECT_NE(method->unsupported_reason({64, 64, PixelFormat::Rgba32F, radius_params(28, BorderMode::Reflect)})
                .find("radius 28 exceeds separable_fused's 27 for rgba32f"),
            std::string::npos);
  if (!cuda_device_status().available) {
    EXPECT_EQ(method->unsupported_reason({64, 64, PixelFormat::Rgba32F, radius_params(27, BorderMode::Reflect)}), "");
    const FilterProblem rgb32f{64, 64, PixelFormat::Rgb32F, radius_params(kMaxFusedRadius, BorderMode::Wrap)};
    EXPECT_EQ(method->unsupported_reason(rgb32f), "");
  }
  // The registry's own checks (invalid sigma, empty image, radius beyond 2000) come first.
  FilterProblem nan_sigma{16, 16, PixelFormat::F32, {}};
  nan_sigma.params.sigma = std::nan("");
  EXPECT_EQ(method->unsupported_reason(nan_sigma).find("separable_fused"), std::string::npos);
  EXPECT_FALSE(method->unsupported_reason(nan_sigma).empty());
}

}  // namespace
}  // namespace gausslab
