// The display range (render/display_range.hpp): min/max and percentiles of a picture's finite
// values against a sorted float64 reference (NumPy's linear percentiles), for odd sizes, values
// split into blocks of any size, NaN and infinities left out and counted, and a constant picture
// (or one without a finite value) given a range of non-zero width; and the viewer's worker that
// works it out from both slots' values (comparison/display_range_worker.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "comparison/display_range_worker.hpp"
#include "gausslab/render/display_range.hpp"

namespace gausslab {
namespace {

// The values in blocks of `block` (the last one shorter).
ValueBlocks blocks_of(const std::vector<float>& values, std::size_t block) {
  return [&values, block](const std::function<void(const float*, std::size_t)>& visit) {
    for (std::size_t i = 0; i < values.size(); i += block) visit(values.data() + i, std::min(block, values.size() - i));
  };
}

// NumPy's np.percentile(finite, p) (method 'linear'), in float64.
double reference_percentile(std::vector<double> sorted, double p) {
  const double position = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - std::floor(position)) * (sorted[above] - sorted[below]);
}

std::vector<float> random_values(std::size_t count, std::uint32_t seed, float low, float high) {
  std::vector<float> values(count);
  for (float& v : values) {
    seed = seed * 1664525u + 1013904223u;
    v = low + (high - low) * static_cast<float>(seed >> 8) / 16777216.0f;
  }
  return values;
}

TEST(DisplayRange, PercentilesAndMinMaxEqualASortedReferenceForOddSizes) {
  for (std::size_t count : {1u, 2u, 3u, 7u, 1001u, 12345u}) {
    std::vector<float> values = random_values(count, static_cast<std::uint32_t>(count), -3.0f, 5.0f);
    if (count > 3) values[count / 2] = -0.0f;  // both zeros rank as zero
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t block : {std::size_t{1}, std::size_t{64}, count}) {
      SCOPED_TRACE(std::to_string(count) + " values in blocks of " + std::to_string(block));
      const ValueRange minmax = value_range(blocks_of(values, block), RangeMode::MinMax);
      EXPECT_EQ(minmax.finite, static_cast<long long>(count));
      EXPECT_EQ(minmax.skipped, 0);
      if (count > 1) {
        EXPECT_FALSE(minmax.widened);
        EXPECT_EQ(minmax.range.low, sorted.front());
        EXPECT_EQ(minmax.range.high, sorted.back());
      }
      for (const auto& [low, high] : {std::pair{0.1, 99.9}, std::pair{1.0, 99.0}, std::pair{0.0, 100.0}, std::pair{25.0, 75.0}}) {
        const ValueRange r = value_range(blocks_of(values, block), RangeMode::Percentiles, low, high);
        if (count == 1) continue;  // widened: the next test
        EXPECT_DOUBLE_EQ(r.range.low, reference_percentile(sorted, low)) << low;
        EXPECT_DOUBLE_EQ(r.range.high, reference_percentile(sorted, high)) << high;
      }
    }
  }
}

TEST(DisplayRange, NanAndInfinitiesAreLeftOutAndCounted) {
  std::vector<float> values = random_values(999, 3, 0.0f, 2.0f);
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < 40; ++i) values.insert(values.begin() + static_cast<long>(i * 23), i % 3 == 0 ? nan : i % 3 == 1 ? inf : -inf);
  for (RangeMode mode : {RangeMode::MinMax, RangeMode::Percentiles}) {
    const ValueRange r = value_range(blocks_of(values, 100), mode, 1.0, 99.0);
    EXPECT_EQ(r.finite, 999);
    EXPECT_EQ(r.skipped, 40);
    EXPECT_FALSE(r.widened);
    EXPECT_DOUBLE_EQ(r.range.low, mode == RangeMode::MinMax ? sorted.front() : reference_percentile(sorted, 1.0));
    EXPECT_DOUBLE_EQ(r.range.high, mode == RangeMode::MinMax ? sorted.back() : reference_percentile(sorted, 99.0));
  }
}

