#pragma once
// What the panels and keys edit: the filter (methods, parameters, image size, processing mode) and
// the view (zoom, pan, comparison, sampling). Plain values; the viewer compares old and new copies
// to find out what changed.
#include "gausslab/core/filter_params.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/view_transform.hpp"

namespace gausslab {

inline constexpr int kOriginalPicture = -1;  // method_b: show the unblurred picture as B

struct FilterState {
  int method_a = 0;                  // index into method_registry()
  int method_b = kOriginalPicture;   // index into method_registry(), or kOriginalPicture
  FilterParams params;
  bool original_size = true;         // false: resample to width × height
  int width = 0, height = 0;
  bool continuous = false;           // run every frame (true) or only when something changed

  friend bool operator==(const FilterState& x, const FilterState& y) {
    return x.method_a == y.method_a && x.method_b == y.method_b && x.params == y.params &&
           x.original_size == y.original_size && x.width == y.width && x.height == y.height &&
           x.continuous == y.continuous;
  }
  friend bool operator!=(const FilterState& x, const FilterState& y) { return !(x == y); }
};

struct ViewState {
  ViewTransform transform;
  bool fit = true;  // keep fitting the image to the window (until the user zooms or pans)
  CompareMode mode = CompareMode::A;
  Sampling sampling = Sampling::Linear;
  double split_fraction = 0.5;  // divider position across the view, 0..1
  double gain = 8.0;            // difference view amplification
};

}  // namespace gausslab
