#pragma once
// Where the viewer draws: a GLFW window or an offscreen framebuffer of an EGL context. Both hold an
// OpenGL 3.3 core context, current on the thread that created them, with glad loaded.
#include <string>

#include "gausslab/core/image.hpp"

namespace gausslab {

struct GlInfo {
  std::string renderer;  // GL_RENDERER, e.g. "NVIDIA H100 80GB HBM3/PCIe/SSE2" or "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor;    // GL_VENDOR
  std::string version;   // GL_VERSION
  std::string platform;  // how the context was made, e.g. "GLFW window (X11)", "EGL device platform, ..."
};

class GlSurface {
 public:
  virtual ~GlSurface() = default;
  GlSurface(const GlSurface&) = delete;
  GlSurface& operator=(const GlSurface&) = delete;

  // Size of the framebuffer in pixels (a window's may change between frames).
  virtual int width() const = 0;
  virtual int height() const = 0;
  // Binds the framebuffer to draw into (the window's or the offscreen one) and sets the viewport.
  virtual void bind_framebuffer() = 0;
  // Changes the size: a window asks the window system (the framebuffer follows a frame or two
  // later), an offscreen surface makes its framebuffer anew. Throws GlError when that fails.
  virtual void resize(int width, int height) = 0;
  // Fills the bound framebuffer with the window's background colour (what no panel or picture
  // covers; ImGui's translucent panels must not show the previous frame through them).
  void clear();
  // The same, but for the rectangle (top-left origin, framebuffer pixels) that is drawn over with
  // opaque pixels anyway: on the H200 a clear costs as much as a draw of the pixels it touches
  // (0.15 ms at 1920 x 1080; docs/results/h200/interop-floor.txt).
  void clear_except(int x, int y, int width, int height);
  // Shows the frame (swaps a window's buffers; flushes an offscreen context).
  virtual void present() = 0;
  virtual bool offscreen() const = 0;

  const GlInfo& info() const { return info_; }

  // The pixels drawn this frame, top row first (call before present()). Synchronous: for screenshots.
  ImageRgba8 capture();

 protected:
  GlSurface() = default;
  // Reads GL_RENDERER etc. once glad is loaded; throws GlError below OpenGL 3.3.
  void query_info(const std::string& platform);
  // The framebuffer object to read for capture() (0: the window's back buffer).
  virtual unsigned read_framebuffer() const = 0;

  GlInfo info_;
};

}  // namespace gausslab
