// The two separable GPU methods on the CPU: separable_common.cuh holds every kernel's per-thread
// code, and the models here run it block by block and thread by thread, phase by phase between the
// kernels' __syncthreads(), with checked memory:
//   - shared memory is the kit's CheckedShared (kit/checked_shared.hpp: races, missing fills and
//     out-of-range slots throw);
//   - global reads outside the image throw; every output must be written exactly once;
//   - the texture model fetches like the hardware with point sampling and unnormalised coordinates:
//     clamp for 'nearest', zero for 'constant', and a throw for any other border mode, whose
//     coordinates the kernels must map into the image themselves.
// The results must equal, bit for bit, a plain per-pixel loop of the same formula (fmaf over the taps
// in ascending order, border_index for every sample), for every border mode, radii from 0 past the
// chunk sizes to 2000, and sizes from 1×1 past the tile sizes. The models and the loop also meet the
// method's accuracy bound against the float64 reference. The conversions the kernels share
// (kernel_common.cuh) are checked here too.
//
// SeparableAccuracy.DISABLED_Table prints the accuracy table in docs/methods/separable_shared.md:
//   gausslab_cpu_method_tests --gtest_also_run_disabled_tests --gtest_filter='SeparableAccuracy.DISABLED_Table'
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "kit/channel_route.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"
#include "kit/plain_separable.hpp"
#include "separable_common.cuh"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("separable_shared", SeparableModel);
GAUSSLAB_METHOD_TESTS("separable_shared", SeparableAccuracy);
GAUSSLAB_METHOD_TESTS("separable_texture", SeparableModel);

using namespace separable;
using namespace test;

using RgbaShared = SharedPolicyFor<PixelFormat::Rgba8>::type;
using F32Shared = SharedPolicyFor<PixelFormat::F32>::type;
using RgbaTexture = TexturePolicyFor<PixelFormat::Rgba8>::type;
using F32Texture = TexturePolicyFor<PixelFormat::F32>::type;

// ---- checked memory: the kit's shared arrays, and global memory here --------------------------------

// The global memory of a tile pass: input line-major, output transposed, as PitchedLines.
template <class InT, class OutT>
struct ModelLines {
  using In = InT;
  using Out = OutT;
  using Accum = AccumOf<InT>;
  const std::vector<In>* input;
  int lines;
  int length;
  std::vector<Out>* output;  // output[pos * lines + line]
  std::vector<int>* writes;
  const std::vector<float>* weights;
  StoreRule rule{};  // as PitchedLines: the final pass's divisor and rounding

  In load(int line, int pos) const {
    if (line < 0 || line >= lines || pos < 0 || pos >= length)
      throw ModelError("global read of line " + std::to_string(line) + ", position " + std::to_string(pos) +
                       " outside " + std::to_string(lines) + " lines of " + std::to_string(length));
    return (*input)[static_cast<std::size_t>(line) * length + pos];
  }
  void store(int pos, int line, Accum value) const {
    if (line < 0 || line >= lines || pos < 0 || pos >= length)
      throw ModelError("global write of line " + std::to_string(line) + ", position " + std::to_string(pos) +
                       " outside " + std::to_string(lines) + " lines of " + std::to_string(length));
    const std::size_t k = static_cast<std::size_t>(pos) * lines + line;
    (*output)[k] = store_by<Out>(value, rule);
    ++(*writes)[k];
  }
  float weight(int t) const {
    if (t < 0 || t >= static_cast<int>(weights->size()))
      throw ModelError("weight " + std::to_string(t) + " outside the " + std::to_string(weights->size()) + " padded taps");
    return (*weights)[static_cast<std::size_t>(t)];
  }
};

// ---- the models -------------------------------------------------------------------------------

