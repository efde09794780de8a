// tiled_1d on the CPU: the model runs tiled_1d_common.cuh's per-thread code block by block and
// thread by thread, in the kernel's phases (load | compute | stage | store, a barrier between each),
// with checked shared memory (kit/checked_shared.hpp) and checked global memory (every read inside
// the signal, every vector access whole and inside it, every output written exactly once). Its
// result must equal, bit for bit, a plain loop of the same arithmetic (groups of kOutputs taps, fmaf in
// ascending order, each group's sum added to the total) and meet the method's bound against the
// float64 reference (scipy.ndimage.gaussian_filter1d's sum, reference_gaussian with RowsOnly), at
// edge lengths (1, 2, the tile ± 1, primes, 2^20 + 3), every border mode, radii 0 to 2000, with
// the vector loads and stores on and off (an unaligned signal takes the sample-by-sample path).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/reference.hpp"
#include "kit/method_tests.hpp"
#include "kit/checked_shared.hpp"
#include "kit/params.hpp"
#include "tiled_1d_common.cuh"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("tiled_1d", Tiled1dModel);

using namespace tiled1d;
using test::ModelError;
using test::CheckedShared;

// The signal in global memory: reads checked against its length, vector reads whole.
struct ModelSource {
  const std::vector<float>* samples;
  float operator()(int i) const {
    if (i < 0 || i >= static_cast<int>(samples->size()))
      throw ModelError("read of sample " + std::to_string(i) + " outside the signal of " +
                       std::to_string(samples->size()));
    return (*samples)[static_cast<std::size_t>(i)];
  }
  float4 vector(int q) const { return make_float4((*this)(4 * q), (*this)(4 * q + 1), (*this)(4 * q + 2), (*this)(4 * q + 3)); }
};

// The output in global memory: every sample written exactly once, nothing outside.
struct ModelDestination {
  std::vector<float>* samples;
  std::vector<int>* writes;
  void store(int i, float value) const {
    if (i < 0 || i >= static_cast<int>(samples->size()))
      throw ModelError("write of sample " + std::to_string(i) + " outside the signal of " +
                       std::to_string(samples->size()));
    (*samples)[static_cast<std::size_t>(i)] = value;
    ++(*writes)[static_cast<std::size_t>(i)];
  }
  void store_vector(int q, float4 v) const {
    store(4 * q, v.x), store(4 * q + 1, v.y), store(4 * q + 2, v.z), store(4 * q + 3, v.w);
  }
};

SignalArgs make_args(int length, const FilterParams& params) {
  SignalArgs args;
  args.length = length;
  args.radius = params.radius();
  args.taps = 2 * args.radius + 1;
  args.border = params.border;
  return args;
}

// The kernel's phases over every block, with the weights gaussian_weights_f32 gives the method.
template <bool kVector>
std::vector<float> run_model(const std::vector<float>& signal, const FilterParams& params) {
  const SignalArgs args = make_args(static_cast<int>(signal.size()), params);
  const std::vector<float> weights = gaussian_weights_f32(params.sigma, args.radius);
  std::vector<float> result(signal.size(), std::nanf(""));
  std::vector<int> writes(signal.size(), 0);
  const ModelSource source{&signal};
  const ModelDestination destination{&result, &writes};
  CheckedShared<float> shared(static_cast<std::size_t>(shared_floats(args.taps)), "tiled_1d tile");
  std::vector<std::array<float, P::kOutputs>> outputs(P::kThreads);
  for (long long b = 0; b < block_count(args.length); ++b) {
    const int block = static_cast<int>(b);
    shared.begin_fill();
    for (int t = 0; t < P::kThreads; ++t) load_tile<kVector>(args, block, t, source, shared.access());
    shared.begin_read();
    for (int t = 0; t < P::kThreads; ++t) {
      float out[P::kOutputs];
      compute_outputs(args, t, shared.access(), weights.data(), out);
      std::copy(out, out + P::kOutputs, outputs[static_cast<std::size_t>(t)].begin());
    }
    shared.begin_fill();
    for (int t = 0; t < P::kThreads; ++t) {
      float out[P::kOutputs];
      std::copy(outputs[static_cast<std::size_t>(t)].begin(), outputs[static_cast<std::size_t>(t)].end(), out);
      stage_outputs(t, out, shared.access());
    }
    shared.begin_read();
    for (int t = 0; t < P::kThreads; ++t) store_outputs<kVector>(args, block, t, shared.access(), destination);
  }
  for (std::size_t i = 0; i < writes.size(); ++i)
    if (writes[i] != 1)
      throw ModelError("output " + std::to_string(i) + " written " + std::to_string(writes[i]) + " times");
  return result;
}

