#pragma once
// What the panels and keys edit: the filter (slots, parameters, image size, processing mode) and
// the view (zoom, pan, comparison, layout). Plain values; the comparison compares old and new
// copies to find out what changed.
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/view_transform.hpp"

namespace gausslab {

// What a slot holds besides a method (a registry index >= 0).
inline constexpr int kOriginalPicture = -1;  // the unblurred picture
inline constexpr int kExactGaussian = -2;    // the float64 reference, rounded to 8 bits for display
// An image file in slot A or B (the reference slot, comparison/reference_file.hpp): one value per
// slot, so that a choice names its file wherever it is shown.
inline constexpr int kReferenceFileA = -3;
inline constexpr int kReferenceFileB = -4;
inline constexpr int reference_file_choice(int slot) { return slot == 0 ? kReferenceFileA : kReferenceFileB; }
inline constexpr bool is_reference_file(int choice) { return choice == kReferenceFileA || choice == kReferenceFileB; }
inline constexpr int reference_file_slot(int choice) { return choice == kReferenceFileA ? 0 : 1; }

struct FilterState {
  int method_a = 0;                  // registry index, kOriginalPicture, kExactGaussian or kReferenceFileA/B
  int method_b = kOriginalPicture;
  FilterParams params;
  bool original_size = true;         // false: resample to width × height
  int width = 0, height = 0;
  bool continuous = false;           // run every frame (true) or only when something changed
  int repeat = 1;                    // runs of each method per processed frame (steadier timings)
  PoolMode pool = PoolMode::None;    // 2x2 pooling of the results after the blur (issue 13)

  friend bool operator==(const FilterState& x, const FilterState& y) {
    return x.method_a == y.method_a && x.method_b == y.method_b && x.params == y.params &&
           x.original_size == y.original_size && x.width == y.width && x.height == y.height &&
           x.continuous == y.continuous && x.repeat == y.repeat && x.pool == y.pool;
  }
  friend bool operator!=(const FilterState& x, const FilterState& y) { return !(x == y); }
};

// The difference view's gain: up to 2^24, so that a method's error against the exact Gaussian (1e-4
// levels, unrounded_view.hpp) can fill the scale.
inline constexpr double kMaxDifferenceGain = 16777216.0;

struct ViewState {
  ViewTransform transform;
  bool fit = true;  // keep fitting the image to the view (until the user zooms or pans)
  CompareMode mode = CompareMode::A;
  Sampling sampling = Sampling::Auto;  // nearest from 100 % up, linear below (N cycles it)
  bool pixel_grid = true;              // the grid (and the values) between pixels when zoomed far in
  double split_fraction = 0.5;  // divider position across the picture area, 0..1
  double gain = 8.0;            // difference view amplification
  DisplayTransform display;     // the A, B and split views' exposure and channel
  bool signed_difference = false;
  bool false_colour = true;
  bool blink_swapped = false;   // A and B exchanged in place (the blink key)
  bool inspector = true;
  bool panels_hidden = false;   // menu, side panel and overlay
  bool overlay_hidden = false;
  bool overlay_floating = false;  // the overlay in a window of its own (else docked in the side panel)
  float panel_width = 400.0f;   // the side panel, in ImGui units
  float panel_scale = 1.0f;     // the ui_scale() panel_width is for (a new content scale rescales it)
};

// Whether the view shows slot `slot` (0: A, 1: B): A and B alone show one (the blink swaps them), the
// split and the difference both.
inline bool shows_slot(const ViewState& view, int slot) {
  switch (view.mode) {
    case CompareMode::A: return slot == (view.blink_swapped ? 1 : 0);
    case CompareMode::B: return slot == (view.blink_swapped ? 0 : 1);
    default: return true;
  }
}

// The rectangle the picture is drawn in, in framebuffer pixels from the window's top-left corner.
struct PictureArea {
  int x = 0, y = 0, width = 0, height = 0;
};

}  // namespace gausslab