// SeparableTilePassKernel on the CPU: input `lines` × `length` line-major; returns the transposed
// output (length rows of `lines`).
template <class P, class In, class Out>
std::vector<Out> model_tile_pass(const LinePass& pass, const std::vector<In>& input, const std::vector<float>& weights,
                                 StoreRule rule = {}) {
  using Accum = AccumOf<In>;
  struct ThreadAccumulators {
    Accum v[P::kOutputs];
  };
  std::vector<Out> output(static_cast<std::size_t>(pass.lines) * pass.length);
  std::vector<int> writes(output.size(), 0);
  const ModelLines<In, Out> lines{&input, pass.lines, pass.length, &output, &writes, &weights, rule};
  CheckedShared<In> tile(P::kLines * P::kPitch, "tile");
  CheckedShared<float> chunk_weights(P::kChunkTaps, "chunk weights");
  std::vector<ThreadAccumulators> acc(P::kThreads);

  const long long blocks = tile_block_count<P>(pass);
  for (long long b = 0; b < blocks; ++b) {
    const TileBlock block = tile_block<P>(pass, static_cast<int>(b));
    for (ThreadAccumulators& a : acc)
      for (Accum& v : a.v) v = zero_value<Accum>();
    for (int chunk_start = 0; chunk_start < pass.padded_taps; chunk_start += P::kChunkTaps) {
      tile.begin_fill();
      chunk_weights.begin_fill();
      for (int t = 0; t < P::kThreads; ++t)
        load_tile_chunk<P>(pass, block, t, chunk_start, lines, tile.access(), chunk_weights.access());
      tile.begin_read();  // __syncthreads()
      chunk_weights.begin_read();
      for (int t = 0; t < P::kThreads; ++t)
        accumulate_tile_chunk<P>(pass, t, chunk_start, tile.access(), chunk_weights.access(), acc[static_cast<std::size_t>(t)].v);
      // __syncthreads(): the next begin_fill
    }
    for (int t = 0; t < P::kThreads; ++t) store_tile_outputs<P>(pass, block, t, lines, acc[static_cast<std::size_t>(t)].v);
  }
  check_written_once(writes, pass.lines, "tile pass");
  return output;
}

// The texture unit with point sampling and unnormalised coordinates over a width × height image.
template <class Texel>
Texel model_fetch(const std::vector<Texel>& image, int width, int height, int x, int y, BorderMode border) {
  const bool inside = x >= 0 && x < width && y >= 0 && y < height;
  if (!inside) {
    if (border == BorderMode::Nearest) {  // cudaAddressModeClamp
      x = std::clamp(x, 0, width - 1);
      y = std::clamp(y, 0, height - 1);
    } else if (border == BorderMode::Constant) {  // cudaAddressModeBorder, border colour 0
      return zero_value<Texel>();
    } else {
      throw ModelError("texture fetch at (" + std::to_string(x) + ", " + std::to_string(y) + ") outside the " +
                       std::to_string(width) + "×" + std::to_string(height) + " texture with border '" +
                       to_string(border) + "', which the kernel must map into the image");
    }
  }
  return image[static_cast<std::size_t>(y) * width + x];
}

// The block's copy of the padded weights (load_block_weights), ready for reads.
CheckedShared<float> model_block_weights(const std::vector<float>& weights) {
  CheckedShared<float> shared(static_cast<int>(weights.size()), "block weights");
  shared.begin_fill();
  for (std::size_t t = 0; t < weights.size(); ++t) shared.access().store(static_cast<int>(t), weights[t]);
  shared.begin_read();
  return shared;
}

// TextureRowsKernel / TextureColumnsKernel on the CPU: image width × height row-major in and out.
template <class P, class Texel, class Out, bool Rows>
std::vector<Out> model_texture_pass(const LinePass& pass, int width, int height, const std::vector<Texel>& image,
                                    const std::vector<float>& weights, StoreRule rule = {}) {
  using Accum = AccumOf<Texel>;
  std::vector<Out> output(static_cast<std::size_t>(width) * height);
  std::vector<int> writes(output.size(), 0);
  CheckedShared<float> block_weights = model_block_weights(weights);
  const auto fetch = [&](int x, int y) { return to_accum(model_fetch(image, width, height, x, y, pass.border)); };
  const auto store = [&](int x, int y, Accum value) {
    if (x < 0 || x >= width || y < 0 || y >= height)
      throw ModelError("texture pass wrote (" + std::to_string(x) + ", " + std::to_string(y) + ") outside the image");
    const std::size_t k = static_cast<std::size_t>(y) * width + x;
    output[k] = store_by<Out>(value, rule);
    ++writes[k];
  };
  const dim3 grid = Rows ? texture_rows_grid<P>(width, height) : texture_columns_grid<P>(width, height);
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx)
      for (int t = 0; t < P::kThreads; ++t) {
        if constexpr (Rows)
          texture_rows_work<P, Accum>(pass, static_cast<int>(bx), static_cast<int>(by), t, block_weights.access(), fetch, store);
        else
          texture_columns_work<P, Accum>(pass, static_cast<int>(bx), static_cast<int>(by), t, block_weights.access(), fetch, store);
      }
  check_written_once(writes, width, Rows ? "texture rows" : "texture columns");
  return output;
}

