#include "comparison/unrounded_view.hpp"

#include "comparison/comparison.hpp"

namespace gausslab {

void UnroundedView::follow(const Comparison& comparison) {
  shown_ = slots_shown_ = uploading_ = false;
  if (comparison.settings().applied().pool != PoolMode::None) return;
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  if (!numbers || !numbers->difference || !numbers->values_a) return;
  const int width = numbers->values_a->width, height = numbers->values_a->height;
  const std::shared_ptr<const std::vector<float>>* sources[3] = {&numbers->difference, &numbers->shown_a,
                                                                 &numbers->shown_b};
  FloatTexture* textures[3] = {&difference_, &slots_[0], &slots_[1]};
  bool banded = false;  // one band a frame in all
  for (int i = 0; i < 3; ++i) {
    if (!*sources[i]) {
      if (textures[i]->source()) textures[i]->release();
      continue;
    }
    if (textures[i]->source() != *sources[i]) textures[i]->start(*sources[i], width, height);
    if (!textures[i]->complete() && !banded) {
      textures[i]->upload_next();
      banded = true;
    }
  }
  for (int i = 0; i < 3; ++i) uploading_ = uploading_ || (*sources[i] && !textures[i]->complete());
  shown_ = difference_.complete();
  slots_shown_ = numbers->shown_a && slots_[0].complete() && slots_[1].complete();
}

}  // namespace gausslab
