#pragma once
// The maths of the image view, free of GL so that it is tested on the CPU: where an image pixel lands
// on the screen for a zoom and pan, zooming around the cursor, fit and 1:1 (the difference view's
// colours are in difference_view.hpp). shaders/image_view.frag uses exactly these conventions:
//   screen: framebuffer pixels from the top-left corner of the viewport; pixel i spans [i, i + 1);
//   image:  pixels from the top-left corner of the image; pixel j spans [j, j + 1);
//   image = (screen - viewport / 2) / zoom + center.
#include <cstdint>
#include <string>

namespace gausslab {

struct Vec2 {
  double x = 0, y = 0;
};

inline constexpr double kMinZoom = 1.0 / 64.0;
inline constexpr double kMaxZoom = 256.0;

struct ViewTransform {
  double zoom = 1.0;  // screen pixels per image pixel, in [kMinZoom, kMaxZoom]
  Vec2 center;        // the image point shown at the viewport's centre
};

// The whole image inside the viewport, centred, as large as it fits (any zoom the limits allow).
ViewTransform fit_view(int image_width, int image_height, int viewport_width, int viewport_height);

// One image pixel per screen pixel, centred, with image pixels aligned to screen pixels (so nearest
// and linear sampling both show the exact pixel values).
ViewTransform one_to_one_view(int image_width, int image_height, int viewport_width, int viewport_height);

Vec2 screen_to_image(const ViewTransform& view, Vec2 screen, int viewport_width, int viewport_height);
Vec2 image_to_screen(const ViewTransform& view, Vec2 image, int viewport_width, int viewport_height);

// Multiplies the zoom by `factor` (clamped to the limits) keeping the image point under `cursor` fixed.
ViewTransform zoom_around(const ViewTransform& view, double factor, Vec2 cursor, int viewport_width,
                          int viewport_height);

// Moves the picture by `delta` screen pixels (a drag).
ViewTransform pan_by(const ViewTransform& view, Vec2 delta);

// Zoom factor for one mouse-wheel notch (positive = towards the user = zoom in).
double wheel_zoom_factor(double wheel_notches);

// The zoom keys' ladder: 2^(k/2) (..., 50 %, 70.7 %, 100 %, 141 %, 200 %, ...), so that every other
// step is a power of two, where nearest sampling gives every picture pixel the same size on screen.
// The next step above `zoom` (direction > 0) or below it (< 0), within the limits; a zoom between
// steps (a fit, the wheel's) goes to the nearest step that way.
double zoom_step(double zoom, int direction);

// The zoom as the title and the status bar say it: "100 %", "141 %", "70.7 %", "6.25 %", "25600 %".
std::string zoom_percent_text(double zoom);

}  // namespace gausslab
