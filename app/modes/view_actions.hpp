#pragma once
// The actions on the view that every mode has alike: A, B, split, difference (and the next of
// them), the difference's gain (doubled or halved within the mode's range), nearest or linear
// sampling (auto, nearest, linear), the zoom keys' steps, fit and 1:1.
#include "actions/actions.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

struct GainRange {
  double low, high;
};

// Does `action` to `view` and returns true when it is one of them. image: the picture's size, area:
// the picture area's (1:1).
bool perform_view_action(ActionId action, ViewState& view, GainRange gain, int image_width, int image_height,
                         int area_width, int area_height);

}  // namespace gausslab
