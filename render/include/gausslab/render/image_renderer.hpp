#pragma once
// Draws the result images with our own shader (shaders/image_view.*): zoom, pan, nearest or linear
// sampling, and the comparison views A, B, split A|B and the difference (difference_view.hpp).
#include <memory>

#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/display_transform.hpp"

#include "gausslab/render/view_transform.hpp"

namespace gausslab {

enum class CompareMode : int { A, B, Split, Difference, Count };
// How the picture is sampled: Auto (the default) is nearest from 100 % zoom up, where each picture
// pixel becomes a sharp square as in tev and HDRView, and linear below, where nearest would alias.
enum class Sampling : int { Nearest, Linear, Auto, Count };
// The filter that draws at `zoom` (screen pixels per picture pixel): Auto resolved, the others kept.
Sampling sampling_at(Sampling chosen, double zoom);

// The pixel grid over the picture when zoomed far in, and the values drawn in its cells (panels/):
// from these zooms up (screen pixels per picture pixel).
inline constexpr double kPixelGridZoom = 8.0;
inline constexpr double kPixelValuesZoom = 32.0;

const char* to_string(CompareMode mode);  // "a", "b", "split", "diff"
const char* to_string(Sampling sampling);  // "nearest", "linear", "auto"

struct ImageDrawParams {
  unsigned texture_a = 0;  // RGBA8 textures of image_width × image_height
  unsigned texture_b = 0;  // used by B, Split and Difference
  int image_width = 0, image_height = 0;
  ViewTransform view;
  CompareMode mode = CompareMode::A;
  double split_x = 0;  // Split: screen x of the divider (pixels from the viewport's left edge)
  double gain = 1;     // Difference: A - B is multiplied by this
  bool signed_difference = false;  // Difference: signed A - B instead of |A - B|
  bool false_colour = false;       // Difference: through the colour map
  // Difference: an RGBA32F texture (float_texture.hpp) of A - B in 8-bit levels, unrounded, drawn
  // instead of texture_a - texture_b (0: the 8-bit textures' difference, in whole levels);
  // difference_swapped: it holds texture_b - texture_a (blink), drawn negated.
  unsigned difference_texture = 0;
  bool difference_swapped = false;
  // A, B, split: RGBA32F textures of the slots' values in 8-bit levels, unrounded (a float
  // picture's, beyond [0, 1] too), drawn instead of texture_a and texture_b when both are set.
  unsigned float_a = 0, float_b = 0;
  // A texture holding a 2x2-pooled result covers the picture's pooled extent (2 * floor(side / 2)
  // pixels a side): shown at the same place on screen as the unpooled result.
  bool pooled_a = false, pooled_b = false;
  Sampling sampling = Sampling::Linear;  // Auto: resolved by sampling_at(view.zoom)
  // A line between picture pixels, one screen pixel wide, from kPixelGridZoom up (false: never).
  bool pixel_grid = true;
  DisplayTransform display;  // A, B, split (display_transform.hpp)
  // The values display.range resolved to (display units): what the shader maps to [0, 1]. The
  // nominal [0, 1] until the viewer has worked the picture's out (display_range.hpp).
  DisplayRange display_range;
  // The viewport in framebuffer pixels; y counts from the framebuffer's bottom edge as in glViewport.
  int viewport_x = 0, viewport_y = 0, viewport_width = 0, viewport_height = 0;
};

class ImageRenderer {
 public:
  // Compiles the embedded shader (needs a current GL context); throws GlError with the log.
  ImageRenderer();
  ~ImageRenderer();
  ImageRenderer(const ImageRenderer&) = delete;
  ImageRenderer& operator=(const ImageRenderer&) = delete;

  // Draws into the bound framebuffer; the background colour fills what the image does not cover.
  void draw(const ImageDrawParams& params);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gausslab