// ---- the methods on the CPU ----------------------------------------------------------------------

// The weights of one pass as the kernel reads them (its slice of pass_weights).
std::vector<float> pass_slice(const PassWeights& w, bool columns) {
  const auto first = w.weights.begin() + (columns ? w.column_offset : 0);
  return std::vector<float>(first, first + (columns ? w.column_taps : w.row_taps));
}

// separable_shared on the CPU: rows (transposed intermediate), then columns (upright), with the
// method's pass_weights (a custom kernel's taps too) and its final store rule.
template <class Pixel>
Image<Pixel> model_separable_shared(const Image<Pixel>& src, const FilterParams& params) {
  using Storage = typename StorageOf<Pixel>::type;
  using Accum = AccumOf<Storage>;
  using P = typename SharedPolicyFor<Image<Pixel>::format()>::type;
  const PassWeights w = pass_weights(params, P::kOutputs);
  const StoreRule rule{w.divisor, params.rounding};
  const LinePass rows{src.height(), src.width(), w.row_radius, w.row_taps, params.border};
  const std::vector<Accum> intermediate = model_tile_pass<P, Storage, Accum>(rows, to_storage(src), pass_slice(w, false));
  const LinePass columns{src.width(), src.height(), w.column_radius, w.column_taps, params.border};
  return from_storage<Pixel>(model_tile_pass<P, Accum, Storage>(columns, intermediate, pass_slice(w, true), rule),
                             src.width(), src.height());
}

// separable_texture on the CPU.
template <class Pixel>
Image<Pixel> model_separable_texture(const Image<Pixel>& src, const FilterParams& params) {
  using Storage = typename StorageOf<Pixel>::type;
  using Accum = AccumOf<Storage>;
  using P = typename TexturePolicyFor<Image<Pixel>::format()>::type;
  const PassWeights w = pass_weights(params, P::kOutputs);
  const int width = src.width(), height = src.height();
  const LinePass rows{height, width, w.row_radius, w.row_taps, params.border};
  const std::vector<Accum> intermediate =
      model_texture_pass<P, Storage, Accum, true>(rows, width, height, to_storage(src), pass_slice(w, false));
  const LinePass columns{width, height, w.column_radius, w.column_taps, params.border};
  return from_storage<Pixel>(model_texture_pass<P, Accum, Storage, false>(columns, width, height, intermediate,
                                                                          pass_slice(w, true), {w.divisor, params.rounding}),
                             width, height);
}

// Both models against the plain loop, bit for bit; returns the number of cases run.
template <class Pixel>
int check_models_match_plain_loop(int width, int height, const std::vector<int>& radii) {
  return expect_models_match_plain_loop<Pixel>(
      width, height, radii,
      {{"separable_shared", model_separable_shared<Pixel>}, {"separable_texture", model_separable_texture<Pixel>}});
}

// ---- tests: the pieces ----------------------------------------------------------------------------

