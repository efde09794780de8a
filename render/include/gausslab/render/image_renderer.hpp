#pragma once
// Draws the result images with our own shader (shaders/image_view.*): zoom, pan, nearest or linear
// sampling, and the comparison views A, B, split A|B and the difference (difference_view.hpp).
#include <memory>

#include "gausslab/render/difference_view.hpp"

#include "gausslab/render/view_transform.hpp"

namespace gausslab {

enum class CompareMode : int { A, B, Split, Difference, Count };
enum class Sampling : int { Nearest, Linear, Count };

const char* to_string(CompareMode mode);  // "a", "b", "split", "diff"
const char* to_string(Sampling sampling);  // "nearest", "linear"

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
  // A texture holding a 2x2-pooled result covers the picture's pooled extent (2 * floor(side / 2)
  // pixels a side): shown at the same place on screen as the unpooled result.
  bool pooled_a = false, pooled_b = false;
  Sampling sampling = Sampling::Linear;
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
