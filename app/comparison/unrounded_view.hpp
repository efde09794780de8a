#pragma once
// The unrounded values on the screen. The numbers worker (comparison_numbers.hpp) keeps each slot's
// values before rounding and A - B from them (ComparisonNumbers::difference); here that difference
// goes into a float texture a band per frame (render/float_texture.hpp), and the difference view
// draws it instead of the 8-bit results' difference, so that an error below one 8-bit level (a
// method against the exact Gaussian: 1e-4 levels) shows at a gain that makes it visible and is the
// value the inspector prints and `J` jumps to. Until the texture is complete, for numbers that are
// not the slots' current ones, and while pooled (the numbers measure the blur before pooling), the
// view shows the 8-bit results' difference as before.
#include <memory>
#include <vector>

#include "gausslab/render/float_texture.hpp"

namespace gausslab {

class Comparison;

class UnroundedView {
 public:
  // Follows the slots' current numbers; uploads a band when they changed (needs the GL context).
  void follow(const Comparison& comparison);
  // The RGBA32F texture of A - B in levels for the difference view, or 0 (the 8-bit results' then).
  unsigned difference_texture() const { return shown_ ? difference_.id() : 0; }
  // The values the texture holds (what the test reads back against).
  const std::shared_ptr<const std::vector<float>>& difference() const { return difference_.source(); }

 private:
  FloatTexture difference_;
  bool shown_ = false;
};

}  // namespace gausslab