TEST(SeparableWeights, PaddedWithZerosToWholeWindowGroups) {
  for (const int multiple : {4, 8})
    for (const int radius : {0, 1, 2, 3, 8, 100, kMaxRadius}) {
      const std::vector<float> weights = padded_weights(radius / 3.0 + 0.1, radius, multiple);
      const int taps = 2 * radius + 1;
      ASSERT_EQ(static_cast<int>(weights.size()), padded_tap_count(radius, multiple));
      EXPECT_EQ(weights.size() % static_cast<std::size_t>(multiple), 0u);
      EXPECT_LT(static_cast<int>(weights.size()) - taps, multiple) << "radius " << radius;
      double sum = 0;
      for (int t = 0; t < static_cast<int>(weights.size()); ++t) {
        if (t >= taps) {
          EXPECT_EQ(weights[static_cast<std::size_t>(t)], 0.0f) << "pad tap " << t;
        } else {
          EXPECT_EQ(weights[static_cast<std::size_t>(t)], weights[static_cast<std::size_t>(2 * radius - t)]);
        }
        sum += weights[static_cast<std::size_t>(t)];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << "radius " << radius;
    }
  EXPECT_EQ(padded_tap_count(kMaxRadius, 8), 4008);  // the methods' weight buffers hold this many
}

TEST(SeparableConversions, BytesBecomeTheirFloatValuesExactly) {
  for (unsigned byte = 0; byte < 256; ++byte) EXPECT_EQ(exact_byte_to_float(byte), static_cast<float>(byte));
  const float4 v = to_accum(make_uchar4(0, 1, 128, 255));
  EXPECT_EQ(v.x, 0.0f);
  EXPECT_EQ(v.y, 1.0f);
  EXPECT_EQ(v.z, 128.0f);
  EXPECT_EQ(v.w, 255.0f);
}

// nonnegative_to_unorm8_bits's device arithmetic (kernel_common.cuh), emulated: min(v, 255) + 0.5
// rounded to nearest, then + 2^23 rounded toward -infinity, the low byte of the bits. It must equal
// to_unorm8 for every v >= 0: here every float within 64 ulps of each half-integer and integer in
// [0, 256], the sums that reach past 255, and random values.
std::uint8_t device_unorm8_emulated(float v) {
  volatile float s = std::fmin(v, 255.0f) + 0.5f;  // rounded to nearest, before the mode changes
  const int saved = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  volatile float big = 8388608.0f;
  volatile float sum = s + big;  // rounded toward -infinity
  const float rounded = sum;
  std::fesetround(saved);
  std::uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return static_cast<std::uint8_t>(bits & 0xffu);
}

TEST(SeparableConversions, NonNegativeSumsRoundAsToUnorm8) {
  std::vector<float> values = {0.0f, 1e-30f, 254.5f, 255.0f, 255.49f, 255.5f, 256.0f, 300.0f, 1e9f};
  for (int k = 0; k <= 512; ++k) {
    float v = 0.5f * static_cast<float>(k);
    for (int i = 0; i < 64; ++i) v = std::nextafter(v, 0.0f);
    for (int i = 0; i < 128; ++i) {
      values.push_back(v);
      v = std::nextafter(v, 1000.0f);
    }
  }
  std::uint32_t state = 12345u;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    values.push_back(static_cast<float>(state >> 8) * (260.0f / 16777216.0f));
  }
  int checked = 0;
  for (const float v : values) {
    ASSERT_EQ(device_unorm8_emulated(v), to_unorm8(v)) << "v = " << v;
    ++checked;
  }
  EXPECT_GT(checked, 250000);
  // The host path packs the four channels as a uchar4's bytes.
  EXPECT_EQ(nonnegative_to_unorm8_bits(make_float4(0.49f, 1.5f, 254.5f, 300.0f)), 0xffff0200u);
}

TEST(SeparableWindow, EqualsTheDirectSumInTheSameOrder) {
  // accumulate_window against acc[j] += w[t] * s[t + j], t ascending: same values, same roundings.
  std::vector<float> samples(300), weights(264);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 1.0f / (1.0f + static_cast<float>(i));
  for (const int taps : {4, 8, 64, 256}) {
    float acc[4] = {0.5f, -1.0f, 2.0f, 0.0f}, expected[4];
    std::copy(acc, acc + 4, expected);
    std::vector<int> calls;
    accumulate_window<4>(acc, weights.data(), taps, [&](int i) {
      calls.push_back(i);
      return samples[static_cast<std::size_t>(i)];
    });
    for (int j = 0; j < 4; ++j)
      for (int t = 0; t < taps; ++t)
        expected[j] = std::fmaf(weights[static_cast<std::size_t>(t)], samples[static_cast<std::size_t>(t + j)], expected[j]);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(acc[j], expected[j]) << "taps " << taps << ", output " << j;
    // Each sample exactly once, in order: taps + N - 1 loads for N outputs.
    ASSERT_EQ(static_cast<int>(calls.size()), taps + 3);
    for (int i = 0; i < static_cast<int>(calls.size()); ++i) EXPECT_EQ(calls[static_cast<std::size_t>(i)], i);
  }
}

template <class P, class Element>
void expect_conflict_free_tile_reads(const char* name) {
  // One accumulate instruction of a warp: lane l reads tile slot l × kPitch + c. A shared-memory
  // request is served in 128-byte wavefronts of 32 four-byte banks: 32 lanes of 4-byte elements
  // must hit 32 different banks, 8 lanes (a quarter warp) of 16-byte elements 8 different 16-byte
  // bank groups.
  constexpr int kElementWords = static_cast<int>(sizeof(Element) / 4);
  constexpr int kLanesPerWavefront = 32 / kElementWords;
  for (int c = 0; c < P::kMaxSpan; ++c)
    for (int first_lane = 0; first_lane < 32; first_lane += kLanesPerWavefront) {
      std::set<int> banks;
      for (int lane = first_lane; lane < first_lane + kLanesPerWavefront; ++lane)
        banks.insert(((lane * P::kPitch + c) * kElementWords) % 32);
      EXPECT_EQ(static_cast<int>(banks.size()), kLanesPerWavefront) << name << ": column " << c;
    }
}