// The same arithmetic as a plain loop: groups of kOutputs taps, fmaf in ascending order.
std::vector<float> plain_loop(const std::vector<float>& signal, const FilterParams& params) {
  const int n = static_cast<int>(signal.size()), r = params.radius(), taps = 2 * r + 1;
  const std::vector<float> weights = gaussian_weights_f32(params.sigma, r);
  std::vector<float> result(signal.size());
  for (int x = 0; x < n; ++x) {
    float total = 0.0f;
    for (int k0 = 0; k0 < taps; k0 += P::kOutputs) {
      float part = 0.0f;
      for (int k = k0; k < k0 + P::kOutputs && k < taps; ++k) {
        const int s = border_index(x + k - r, n, params.border);
        part = std::fmaf(weights[static_cast<std::size_t>(k)], s >= 0 ? signal[static_cast<std::size_t>(s)] : 0.0f, part);
      }
      total += part;
    }
    result[static_cast<std::size_t>(x)] = total;
  }
  return result;
}

std::vector<float> random_signal(int length, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(1.0f, 3.0f);
  std::vector<float> signal(static_cast<std::size_t>(length));
  for (float& v : signal) v = noise(rng);
  return signal;
}

using test::signal_params;

// max |result - reference| / max |reference| against the float64 reference.
double relative_error(const std::vector<float>& signal, const std::vector<float>& result, const FilterParams& params) {
  const ConstImageView src(signal.data(), static_cast<int>(signal.size()), 1, signal.size() * sizeof(float),
                           PixelFormat::F32);
  const ConstImageView out(result.data(), static_cast<int>(result.size()), 1, result.size() * sizeof(float),
                           PixelFormat::F32);
  const AccuracyStats stats = compare_with_reference(out, reference_gaussian(src, params), 1.0);
  EXPECT_EQ(stats.nonfinite, 0u);
  return stats.max_relative_error;
}

void expect_model_matches(int length, const FilterParams& params, std::uint32_t seed) {
  const std::vector<float> signal = random_signal(length, seed);
  const std::string where = "length " + std::to_string(length) + ", " + describe(params);
  const std::vector<float> vector_result = run_model<true>(signal, params);
  const std::vector<float> scalar_result = run_model<false>(signal, params);
  const std::vector<float> loop = plain_loop(signal, params);
  ASSERT_EQ(vector_result, loop) << where << ": vector path";
  ASSERT_EQ(scalar_result, loop) << where << ": sample-by-sample path";
  EXPECT_LE(relative_error(signal, vector_result, params), error_bound(2 * params.radius() + 1)) << where;
}

TEST(Tiled1dModel, EdgeLengthsInEveryBorderModeEqualThePlainLoopAndMeetTheBound) {
  for (const int length : {1, 2, 3, 7, P::kTile - 1, P::kTile, P::kTile + 1, 2 * P::kTile + 3, 7919})
    for (const BorderMode border : kAllBorderModes)
      for (const double sigma : {0.1, 0.7, 5.0})  // radius 0, 3 and 20
        expect_model_matches(length, signal_params(sigma, border), static_cast<std::uint32_t>(length));
}

TEST(Tiled1dModel, RadiiFromOneTapPastTheSignalAndTheTileToTheLargest) {
  for (const BorderMode border : kAllBorderModes) {
    for (const int radius : {1, 7, 8, 9, 15, 16, 17, 64, 1023, 1024})  // around groups of taps; past the tile
      expect_model_matches(3001, signal_params(std::min(200.0, radius / 4.0 + 0.1), border, radius), 5u);
    expect_model_matches(5, signal_params(200.0, border, 2000), 9u);  // 4001 taps over 5 samples
    expect_model_matches(P::kTile + 1, signal_params(200.0, border, 2000), 11u);
  }
}

