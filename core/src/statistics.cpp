#include "gausslab/core/statistics.hpp"

#include <algorithm>

namespace gausslab {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  if (values.size() % 2 == 1) return values[mid];
  // The lower middle value is the largest of the half that nth_element put before `mid`.
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + values[mid]);
}

}  // namespace gausslab