TEST(SeparableSharedPolicy, TilesFitAndReadWithoutBankConflicts) {
  EXPECT_EQ(RgbaShared::kPitch % 2, 1);
  EXPECT_EQ(F32Shared::kPitch % 2, 1);
  // Static shared memory of each kernel (tile + chunk weights) under the 48 KiB static limit.
  const std::size_t static_limit = 48 * 1024;
  EXPECT_LE(RgbaShared::kLines * RgbaShared::kPitch * sizeof(float4) + RgbaShared::kChunkTaps * sizeof(float), static_limit);
  EXPECT_LE(RgbaShared::kLines * RgbaShared::kPitch * sizeof(uchar4) + RgbaShared::kChunkTaps * sizeof(float), static_limit);
  EXPECT_LE(F32Shared::kLines * F32Shared::kPitch * sizeof(float) + F32Shared::kChunkTaps * sizeof(float), static_limit);
  // Two RGBA8 column blocks and four F32 blocks fit the 228 KiB of an H100 SM (1 KiB reserved each).
  EXPECT_LE(RgbaShared::kMinBlocksPerSm * (RgbaShared::kLines * RgbaShared::kPitch * sizeof(float4) + 1024), 228u * 1024);
  EXPECT_LE(F32Shared::kMinBlocksPerSm * (F32Shared::kLines * F32Shared::kPitch * sizeof(float) + 1024), 228u * 1024);
  expect_conflict_free_tile_reads<RgbaShared, uchar4>("RGBA8 rows tile");
  expect_conflict_free_tile_reads<RgbaShared, float4>("RGBA8 columns tile");
  expect_conflict_free_tile_reads<F32Shared, float>("F32 tile");
}

TEST(SeparableSharedPolicy, ChunksCoverEveryTapOnce) {
  for (const int radius : {0, 1, 15, 16, 31, 32, 33, 100, kMaxRadius}) {
    LinePass pass{1, 1, radius, padded_tap_count(radius, RgbaShared::kOutputs), BorderMode::Reflect};
    int covered = 0, chunks = 0;
    for (int start = 0; start < pass.padded_taps; start += RgbaShared::kChunkTaps) {
      const int taps = chunk_tap_count<RgbaShared>(pass, start);
      EXPECT_GT(taps, 0);
      EXPECT_EQ(taps % RgbaShared::kOutputs, 0) << "radius " << radius << ", chunk at " << start;
      covered += taps;
      ++chunks;
    }
    EXPECT_EQ(covered, pass.padded_taps) << "radius " << radius;
    if (radius == kMaxRadius) {
      EXPECT_EQ(chunks, 126);  // 4004 taps in chunks of 32
    }
  }
}

TEST(SeparableSharedPolicy, BlocksTileEveryLineAndPositionOnce) {
  for (const auto& [lines, length] : {std::pair{1, 1}, {1, 4099}, {4099, 1}, {33, 65}, {17, 4099}, {64, 128}}) {
    const LinePass pass{lines, length, 3, padded_tap_count(3, F32Shared::kOutputs), BorderMode::Wrap};
    std::vector<int> owner_count(static_cast<std::size_t>(lines) * length, 0);
    const long long blocks = tile_block_count<F32Shared>(pass);
    for (long long b = 0; b < blocks; ++b) {
      const TileBlock block = tile_block<F32Shared>(pass, static_cast<int>(b));
      EXPECT_EQ(block.first_line % 32, 0);
      EXPECT_EQ(block.segment_start % F32Shared::kSegment, 0);
      for (int l = block.first_line; l < std::min(lines, block.first_line + 32); ++l)
        for (int p = block.segment_start; p < std::min(length, block.segment_start + F32Shared::kSegment); ++p)
          ++owner_count[static_cast<std::size_t>(l) * length + p];
    }
    EXPECT_TRUE(std::all_of(owner_count.begin(), owner_count.end(), [](int n) { return n == 1; }))
        << lines << " lines of " << length;
  }
}

TEST(SeparableSharedPolicy, LargestImagesFitTheGrid) {
  // kMaxPixels in the worst shapes: one grid dimension of at most 2^31 - 1 blocks.
  for (const auto& [width, height] : {std::pair{1, 1 << 30}, {1 << 30, 1}, {32768, 32768}, {33, 32537631}}) {
    const LinePass rows{height, width, 0, 4, BorderMode::Reflect};
    const LinePass columns{width, height, 0, 4, BorderMode::Reflect};
    for (const LinePass& pass : {rows, columns}) {
      EXPECT_LE(tile_block_count<RgbaShared>(pass), 0x7fffffffLL) << width << "×" << height;
      EXPECT_LE(tile_block_count<F32Shared>(pass), 0x7fffffffLL) << width << "×" << height;
    }
  }
}

