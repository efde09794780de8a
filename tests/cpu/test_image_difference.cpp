// The A-against-B figures (core/difference_stats.hpp): the CPU implementation against a direct
// computation in the test, and the GPU reduction's per-thread and per-block steps
// (cuda/image_difference.hpp) run on the CPU in the kernels' order, against the same.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gausslab/core/difference_stats.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/image_difference.hpp"

namespace gausslab {
namespace {

// Planes of `channels` float values stacked vertically, as the viewer keeps unrounded results.
struct Planes {
  int width, height, channels;
  std::vector<float> values;
  Planes(int w, int h, int c) : width(w), height(h), channels(c), values(static_cast<std::size_t>(w) * h * c) {}
  float& at(int x, int y, int c) { return values[(static_cast<std::size_t>(c) * height + y) * width + x]; }
  DifferenceOperand operand() const {
    return planes_operand(values.data(), sizeof(float) * static_cast<std::size_t>(width), height, OperandType::F32);
  }
};

Planes random_planes(int w, int h, std::uint32_t seed) {
  Planes p(w, h, 4);
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(0.0f, 255.0f);
  for (float& v : p.values) v = value(random);
  return p;
}

struct Direct {
  double max_abs = -1, sum_abs = 0, sum_squares = 0;
  int x = -1, y = -1, c = -1;
};

// The plain loop, in the order samples are numbered: (y, x, c).
Direct direct(const DifferenceInput& in, bool rounded) {
  Direct d;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      for (int c = 0; c < in.channels; ++c) {
        double a = in.a.sample(x, y, c), b = in.b.sample(x, y, c);
        if (rounded) {
          a = in.a.rounded(a);
          b = in.b.rounded(b);
        }
        const double diff = std::fabs(a - b);
        d.sum_abs += diff;
        d.sum_squares += diff * diff;
        if (diff > d.max_abs) {
          d.max_abs = diff;
          d.x = x;
          d.y = y;
          d.c = c;
        }
      }
  return d;
}

void expect_matches(const DifferenceFigures& f, const Direct& d, long long samples) {
  EXPECT_EQ(f.max_abs, d.max_abs);
  EXPECT_EQ(f.max_x, d.x);
  EXPECT_EQ(f.max_y, d.y);
  EXPECT_EQ(f.max_channel, d.c);
  EXPECT_NEAR(f.mean_abs, d.sum_abs / samples, 1e-12 * (1 + d.sum_abs / samples));
  const double rms = std::sqrt(d.sum_squares / samples);
  EXPECT_NEAR(f.rms, rms, 1e-12 * (1 + rms));
  EXPECT_NEAR(f.psnr_db, 20 * std::log10(255.0 / rms), 1e-9);
}

// The GPU reduction's two kernels, block by block and step by step, on the CPU.
DifferenceStats gpu_model(const DifferenceInput& in) {
  const int blocks = difference_blocks(in.samples());
  constexpr int kThreads = DifferencePolicy::kThreads;
  std::vector<DifferencePartial> block_parts(static_cast<std::size_t>(blocks));
  std::vector<DifferencePartial> parts(kThreads);
  for (int block = 0; block < blocks; ++block) {
    for (int t = 0; t < kThreads; ++t) parts[static_cast<std::size_t>(t)] = difference_thread_part(in, block, t, blocks);
    for (int half = kThreads / 2; half > 0; half /= 2)  // every thread's step between two barriers
      for (int t = 0; t < kThreads; ++t) difference_tree_step(parts.data(), t, half);
    block_parts[static_cast<std::size_t>(block)] = parts[0];
  }
  for (int t = 0; t < kThreads; ++t) {
    DifferencePartial mine;
    for (int b = t; b < blocks; b += kThreads) merge_into(mine, block_parts[static_cast<std::size_t>(b)]);
    parts[static_cast<std::size_t>(t)] = mine;
  }
  for (int half = kThreads / 2; half > 0; half /= 2)
    for (int t = 0; t < kThreads; ++t) difference_tree_step(parts.data(), t, half);
  return finish_difference(parts[0], in, 255.0);
}

TEST(ImageDifference, FiguresMatchADirectComputationOnOddSizes) {
  for (auto [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{333, 217}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Planes a = random_planes(w, h, 1), b = random_planes(w, h, 2);
    const DifferenceInput in{a.operand(), b.operand(), w, h, 4};
    const DifferenceStats stats = image_difference_host(in);
    EXPECT_EQ(stats.samples, static_cast<long long>(w) * h * 4);
    expect_matches(stats.unrounded, direct(in, false), stats.samples);
    expect_matches(stats.rounded, direct(in, true), stats.samples);
  }
}

TEST(ImageDifference, AnImageAgainstItselfIsZeroWithInfinitePsnr) {
  const Planes a = random_planes(64, 37, 3);
  const DifferenceStats stats = image_difference_host(DifferenceInput{a.operand(), a.operand(), 64, 37, 4});
  EXPECT_TRUE(stats.identical());
  EXPECT_EQ(stats.unrounded.max_abs, 0.0);
  EXPECT_EQ(stats.unrounded.mean_abs, 0.0);
  EXPECT_TRUE(std::isinf(stats.unrounded.psnr_db));
  EXPECT_EQ(stats.rounded.max_abs, 0.0);
  EXPECT_EQ(gpu_model(DifferenceInput{a.operand(), a.operand(), 64, 37, 4}).unrounded.max_abs, 0.0);
}

TEST(ImageDifference, UnroundedDifferencesShowWhatRoundingHides) {
  Planes a(2, 1, 4), b(2, 1, 4);
  for (int c = 0; c < 4; ++c) {
    a.at(0, 0, c) = b.at(0, 0, c) = 100.0f;
    a.at(1, 0, c) = 10.4f;  // both round to 10
    b.at(1, 0, c) = 10.2f;
  }
  a.at(0, 0, 2) = 20.4f;  // rounds to 20, against 100: the largest rounded difference
  const DifferenceStats stats = image_difference_host(DifferenceInput{a.operand(), b.operand(), 2, 1, 4});
  EXPECT_NEAR(stats.unrounded.max_abs, 79.6, 1e-5);
  EXPECT_EQ(stats.rounded.max_abs, 80.0);
  EXPECT_EQ(stats.rounded.max_x, 0);
  EXPECT_EQ(stats.rounded.max_channel, 2);

  Planes c(1, 1, 4), d(1, 1, 4);
  for (int ch = 0; ch < 4; ++ch) {
    c.at(0, 0, ch) = 10.4f;
    d.at(0, 0, ch) = 10.2f;
  }
  const DifferenceStats close = image_difference_host(DifferenceInput{c.operand(), d.operand(), 1, 1, 4});
  EXPECT_NEAR(close.unrounded.max_abs, 0.2, 1e-5);  // two methods told apart before rounding
  EXPECT_EQ(close.rounded.max_abs, 0.0);            // and equal after
}

TEST(ImageDifference, TiesKeepTheFirstSampleWhateverTheMergeOrder) {
  Planes a(300, 40, 4), b(300, 40, 4);
  a.at(250, 30, 1) = 5.0f;  // two equal largest differences: (17, 3) comes first
  a.at(17, 3, 3) = 5.0f;
  const DifferenceInput in{a.operand(), b.operand(), 300, 40, 4};
  for (const DifferenceStats& stats : {image_difference_host(in), gpu_model(in)}) {
    EXPECT_EQ(stats.unrounded.max_x, 17);
    EXPECT_EQ(stats.unrounded.max_y, 3);
    EXPECT_EQ(stats.unrounded.max_channel, 3);
  }
}

TEST(ImageDifference, TheGpuKernelsStepsOnTheCpuGiveTheSameFigures) {
  // Sizes below, at and above one block, and with more samples than the grid covers in one stride.
  for (auto [w, h] : {std::pair{1, 1}, std::pair{64, 1}, std::pair{65, 1}, std::pair{257, 129}, std::pair{1031, 300}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Planes a = random_planes(w, h, 7), b = random_planes(w, h, 8);
    const DifferenceInput in{a.operand(), b.operand(), w, h, 4};
    const DifferenceStats host = image_difference_host(in), model = gpu_model(in);
    EXPECT_EQ(model.unrounded.max_abs, host.unrounded.max_abs);
    EXPECT_EQ(model.unrounded.max_x, host.unrounded.max_x);
    EXPECT_EQ(model.unrounded.max_y, host.unrounded.max_y);
    EXPECT_EQ(model.unrounded.max_channel, host.unrounded.max_channel);
    EXPECT_NEAR(model.unrounded.mean_abs, host.unrounded.mean_abs, 1e-12 * host.unrounded.mean_abs);
    EXPECT_NEAR(model.unrounded.rms, host.unrounded.rms, 1e-12 * host.unrounded.rms);
    EXPECT_EQ(model.rounded.max_abs, host.rounded.max_abs);
    EXPECT_NEAR(model.rounded.mean_abs, host.rounded.mean_abs, 1e-12 * (1 + host.rounded.mean_abs));
  }
}

TEST(ImageDifference, MixedOperandsReadTheirOwnLayouts) {
  // An RGBA8 picture against the float64 reference's interleaved layout and float planes.
  const ImageRgba8 picture = make_random_rgba8(19, 11, 4);
  std::vector<double> interleaved(19 * 11 * 4);
  Planes planes(19, 11, 4);
  for (int y = 0; y < 11; ++y)
    for (int x = 0; x < 19; ++x)
      for (int c = 0; c < 4; ++c) {
        const double v = channel_value(picture.view(), x, y, c);
        interleaved[(static_cast<std::size_t>(y) * 19 + x) * 4 + c] = v + 0.25;
        planes.at(x, y, c) = static_cast<float>(v);
      }
  const DifferenceOperand rgba = rgba8_operand(picture.data(), picture.pitch_bytes());
  const DifferenceStats vs_planes = image_difference_host(DifferenceInput{rgba, planes.operand(), 19, 11, 4});
  EXPECT_TRUE(vs_planes.identical());
  const DifferenceStats vs_reference =
      image_difference_host(DifferenceInput{rgba, interleaved_f64_operand(interleaved.data(), 19, 4), 19, 11, 4});
  EXPECT_DOUBLE_EQ(vs_reference.unrounded.max_abs, 0.25);
  EXPECT_DOUBLE_EQ(vs_reference.unrounded.mean_abs, 0.25);
  EXPECT_EQ(vs_reference.rounded.max_abs, 0.0);  // x + 0.25 rounds back to x
}

TEST(ImageDifference, NonFiniteSamplesAreCountedAndLeftOut) {
  Planes a = random_planes(5, 5, 9), b = a;
  a.at(2, 2, 0) = std::numeric_limits<float>::quiet_NaN();
  b.at(3, 1, 2) = std::numeric_limits<float>::infinity();
  const DifferenceStats stats = image_difference_host(DifferenceInput{a.operand(), b.operand(), 5, 5, 4});
  EXPECT_EQ(stats.nonfinite, 2u);
  EXPECT_EQ(stats.unrounded.max_abs, 0.0);
  EXPECT_FALSE(stats.identical());
}

}  // namespace
}  // namespace gausslab
