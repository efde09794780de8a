// border_index against SciPy's extension rules, also far beyond the image (radius >> side).
// Two checks: literal tables printed by SciPy, and an independent model that unfolds the line one
// reflection at a time (the way SciPy's NI_ExtendLine builds it), over every offset in a wide range.
// check_reference_vs_scipy.py compares the whole table with SciPy itself as well.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gausslab/core/border.hpp"

namespace gausslab {
namespace {

// Independent model: fold the index back one reflection (or period) at a time.
int unfolded_index(int i, int n, BorderMode mode) {
  switch (mode) {
    case BorderMode::Constant:
      return (i >= 0 && i < n) ? i : -1;
    case BorderMode::Nearest:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case BorderMode::Wrap:
      while (i < 0) i += n;
      while (i >= n) i -= n;
      return i;
    case BorderMode::Reflect:  // mirror about -1/2 and n - 1/2
      while (i < 0 || i >= n) i = i < 0 ? -1 - i : 2 * n - 1 - i;
      return i;
    case BorderMode::Mirror:  // mirror about 0 and n - 1; a single sample repeats
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
      return i;
    default:
      return -2;
  }
}

TEST(BorderIndex, MatchesTheUnfoldingModelFarBeyondTheImage) {
  for (const int n : {1, 2, 3, 7, 64, 101}) {
    const int reach = 6 * n + 2 * 800 + 5;  // sigma 200 at truncate 4 is radius 800
    for (BorderMode mode : kAllBorderModes)
      for (int i = -reach; i < n + reach; ++i)
        ASSERT_EQ(border_index(i, n, mode), unfolded_index(i, n, mode))
            << "border " << to_string(mode) << ", n " << n << ", index " << i;
  }
}

TEST(BorderIndex, InsideTheImageIsTheIdentity) {
  for (BorderMode mode : kAllBorderModes)
    for (int n : {1, 5})
      for (int i = 0; i < n; ++i) EXPECT_EQ(border_index(i, n, mode), i) << to_string(mode);
}

TEST(BorderIndex, VeryLargeOffsetsFollowThePeriod) {
  // Far out the extension repeats with period 2n (reflect), 2n - 2 (mirror) or n (wrap): an index a
  // million periods away maps like its counterpart near the image.
  for (int n : {1, 2, 3, 7}) {
    for (BorderMode mode : kAllBorderModes) {
      const int period = mode == BorderMode::Reflect ? 2 * n
                         : mode == BorderMode::Mirror ? (n == 1 ? 1 : 2 * n - 2)
                                                      : n;
      for (int near = -2 * n; near < 3 * n; ++near)
        for (int periods : {-1000000, 1000000}) {
          const int far = near + periods * period;
          const int expected = (mode == BorderMode::Constant || mode == BorderMode::Nearest)
                                   ? unfolded_index(far < 0 ? -1 : n, n, mode)
                                   : unfolded_index(near, n, mode);
          EXPECT_EQ(border_index(far, n, mode), expected)
              << "border " << to_string(mode) << ", n " << n << ", index " << far;
        }
    }
  }
}

// Produced by SciPy 1.10 (scipy.ndimage.correlate1d of [1..n] with shifted unit impulses, minus 1;
// -1 where mode 'constant' gives cval 0), for indices -7 .. n + 6.
struct ScipyRow {
  int n;
  BorderMode mode;
  std::vector<int> indices;
};

TEST(BorderIndex, EqualsScipyTables) {
  const std::vector<ScipyRow> rows = {
      {1, BorderMode::Reflect, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {1, BorderMode::Mirror, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {1, BorderMode::Nearest, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {1, BorderMode::Constant, {-1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1}},
      {1, BorderMode::Wrap, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {2, BorderMode::Reflect, {1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}},
      {2, BorderMode::Mirror, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}},
      {2, BorderMode::Nearest, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}},
      {2, BorderMode::Constant, {-1, -1, -1, -1, -1, -1, -1, 0, 1, -1, -1, -1, -1, -1, -1, -1}},
      {2, BorderMode::Wrap, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}},
      {3, BorderMode::Reflect, {0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2}},
      {3, BorderMode::Mirror, {1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1}},
      {3, BorderMode::Nearest, {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2}},
      {3, BorderMode::Constant, {-1, -1, -1, -1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1, -1, -1}},
      {3, BorderMode::Wrap, {2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}},
  };
  for (const ScipyRow& row : rows) {
    ASSERT_EQ(row.indices.size(), static_cast<std::size_t>(row.n + 14));
    for (int k = 0; k < static_cast<int>(row.indices.size()); ++k) {
      const int i = k - 7;
      EXPECT_EQ(border_index(i, row.n, row.mode), row.indices[k])
          << "border " << to_string(row.mode) << ", n " << row.n << ", index " << i;
    }
  }
}

TEST(BorderIndex, SevenSamplesEqualScipyPatterns) {
  // 'abcdefg' padded by 9 > n: numpy.pad's 'symmetric' and 'reflect' give these, which are SciPy's
  // 'reflect' and 'mirror'.
  const int n = 7;
  const std::vector<int> reflect = {5, 6, 6, 5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1, 0, 0, 1};
  const std::vector<int> mirror = {3, 4, 5, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3};
  for (int k = 0; k < 25; ++k) {
    const int i = k - 9;
    EXPECT_EQ(border_index(i, n, BorderMode::Reflect), reflect[k]) << "reflect, index " << i;
    EXPECT_EQ(border_index(i, n, BorderMode::Mirror), mirror[k]) << "mirror, index " << i;
    EXPECT_EQ(border_index(i, n, BorderMode::Wrap), ((i % n) + n) % n) << "wrap, index " << i;
  }
}

TEST(BorderMode, NamesRoundTripAndUnknownNamesAreRejected) {
  for (BorderMode mode : kAllBorderModes) {
    const auto parsed = border_mode_from_string(to_string(mode));
    ASSERT_TRUE(parsed.has_value()) << to_string(mode);
    EXPECT_EQ(*parsed, mode);
    EXPECT_STRNE(describe(mode), "");
  }
  EXPECT_FALSE(border_mode_from_string("Reflect").has_value());
  EXPECT_FALSE(border_mode_from_string("replicate").has_value());
  EXPECT_FALSE(border_mode_from_string("").has_value());
  EXPECT_EQ(border_mode_list(), "reflect, mirror, nearest, constant, wrap");
}

}  // namespace
}  // namespace gausslab