TEST(SeparableModel, TextureFetchesOutsideTheImageOnlyWhereTheHardwareDoesTheBorder) {
  // The model's texture unit itself (the shared arrays' checks are tested with the kit).
  const std::vector<float> image(6, 1.0f);
  EXPECT_THROW(model_fetch(image, 3, 2, -1, 0, BorderMode::Reflect), ModelError);
  EXPECT_EQ(model_fetch(image, 3, 2, -1, 5, BorderMode::Nearest), 1.0f);
  EXPECT_EQ(model_fetch(image, 3, 2, 3, 0, BorderMode::Constant), 0.0f);
}

// ---- tests: the models against the plain loop, bit for bit --------------------------------------------

TEST(SeparableModel, SmallImagesEveryBorderAndRadiusAcrossTheChunkSizes) {
  // Radii below, at and above a window group (4, 8), a chunk (32, 64) and the image side.
  const std::vector<int> radii = {0, 1, 3, 8, 31, 32, 33, 65};
  int cases = 0;
  for (const auto& [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {2, 3}, {5, 7}, {13, 17}, {70, 3}, {3, 70}}) {
    cases += check_models_match_plain_loop<Rgba8>(w, h, radii);
    cases += check_models_match_plain_loop<float>(w, h, radii);
  }
  EXPECT_EQ(cases, 8 * 2 * 8 * 5);
}

TEST(SeparableModel, ImagesLargerThanATileInBothDirections) {
  check_models_match_plain_loop<Rgba8>(97, 67, {2, 40});
  check_models_match_plain_loop<float>(97, 67, {2, 40});
  check_models_match_plain_loop<Rgba8>(130, 33, {17});
  check_models_match_plain_loop<float>(33, 130, {17});
}

TEST(SeparableModel, WideShortImageFromTheBrief) {
  check_models_match_plain_loop<Rgba8>(4099, 17, {8});
  check_models_match_plain_loop<float>(17, 4099, {8});
}

TEST(SeparableModel, RadiusFarBeyondTheImage) {
  // The largest radius on images it exceeds many times: border_index folds it back every time.
  check_models_match_plain_loop<Rgba8>(1, 1, {kMaxRadius});
  check_models_match_plain_loop<float>(3, 2, {kMaxRadius});
  check_models_match_plain_loop<float>(1, 5, {700});
  check_models_match_plain_loop<Rgba8>(6, 1, {333});
}

TEST(SeparableModel, Rgba16AndRgba32FKernelsMatchThePlainLoopBitForBit) {
  // Their own kernels: RGBA8's policy with ushort4 and float4 samples, radii across the chunk.
  int cases = 0;
  for (auto [w, h] : {std::pair{1, 1}, {13, 7}, {37, 29}}) {
    cases += check_models_match_plain_loop<Rgba16>(w, h, {0, 1, 5, 16, 40});
    cases += check_models_match_plain_loop<Rgba32f>(w, h, {0, 1, 5, 16, 40});
  }
  EXPECT_EQ(cases, 3 * 2 * 5 * 5);
}

// A NaN or an infinity of a float image stays non-finite through the float stores (nothing clamps
// it): every output whose window holds one is NaN or infinite, and none beyond the window and the
// N - 1 padding taps of the register window (a zero pad weight times infinity is NaN).
TEST(SeparableModel, NanAndInfinityOfAFloatImageStayWithinTheWindowAndThePadding) {
  ImageF32 src = make_random_f32(41, 29, 5);
  src.at(9, 7) = std::numeric_limits<float>::quiet_NaN();
  src.at(30, 20) = std::numeric_limits<float>::infinity();
  const FilterParams params = radius_params(3, BorderMode::Reflect);
  for (const auto& [name, out] : {std::pair{"separable_shared", model_separable_shared(src, params)},
                                  std::pair{"separable_texture", model_separable_texture(src, params)}}) {
    const int reach = 3 + F32Shared::kOutputs - 1;
    for (int y = 0; y < src.height(); ++y)
      for (int x = 0; x < src.width(); ++x) {
        const bool finite = std::isfinite(out.at(x, y));
        const auto near = [&](int px, int py, int r) { return std::abs(x - px) <= r && std::abs(y - py) <= r; };
        if (near(9, 7, 3) || near(30, 20, 3)) {
          EXPECT_FALSE(finite) << name << " at (" << x << ", " << y << ")";
        } else if (!near(9, 7, reach) && !near(30, 20, reach)) {
          EXPECT_TRUE(finite) << name << " at (" << x << ", " << y << ")";
        }
      }
  }
}