TEST(DisplayRange, AConstantPictureGetsARangeOfNonZeroWidthAroundItsValue) {
  const std::vector<float> constant(17 * 13, 0.25f);
  for (RangeMode mode : {RangeMode::MinMax, RangeMode::Percentiles}) {
    const ValueRange r = value_range(blocks_of(constant, 17), mode);
    EXPECT_TRUE(r.widened);
    EXPECT_EQ(r.finite, 17 * 13);
    EXPECT_DOUBLE_EQ(r.range.low, 0.25 - kConstantHalfWidth);
    EXPECT_DOUBLE_EQ(r.range.high, 0.25 + kConstantHalfWidth);
  }
  // Nearly constant: the percentiles fall on one value though the extremes differ.
  std::vector<float> nearly(1000, 3.0f);
  nearly[0] = -100.0f;
  nearly[999] = 100.0f;
  const ValueRange p = value_range(blocks_of(nearly, 1000), RangeMode::Percentiles, 1.0, 99.0);
  EXPECT_TRUE(p.widened);
  EXPECT_GT(p.range.high, p.range.low);
  EXPECT_DOUBLE_EQ(0.5 * (p.range.low + p.range.high), 3.0);
  // No finite value at all: the nominal range, every value counted as skipped.
  const std::vector<float> none(5, std::numeric_limits<float>::quiet_NaN());
  const ValueRange n = value_range(blocks_of(none, 2), RangeMode::Percentiles);
  EXPECT_TRUE(n.widened);
  EXPECT_EQ(n.finite, 0);
  EXPECT_EQ(n.skipped, 5);
  EXPECT_EQ(n.range.low, 0.0);
  EXPECT_EQ(n.range.high, 1.0);
  // Nominal reads nothing.
  bool read = false;
  const ValueRange nominal = value_range([&read](const std::function<void(const float*, std::size_t)>&) { read = true; },
                                         RangeMode::Nominal);
  EXPECT_FALSE(read);
  EXPECT_EQ(nominal.range.low, 0.0);
  EXPECT_EQ(nominal.range.high, 1.0);
}

// A slot's values as the numbers hold them: four float planes in 8-bit levels.
std::shared_ptr<const SlotValues> slot_values(int width, int height, std::shared_ptr<std::vector<float>> planes) {
  auto values = std::make_shared<SlotValues>();
  values->width = width;
  values->height = height;
  values->operand = DifferenceOperand{planes->data(), OperandType::F32, sizeof(float) * static_cast<std::size_t>(width),
                                      sizeof(float), sizeof(float) * static_cast<std::size_t>(width) * height};
  values->owner = planes;
  return values;
}

TEST(DisplayRangeWorker, WorksOutTheRangeOfBothSlotsInDisplayUnitsOffTheFrame) {
  const int w = 9, h = 7;
  auto a = std::make_shared<std::vector<float>>(static_cast<std::size_t>(w) * h * 4, 100.0f);
  auto b = std::make_shared<std::vector<float>>(static_cast<std::size_t>(w) * h * 4, 100.0f);
  (*a)[5] = -51.0f;          // r of A: the least
  (*b)[w * h + 8] = 510.0f;  // g of B: the largest
  (*a)[3 * w * h] = 9999.0f; // alpha: not among rgb's values
  ComparisonNumbers numbers;
  numbers.key.a.method = 0;
  numbers.key.b.method = kOriginalPicture;
  numbers.values_a = slot_values(w, h, a);
  numbers.values_b = slot_values(w, h, b);
  DisplayRangeWorker worker;
  DisplayTransform t;
  t.range = RangeMode::MinMax;
  worker.follow(std::nullopt, t);  // no numbers yet: nothing to work out, and said
  EXPECT_FALSE(worker.pending());
  EXPECT_EQ(worker.shown().low, 0.0);
  EXPECT_NE(worker.note().find("until the numbers are in"), std::string::npos);
  worker.follow(numbers, t);
  worker.wait_idle();  // the event, not a time: the worker has stored its range
  EXPECT_FALSE(worker.pending());
  EXPECT_FLOAT_EQ(worker.shown().low, -51.0f / 255.0f);  // ranked as floats
  EXPECT_FLOAT_EQ(worker.shown().high, 510.0f / 255.0f);
  EXPECT_EQ(worker.note(), "[-0.2, 2]");
  // The same slots again (the numbers with the exact Gaussian added, say): nothing to work out.
  numbers.key.with_exact = true;
  worker.follow(numbers, t);
  EXPECT_FALSE(worker.pending());
  // The nominal range is no work at all.
  t.range = RangeMode::Nominal;
  worker.follow(numbers, t);
  EXPECT_FALSE(worker.pending());
  EXPECT_EQ(worker.shown().high, 1.0);
}

}  // namespace
}  // namespace gausslab
