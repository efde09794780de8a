#pragma once
// The colour of the path badge, a solid square at the top-left of the timing overlay. The UI tests
// look for it in the view screenshot (tests/ui/CMakeLists.txt names the cpu colour) to prove that
// the overlay was drawn.
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

inline constexpr int kPathBadgeSide = 16;

constexpr Rgba8 path_badge_colour(OutputPath path) {
  switch (path) {
    case OutputPath::Interop: return {46, 160, 67, 255};   // green: no host copies
    case OutputPath::Staging: return {219, 133, 28, 255};  // orange: through host memory
    default: return {45, 108, 223, 255};                   // blue: CPU methods only
  }
}

}  // namespace gausslab
