#pragma once
// The unrounded values on the screen. The numbers worker (comparison_numbers.hpp) keeps each slot's
// values before rounding and A - B from them (ComparisonNumbers::difference); here that difference
// goes into a float texture a band per frame (render/float_texture.hpp), and the difference view
// draws it instead of the 8-bit results' difference, so that an error below one 8-bit level (a
// method against the exact Gaussian: 1e-4 levels) shows at a gain that makes it visible and is the
// value the inspector prints and `J` jumps to. Until the texture is complete, for numbers that are
// not the slots' current ones, and while pooled (the numbers measure the blur before pooling), the
// view shows the 8-bit results' difference as before. A picture of more than 8 bits gets the slots'
// values in float textures too, which the A, B and split views then draw (its values beyond the
// 8-bit reduction's [0, 1] among them, for the exposure). One band a frame in all: the difference
// first, then A, then B.
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
  // A picture of more than 8 bits: the RGBA32F texture of slot i's values in levels for the A, B
  // and split views once both slots' are complete, or 0 (the slots' 8-bit pictures then).
  unsigned slot_texture(int i) const { return slots_shown_ ? slots_[i].id() : 0; }
  // Some current values are still on their way into their texture (a band a frame): an automated
  // run's screenshot waits for them.
  // Only the current numbers' textures count (follow() leaves the others alone).
  bool uploading() const { return uploading_; }
  // The values the texture holds (what the test reads back against).
  const std::shared_ptr<const std::vector<float>>& difference() const { return difference_.source(); }

 private:
  FloatTexture difference_;
  FloatTexture slots_[2];
  bool shown_ = false, slots_shown_ = false, uploading_ = false;
};

}  // namespace gausslab