// ---- tests: accuracy against the float64 reference ----------------------------------------------------

// The shared-memory model (the texture model is bit-identical, see above): sigmas from below 1 to a
// radius larger than the image.
const auto model_shared = [](const auto& image, const FilterParams& params) { return model_separable_shared(image, params); };

TEST(SeparableAccuracy, ModelMeetsTheBoundOnPhotosAndNoise) {
  expect_model_meets_its_bound("separable_shared", {0.3, 1.0, 2.5, 9.0, 20.0}, model_shared);
}

TEST(SeparableAccuracy, FlatImagesStayFlat) { expect_flat_images_stay_flat({0.5, 3.0, 40.0}, model_shared); }

// RGBA16 in 16-bit levels, RGBA32F relative to the peak: the bound the method states for each.
template <class Pixel>
void expect_rgba_kernels_meet_the_bound() {
  constexpr PixelFormat format = Image<Pixel>::format();
  const Image<Pixel> src = random_image<Pixel>(41, 29, 3);
  for (const double sigma : {0.6, 2.5, 9.0})
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = sigma_params(sigma, border);
      const double bound = bound_for(registered_bound("separable_shared", {41, 29, format, params}), format);
      EXPECT_LE(error_against_reference(src, model_shared(src, params), params), bound)
          << describe_case(format, 41, 29, params);
    }
}

TEST(SeparableAccuracy, Rgba16AndRgba32FMeetTheBoundInTheirOwnUnits) {
  expect_rgba_kernels_meet_the_bound<Rgba16>();
  expect_rgba_kernels_meet_the_bound<Rgba32f>();
}

TEST(SeparableAccuracy, EveryOtherFormatThroughFloatPlanesMeetsTheBoundInItsOwnUnit) {
  EXPECT_EQ(expect_routed_formats_meet_their_bound("separable_shared", {0.6, 2.5}, model_separable_shared<float>),
            kPixelFormatCount - 4);
  EXPECT_EQ(expect_routed_formats_meet_their_bound("separable_texture", {0.6, 2.5}, model_separable_texture<float>),
            kPixelFormatCount - 4);
}

// ---- tests: custom kernels and rounding -----------------------------------------------------------

// Masks of any weights, a pair of two lengths, rank-1 matrices (run through their factors),
// correlated and convolved, normalised or not: both models within the registered bound (with
// floor's and ceil's extra half level) of the float64 reference, at every border.
std::vector<FilterKernel> custom_separable_kernels() {
  FilterKernel convolved_pair = FilterKernel::pair({1, 0, -1}, {1, 2, 3, 2, 1});
  convolved_pair.convolve = true;
  FilterKernel normalised_rank_one = FilterKernel::matrix_2d(5, 3, {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1});
  normalised_rank_one.normalize = true;
  normalised_rank_one.convolve = true;
  return {FilterKernel::mask({1, 2, 5}), FilterKernel::mask({0.5, -1.25, 3, 0.75, -0.5, 2, 1, 0.25, 0.1}),
          convolved_pair, normalised_rank_one,
          FilterKernel::pair(std::vector<double>(41, 1.0 / 41), {0.25, 0.5, 0.25})};  // 41 taps: two chunks
}

template <class Pixel, class Model>
int expect_custom_kernels_within_the_bound(const char* method_id, Model model) {
  constexpr PixelFormat format = Image<Pixel>::format();
  const Image<Pixel> src = random_image<Pixel>(23, 19, 11);
  int cases = 0;
  for (const FilterKernel& kernel : custom_separable_kernels())
    for (const BorderMode border : kAllBorderModes)
      for (const IntegerRounding rounding : {IntegerRounding::Nearest, IntegerRounding::Floor, IntegerRounding::Ceil}) {
        if (rounding != IntegerRounding::Nearest && !is_integer(sample_type(format))) continue;
        FilterParams params;
        params.kernel = kernel;
        params.border = border;
        params.rounding = rounding;
        const double bound = bound_for(registered_bound(method_id, {23, 19, format, params}), format);
        EXPECT_LE(error_against_reference(src, model(src, params), params), bound)
            << method_id << ", " << describe_case(format, 23, 19, params);
        ++cases;
      }
  return cases;
}