TEST(Tiled1dModel, AMillionSamplesPlusThreeInEveryBorderMode) {
  const int length = (1 << 20) + 3;  // the last block holds 3 outputs
  const std::vector<float> signal = random_signal(length, 21u);
  for (const BorderMode border : kAllBorderModes) {
    const FilterParams params = signal_params(5.0, border);
    const std::vector<float> result = run_model<true>(signal, params);
    ASSERT_EQ(result, plain_loop(signal, params)) << to_string(border);
    EXPECT_LE(relative_error(signal, result, params), error_bound(2 * params.radius() + 1)) << to_string(border);
  }
}

TEST(Tiled1dModel, CheckedMemoryCatchesAMissingLoadAndADoubleStore) {
  // The model is only worth its checks: a tile one group short is read past its fill.
  const std::vector<float> signal = random_signal(100, 1u);
  SignalArgs args = make_args(100, signal_params(2.0, BorderMode::Reflect));
  CheckedShared<float> shared(static_cast<std::size_t>(shared_floats(args.taps)), "tile");
  shared.begin_fill();
  SignalArgs short_args = args;
  short_args.taps -= P::kOutputs;  // loads 8 samples too few for `args`
  for (int t = 0; t < P::kThreads; ++t) load_tile<true>(short_args, 0, t, ModelSource{&signal}, shared.access());
  shared.begin_read();
  const std::vector<float> weights = gaussian_weights_f32(2.0, 8);
  float out[P::kOutputs];
  EXPECT_THROW(
      {
        for (int t = 0; t < P::kThreads; ++t) compute_outputs(args, t, shared.access(), weights.data(), out);
      },
      ModelError);
  shared.begin_fill();
  stage_outputs(0, out, shared.access());
  EXPECT_THROW(stage_outputs(0, out, shared.access()), ModelError);
}

TEST(Tiled1dModel, SharedMemoryAndGridFitEveryRadiusAndTheLongestSignal) {
  // 4001 taps: the tile's floats with padding stay within the 48 KiB a block gets everywhere.
  EXPECT_LE(shared_floats(4001) * sizeof(float), 48u * 1024u);
  EXPECT_EQ(shared_floats(41) * sizeof(float), static_cast<std::size_t>(slot(P::kTile + 48 - 1) + 1) * 4);
  EXPECT_LT(block_count(kMaxSide), 0x7fffffffLL);
  // The bound is 1e-5 up to radius 1199, then the worst case of the summation (2000: 1.6e-5).
  EXPECT_EQ(error_bound(2 * 1199 + 1), 1e-5);
  EXPECT_GT(error_bound(2 * 1200 + 1), 1e-5);
  EXPECT_GT(error_bound(2 * 2000 + 1), 1.5e-5);
  EXPECT_LT(error_bound(2 * 2000 + 1), 1.7e-5);
}

TEST(Tiled1dModel, WindowReadsOfAWarpHitDistinctBanks) {
  // Lane l reads sample 16l + j (+ the group's offset): with the padding, 32 lanes, 32 banks, for
  // every offset but where a lane's 32-sample row boundary splits the warp (then at most 2 per bank).
  for (int offset = 0; offset < 64; ++offset) {
    int per_bank[32] = {};
    for (int lane = 0; lane < 32; ++lane) ++per_bank[slot(P::kOutputs * lane + offset) % 32];
    EXPECT_LE(*std::max_element(per_bank, per_bank + 32), 2) << offset;
  }
  // The store phase reads 4l + e: always distinct.
  for (int e = 0; e < 4; ++e) {
    int per_bank[32] = {};
    for (int lane = 0; lane < 32; ++lane) ++per_bank[slot(4 * lane + e) % 32];
    EXPECT_EQ(*std::max_element(per_bank, per_bank + 32), 1) << e;
  }
}

}  // namespace
}  // namespace gausslab
