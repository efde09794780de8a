#include "gausslab/render/display_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace gausslab {

namespace {

// Order-preserving: a < b (finite floats) exactly when key(a) < key(b).
std::uint32_t key(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

float value_of(std::uint32_t k) {
  const std::uint32_t bits = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

constexpr std::size_t kBins = 1u << 16;

// The bin holding the value of rank `rank` (0-based), and that rank within the bin.
std::pair<std::uint32_t, long long> bin_of(const std::vector<long long>& counts, long long rank) {
  long long below = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (rank < below + counts[b]) return {static_cast<std::uint32_t>(b), rank - below};
    below += counts[b];
  }
  return {static_cast<std::uint32_t>(counts.size() - 1), 0};  // not reached for rank < total
}

ValueRange finish(double low, double high, long long finite, long long skipped) {
  ValueRange out;
  out.finite = finite;
  out.skipped = skipped;
  if (finite == 0) {
    out.widened = true;  // nothing to show a range of: the nominal one
    return out;
  }
  if (!(high > low)) {
    const double centre = 0.5 * (low + high);
    low = centre - kConstantHalfWidth;
    high = centre + kConstantHalfWidth;
    out.widened = true;
  }
  out.range = DisplayRange{low, high};
  return out;
}

}  // namespace

ValueRange value_range(const ValueBlocks& blocks, RangeMode mode, double low_percentile, double high_percentile) {
  if (mode == RangeMode::Nominal) return ValueRange{};
  long long finite = 0, skipped = 0;
  float least = std::numeric_limits<float>::infinity(), largest = -std::numeric_limits<float>::infinity();
  const bool ranks = mode == RangeMode::Percentiles;
  std::vector<long long> top(ranks ? kBins : 0, 0);
  blocks([&](const float* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const float v = values[i];
      if (!std::isfinite(v)) {
        ++skipped;
        continue;
      }
      ++finite;
      least = std::min(least, v);
      largest = std::max(largest, v);
      if (ranks) ++top[key(v) >> 16];
    }
  });
  if (!ranks || finite == 0) return finish(least, largest, finite, skipped);

  // The order statistics around each percentile's position, then their exact values from the low
  // 16 bits of the values in their top bins.
  const double p[2] = {std::clamp(low_percentile, 0.0, 100.0), std::clamp(high_percentile, 0.0, 100.0)};
  double position[2];
  long long wanted[4];
  for (int i = 0; i < 2; ++i) {
    position[i] = p[i] / 100.0 * static_cast<double>(finite - 1);
    wanted[2 * i] = std::min(static_cast<long long>(std::floor(position[i])), finite - 1);
    wanted[2 * i + 1] = std::min(wanted[2 * i] + 1, finite - 1);
  }
  std::map<std::uint32_t, std::vector<long long>> low_counts;  // per top bin sought
  std::pair<std::uint32_t, long long> where[4];
  for (int i = 0; i < 4; ++i) {
    where[i] = bin_of(top, wanted[i]);
    low_counts.emplace(where[i].first, std::vector<long long>(kBins, 0));
  }
  blocks([&](const float* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const float v = values[i];
      if (!std::isfinite(v)) continue;
      const std::uint32_t k = key(v);
      if (const auto it = low_counts.find(k >> 16); it != low_counts.end()) ++it->second[k & 0xffffu];
    }
  });
  double order[4];
  for (int i = 0; i < 4; ++i) {
    const auto [bin, rank] = where[i];
    const std::uint32_t low_bits = bin_of(low_counts.at(bin), rank).first;
    order[i] = static_cast<double>(value_of((bin << 16) | low_bits));
  }
  double bound[2];
  for (int i = 0; i < 2; ++i) {
    const double fraction = position[i] - std::floor(position[i]);
    bound[i] = order[2 * i] + fraction * (order[2 * i + 1] - order[2 * i]);
  }
  return finish(bound[0], bound[1], finite, skipped);
}

}  // namespace gausslab