TEST(SeparableCustomKernels, ModelsMeetTheBoundForMasksPairsAndRankOneMatrices) {
  int cases = 0;
  cases += expect_custom_kernels_within_the_bound<Rgba8>("separable_shared", model_separable_shared<Rgba8>);
  cases += expect_custom_kernels_within_the_bound<float>("separable_shared", model_separable_shared<float>);
  cases += expect_custom_kernels_within_the_bound<Rgba16>("separable_shared", model_separable_shared<Rgba16>);
  cases += expect_custom_kernels_within_the_bound<Rgba8>("separable_texture", model_separable_texture<Rgba8>);
  cases += expect_custom_kernels_within_the_bound<float>("separable_texture", model_separable_texture<float>);
  EXPECT_EQ(cases, 5 * 5 * (3 + 1 + 3 + 3 + 1));
}

TEST(SeparableCustomKernels, TheWorkedExampleGivesTwoThreeThreeThreeTwo) {
  ImageF32 src(5, 1);
  for (int x = 0; x < 5; ++x) src.at(x, 0) = 1.0f;
  FilterParams params;
  params.kernel = FilterKernel::mask({1, 1, 1});
  params.border = BorderMode::Constant;  // the column pass over one row adds zeros around it
  for (const ImageF32& out : {model_separable_shared(src, params), model_separable_texture(src, params)})
    for (int x = 0; x < 5; ++x) EXPECT_EQ(out.at(x, 0), x == 0 || x == 4 ? 2.0f : 3.0f) << x;
}

// The original BMP system's kind of table: integer weights, divided by their sum, stored by floor
// (and ceil) with a zero border, against integer arithmetic written here: byte for byte.
TEST(SeparableCustomKernels, FloorAndCeilOfANormalisedIntegerPairAreExact) {
  const std::vector<int> along_x = {1, 4, 6, 4, 1}, along_y = {1, 2, 1};
  const int sum = 16 * 4;
  const ImageRgba8 src = make_random_rgba8(37, 21, 8);
  FilterParams params;
  params.kernel = FilterKernel::pair({1, 4, 6, 4, 1}, {1, 2, 1});
  params.kernel.normalize = true;
  params.border = BorderMode::Constant;
  for (const IntegerRounding rounding : {IntegerRounding::Floor, IntegerRounding::Ceil}) {
    params.rounding = rounding;
    const ImageRgba8 shared = model_separable_shared(src, params), texture = model_separable_texture(src, params);
    int checked = 0;
    for (int y = 0; y < src.height(); ++y)
      for (int x = 0; x < src.width(); ++x)
        for (int c = 0; c < 4; ++c) {
          long total = 0;
          for (int j = -1; j <= 1; ++j)
            for (int i = -2; i <= 2; ++i) {
              const int sx = x + i, sy = y + j;
              if (sx < 0 || sy < 0 || sx >= src.width() || sy >= src.height()) continue;
              total += along_y[j + 1] * along_x[i + 2] * reinterpret_cast<const std::uint8_t*>(&src.at(sx, sy))[c];
            }
          const long level = rounding == IntegerRounding::Floor ? total / sum : (total + sum - 1) / sum;
          ASSERT_EQ(reinterpret_cast<const std::uint8_t*>(&shared.at(x, y))[c], level) << x << ", " << y << ", " << c;
          ASSERT_EQ(reinterpret_cast<const std::uint8_t*>(&texture.at(x, y))[c], level) << x << ", " << y << ", " << c;
          ++checked;
        }
    EXPECT_EQ(checked, 37 * 21 * 4);
  }
}

TEST(SeparableCustomKernels, OtherFormatsThroughFloatPlanesStoreByTheRounding) {
  // The twelve formats it runs as F32 planes: their packing stores by floor as the kernels do.
  EXPECT_EQ(expect_routed_formats_meet_their_bound("separable_shared", {0.6}, model_separable_shared<float>, {},
                                                  IntegerRounding::Floor),
            kPixelFormatCount - 4);
}

// Prints the table in docs/methods/separable_shared.md (slow: sigma up to 200 on 160×128 crops).
TEST(SeparableAccuracy, DISABLED_Table) { print_accuracy_table({0.3, 1.0, 2.0, 5.0, 20.0, 60.0, 200.0}, model_shared); }

}  // namespace
}  // namespace gausslab
