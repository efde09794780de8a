#pragma once
// A GLFW window with an OpenGL 3.3 core context: the interactive viewer's surface.
#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/render/gl_surface.hpp"

struct GLFWwindow;

namespace gausslab {

// A key pressed, repeated or released, as GLFW reported it (GLFW_KEY_* codes, GLFW_MOD_* bits).
// Queued between frames, so a press and release inside one frame are both seen.
struct KeyEvent {
  int key = 0;
  int mods = 0;
  enum class Kind { Press, Repeat, Release } kind = Kind::Press;
  double time_s = 0;  // glfwGetTime() when it arrived
};

class GlfwWindow final : public GlSurface {
 public:
  // Opens the window (width × height screen units) and loads OpenGL. vsync: swap at the display's
  // rate (interactive use) or as fast as possible (timed runs). Throws GlError with what to do
  // when there is no display or no OpenGL 3.3.
  GlfwWindow(const std::string& title, int width, int height, bool vsync);
  ~GlfwWindow() override;

  int width() const override;
  int height() const override;
  void bind_framebuffer() override;
  void present() override;
  void resize(int width, int height) override;
  bool offscreen() const override { return false; }

  GLFWwindow* handle() const { return window_; }
  bool should_close() const;
  void request_close();
  bool iconified() const;
  // Processes pending events; waits up to timeout_s for one when timeout_s > 0.
  void poll_events(double timeout_s = 0.0);
  // Events seen so far (keys, characters, the mouse, the window's size, focus, exposure, drops):
  // the frame loop draws again only when this moved or its mode has something on its way.
  std::uint64_t events_seen() const { return events_seen_; }
  // Files dropped onto the window since the last call.
  std::vector<std::string> take_dropped_paths();
  // Key events since the last call, in order (Dear ImGui still sees every key too: its backend,
  // installed after this window, passes them on here).
  std::vector<KeyEvent> take_key_events();
  // Swap at the display's rate (true) or as fast as possible.
  void set_vsync(bool on);
  bool vsync() const { return vsync_; }
  // Seconds since GLFW started (the clock of KeyEvent::time_s).
  static double now_s();
  void set_title(const std::string& title);
  // The window's content scale (glfwGetWindowContentScale: 2 on a display of 192 dpi, from Xft.dpi
  // on X11), for the size of the text and the widgets; it changes when the window moves to another
  // monitor (the content-scale callback counts as an event, so the loop draws and picks it up).
  float content_scale() const;

 protected:
  unsigned read_framebuffer() const override { return 0; }

 private:
  static void on_drop(GLFWwindow* window, int count, const char** paths);
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  static void count_event(GLFWwindow* window);

  GLFWwindow* window_ = nullptr;
  std::vector<std::string> dropped_;
  std::vector<KeyEvent> keys_;
  bool vsync_ = false;
  std::uint64_t events_seen_ = 0;
};

}  // namespace gausslab
