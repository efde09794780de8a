#pragma once
// The range a picture's values are shown in (DisplayTransform::range, display_transform.hpp): the
// min and max, or two percentiles, of the finite values; NaN and infinities are skipped and
// counted. Percentiles as NumPy's default (linear between the order statistics at p/100 * (n - 1)),
// exact, without sorting or copying the values: a radix select over the floats' order-preserving
// bit patterns, the top 16 bits in one pass and the low 16 bits of the ranks sought in a second, so
// that two 8192 x 8192 slots (400 M values) need 2.5 MiB of counts, not a copy. Free of GL; the
// viewer runs it on a worker (app/comparison/display_range_worker.hpp).
#include <cstddef>
#include <functional>

#include "gausslab/render/display_transform.hpp"

namespace gausslab {

struct ValueRange {
  DisplayRange range;         // high > low always
  long long finite = 0;       // values ranked
  long long skipped = 0;      // NaN and infinities, left out
  // The values do not spread (one value, all equal, or no finite value at all): the range is the
  // value +- kConstantHalfWidth (the nominal [0, 1] when there is none), never a zero width.
  bool widened = false;
};

// A constant picture is shown at mid grey: [c - 0.5, c + 0.5] in the values' units.
inline constexpr double kConstantHalfWidth = 0.5;

// Calls visit(values, count) for every block of the values, in any order; called once per pass.
using ValueBlocks = std::function<void(const std::function<void(const float*, std::size_t)>& visit)>;

// mode MinMax: the least and the largest finite value; Percentiles: low_percentile and
// high_percentile (0 <= low < high <= 100); Nominal: [0, 1] without reading a value.
ValueRange value_range(const ValueBlocks& blocks, RangeMode mode, double low_percentile = 0.1,
                       double high_percentile = 99.9);

}  // namespace gausslab
