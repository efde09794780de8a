#include "gausslab/render/gl_surface.hpp"

#include <algorithm>
#include <cstring>

#include "gausslab/render/gl_error.hpp"
#include "gl_util.hpp"

namespace gausslab {

namespace {
std::string gl_string(GLenum name) {
  const auto* text = reinterpret_cast<const char*>(glGetString(name));
  return text ? text : "(unknown)";
}
}  // namespace

void GlSurface::query_info(const std::string& platform) {
  info_.renderer = gl_string(GL_RENDERER);
  info_.vendor = gl_string(GL_VENDOR);
  info_.version = gl_string(GL_VERSION);
  info_.platform = platform;
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 33)
    throw GlError("OpenGL " + std::to_string(major) + "." + std::to_string(minor) + " (" + info_.renderer +
                  ") is too old: gausslab needs OpenGL 3.3 core; update the graphics driver");
}

ImageRgba8 GlSurface::capture() {
  const int w = width(), h = height();
  ImageRgba8 flipped(w, h);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, read_framebuffer());
  glReadBuffer(read_framebuffer() == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  gl_check("reading the rendered view back");
  // GL's rows go bottom-up; images go top-down.
  ImageRgba8 image(w, h);
  const std::size_t row_bytes = static_cast<std::size_t>(w) * sizeof(Rgba8);
  for (int y = 0; y < h; ++y) std::memcpy(&image.at(0, y), &flipped.at(0, h - 1 - y), row_bytes);
  // The window's alpha channel may hold anything; a screenshot is opaque.
  for (std::size_t i = 0; i < image.pixel_count(); ++i) image.data()[i].a = 255;
  return image;
}

void GlSurface::clear() {
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.10f, 0.10f, 0.11f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void GlSurface::clear_except(int x, int y, int w, int h) {
  const int full_w = width(), full_h = height();
  const int x0 = std::clamp(x, 0, full_w), x1 = std::clamp(x + std::max(w, 0), x0, full_w);
  const int y0 = std::clamp(y, 0, full_h), y1 = std::clamp(y + std::max(h, 0), y0, full_h);
  glClearColor(0.10f, 0.10f, 0.11f, 1.0f);
  glEnable(GL_SCISSOR_TEST);
  // The bands above and below the rectangle, then left and right of it (GL's rows count upwards).
  const int bands[4][4] = {{0, full_h - y0, full_w, y0},
                           {0, 0, full_w, full_h - y1},
                           {0, full_h - y1, x0, y1 - y0},
                           {x1, full_h - y1, full_w - x1, y1 - y0}};
  for (const auto& band : bands) {
    if (band[2] <= 0 || band[3] <= 0) continue;
    glScissor(band[0], band[1], band[2], band[3]);
    glClear(GL_COLOR_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);
}

}  // namespace gausslab
