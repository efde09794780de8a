#include "comparison/unrounded_view.hpp"

#include "comparison/comparison.hpp"

namespace gausslab {

void UnroundedView::follow(const Comparison& comparison) {
  shown_ = false;
  if (comparison.settings().applied().pool != PoolMode::None) return;
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  if (!numbers || !numbers->difference || !numbers->values_a) return;
  if (difference_.source() != numbers->difference)
    difference_.start(numbers->difference, numbers->values_a->width, numbers->values_a->height);
  shown_ = difference_.upload_next();
}

}  // namespace gausslab
