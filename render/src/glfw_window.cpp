// The interactive surface: GLFW for the window and input, glad for OpenGL.
#include "gausslab/render/glfw_window.hpp"

#include "gl_util.hpp"  // glad first: GLFW must not pull in another GL header
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "gausslab/render/gl_error.hpp"

namespace gausslab {

namespace {

std::string last_glfw_error;

void on_glfw_error(int code, const char* description) {
  last_glfw_error = std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

const char* platform_name() {
#if GLFW_VERSION_MAJOR > 3 || (GLFW_VERSION_MAJOR == 3 && GLFW_VERSION_MINOR >= 4)
  switch (glfwGetPlatform()) {
    case GLFW_PLATFORM_WAYLAND: return "Wayland";
    case GLFW_PLATFORM_X11: return "X11";
    default: return "native";
  }
#else
  return glfwGetVersionString();
#endif
}

}  // namespace

GlfwWindow::GlfwWindow(const std::string& title, int width, int height, bool vsync) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit())
    throw GlError("could not open a window: " + last_glfw_error +
                  ". On a machine without a display, run it offscreen for a number of frames (OpenGL through EGL), e.g. "
                  "gausslab --offscreen --frames 300 (with the same IMAGE and options; --screenshot-view FILE.png saves what it drew)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string reason = last_glfw_error;
    glfwTerminate();
    throw GlError("could not open a " + std::to_string(width) + "x" + std::to_string(height) +
                  " window with OpenGL 3.3 core: " + reason +
                  ". Update the graphics driver, or run it offscreen (OpenGL through EGL), e.g. "
                  "gausslab --offscreen --frames 300 (with the same IMAGE and options; --screenshot-view FILE.png saves what it drew)");
  }
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw GlError("could not load the OpenGL functions for the window's context");
  }
  set_vsync(vsync);
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, on_drop);
  glfwSetKeyCallback(window_, on_key);
  // Counted for the idle frame loop. Dear ImGui's backend, installed after these, calls them on.
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned) { count_event(w); });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { count_event(w); });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { count_event(w); });
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { count_event(w); });
  glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { count_event(w); });
  glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { count_event(w); });
  glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) { count_event(w); });
  glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { count_event(w); });
  glfwSetWindowIconifyCallback(window_, [](GLFWwindow* w, int) { count_event(w); });
  glfwSetWindowContentScaleCallback(window_, [](GLFWwindow* w, float, float) { count_event(w); });
  try {
    query_info(std::string("GLFW window (") + platform_name() + ")");
  } catch (...) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw;
  }
}

GlfwWindow::~GlfwWindow() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

int GlfwWindow::width() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return w;
}

int GlfwWindow::height() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return h;
}

void GlfwWindow::bind_framebuffer() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, width(), height());
}

void GlfwWindow::present() { glfwSwapBuffers(window_); }

void GlfwWindow::resize(int width, int height) { glfwSetWindowSize(window_, width, height); }

bool GlfwWindow::should_close() const { return glfwWindowShouldClose(window_); }

void GlfwWindow::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

bool GlfwWindow::iconified() const { return glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0; }

void GlfwWindow::poll_events(double timeout_s) {
  if (timeout_s > 0)
    glfwWaitEventsTimeout(timeout_s);
  else
    glfwPollEvents();
}

std::vector<std::string> GlfwWindow::take_dropped_paths() {
  std::vector<std::string> paths;
  paths.swap(dropped_);
  return paths;
}

std::vector<KeyEvent> GlfwWindow::take_key_events() {
  std::vector<KeyEvent> events;
  events.swap(keys_);
  return events;
}

void GlfwWindow::set_vsync(bool on) {
  glfwSwapInterval(on ? 1 : 0);
  vsync_ = on;
}

double GlfwWindow::now_s() { return glfwGetTime(); }

void GlfwWindow::on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
  if (!self) return;
  ++self->events_seen_;
  if (key == GLFW_KEY_UNKNOWN) return;
  const KeyEvent::Kind kind = action == GLFW_PRESS    ? KeyEvent::Kind::Press
                              : action == GLFW_REPEAT ? KeyEvent::Kind::Repeat
                                                      : KeyEvent::Kind::Release;
  self->keys_.push_back(KeyEvent{key, mods, kind, glfwGetTime()});
}

void GlfwWindow::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

float GlfwWindow::content_scale() const {
  float x = 1.0f, y = 1.0f;
  glfwGetWindowContentScale(window_, &x, &y);
  return x > 0.0f && x < 16.0f ? x : 1.0f;  // a display that reports nonsense gets the default
}

void GlfwWindow::count_event(GLFWwindow* window) {
  if (auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window))) ++self->events_seen_;
}

void GlfwWindow::on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
  if (!self) return;
  ++self->events_seen_;
  for (int i = 0; i < count; ++i)
    if (paths[i]) self->dropped_.emplace_back(paths[i]);
}

}  // namespace gausslab
