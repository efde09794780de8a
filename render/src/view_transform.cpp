#include "gausslab/render/view_transform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gausslab {

namespace {
double clamp_zoom(double zoom) { return std::clamp(zoom, kMinZoom, kMaxZoom); }
}  // namespace

ViewTransform fit_view(int image_width, int image_height, int viewport_width, int viewport_height) {
  ViewTransform view;
  if (image_width <= 0 || image_height <= 0 || viewport_width <= 0 || viewport_height <= 0) return view;
  view.zoom = clamp_zoom(std::min(static_cast<double>(viewport_width) / image_width,
                                  static_cast<double>(viewport_height) / image_height));
  view.center = {0.5 * image_width, 0.5 * image_height};
  return view;
}

ViewTransform one_to_one_view(int image_width, int image_height, int viewport_width, int viewport_height) {
  // With zoom 1, screen pixel centre i + 0.5 maps to image i + 0.5 + (center - viewport / 2): an
  // integer offset puts every screen pixel centre on an image pixel centre.
  ViewTransform view;
  view.zoom = 1.0;
  view.center.x = std::round(0.5 * image_width - 0.5 * viewport_width) + 0.5 * viewport_width;
  view.center.y = std::round(0.5 * image_height - 0.5 * viewport_height) + 0.5 * viewport_height;
  return view;
}

Vec2 screen_to_image(const ViewTransform& view, Vec2 screen, int viewport_width, int viewport_height) {
  return {(screen.x - 0.5 * viewport_width) / view.zoom + view.center.x,
          (screen.y - 0.5 * viewport_height) / view.zoom + view.center.y};
}

Vec2 image_to_screen(const ViewTransform& view, Vec2 image, int viewport_width, int viewport_height) {
  return {(image.x - view.center.x) * view.zoom + 0.5 * viewport_width,
          (image.y - view.center.y) * view.zoom + 0.5 * viewport_height};
}

ViewTransform zoom_around(const ViewTransform& view, double factor, Vec2 cursor, int viewport_width,
                          int viewport_height) {
  if (!(factor > 0) || !std::isfinite(factor)) return view;
  const Vec2 anchor = screen_to_image(view, cursor, viewport_width, viewport_height);
  ViewTransform zoomed;
  zoomed.zoom = clamp_zoom(view.zoom * factor);
  // Solve image_to_screen(zoomed, anchor) == cursor for the new centre.
  zoomed.center.x = anchor.x - (cursor.x - 0.5 * viewport_width) / zoomed.zoom;
  zoomed.center.y = anchor.y - (cursor.y - 0.5 * viewport_height) / zoomed.zoom;
  return zoomed;
}

ViewTransform pan_by(const ViewTransform& view, Vec2 delta) {
  ViewTransform moved = view;
  moved.center.x -= delta.x / view.zoom;
  moved.center.y -= delta.y / view.zoom;
  return moved;
}

double wheel_zoom_factor(double wheel_notches) { return std::pow(1.2, wheel_notches); }

double zoom_step(double zoom, int direction) {
  if (!(zoom > 0) || !std::isfinite(zoom) || direction == 0) return clamp_zoom(zoom > 0 ? zoom : 1.0);
  // k = 2 log2(zoom); a zoom within 1e-6 of a step counts as on it (a step reached by the keys is
  // exact, but one of fit or the wheel may sit a rounding away).
  const double k = 2.0 * std::log2(zoom);
  const double nearest = std::round(k);
  const bool on_step = std::abs(k - nearest) < 1e-6;
  const double next = direction > 0 ? (on_step ? nearest + 1 : std::ceil(k)) : (on_step ? nearest - 1 : std::floor(k));
  return clamp_zoom(std::exp2(next / 2.0));
}

std::string zoom_percent_text(double zoom) {
  const double percent = zoom * 100.0;
  char text[32];
  // Three significant digits, whole numbers from 100 % up.
  if (percent >= 99.95)
    std::snprintf(text, sizeof text, "%.0f %%", percent);
  else if (percent >= 9.995)
    std::snprintf(text, sizeof text, "%.1f %%", percent);
  else
    std::snprintf(text, sizeof text, "%.3g %%", percent);
  return text;
}

}  // namespace gausslab
