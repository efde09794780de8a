#pragma once
// An OpenGL 3.3 core context from EGL with no window system, drawing into a framebuffer object:
// how the viewer runs on a GPU server with no display (EGL device platform on the NVIDIA GPU, where
// CUDA interop works) and on CI (Mesa's EGL, llvmpipe).
#include <string>

#include "gausslab/render/gl_surface.hpp"

namespace gausslab {

class EglOffscreen final : public GlSurface {
 public:
  // Tries, in order: the EGL device platform (an NVIDIA device first, the one whose CUDA device is
  // `preferred_cuda_device` before others; then other devices), Mesa's surfaceless platform, and
  // the default display. Uses a surfaceless context where EGL_KHR_surfaceless_context is offered,
  // else a small pbuffer; draws into a width × height RGBA8 framebuffer object either way.
  // GAUSSLAB_EGL_PLATFORM=device|surfaceless|default tries that kind only.
  // Throws GlError listing what each attempt said when none gives an OpenGL 3.3 core context.
  EglOffscreen(int width, int height, int preferred_cuda_device);
  ~EglOffscreen() override;

  int width() const override { return width_; }
  int height() const override { return height_; }
  void bind_framebuffer() override;
  void present() override;
  void resize(int width, int height) override;
  bool offscreen() const override { return true; }

 protected:
  unsigned read_framebuffer() const override { return framebuffer_; }

 private:
  void create_framebuffer();

  int width_, height_;
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  void* surface_ = nullptr;  // EGLSurface (a pbuffer) or EGL_NO_SURFACE
  unsigned framebuffer_ = 0, colour_texture_ = 0;
};

}  // namespace gausslab
