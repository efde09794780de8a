#pragma once
// Dear ImGui's context and backends, shut down in reverse order before the GL context goes.
#include <vector>

#include "gausslab/render/glfw_window.hpp"

namespace gausslab {

// The text's size at a content scale of 1, in pixels; the font and the style are scaled from it.
inline constexpr float kBaseFontPixels = 15.0f;

struct ImGuiSession {
  // window: the GLFW platform backend's window, or null offscreen (the loop then sets the display
  // size and time itself). Throws GlError when the OpenGL 3 renderer backend cannot start.
  explicit ImGuiSession(GlfwWindow* window);
  ~ImGuiSession();
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;

  // Starts an ImGui frame; offscreen, with the surface's size and the frame interval. `keys`: the
  // window's key events since the last frame. Dear ImGui 1.86 reads held state, so a key pressed
  // and released between two frames would be lost to its widgets (Enter in a text field): such a
  // key is held down for this frame and released at the start of the next (and characters typed in
  // the frame of a Ctrl or Alt tap wait for the next, as a text field drops them while it is down).
  void new_frame(int surface_width, int surface_height, double delta_seconds, const std::vector<KeyEvent>& keys);
  // Draws ImGui's draw data into the bound framebuffer.
  void render_draw_data();
  // HiDPI: the font built (the first call, before the first frame) or rebuilt at kBaseFontPixels x scale (sharp, not a stretched atlas) and the style's
  // sizes scaled (padding, spacing, rounding, scroll bars); between frames only. Returns true when
  // the scale changed.
  bool set_scale(float scale);
  float scale() const { return scale_; }

 private:
  void shutdown();
  std::vector<int> release_next_frame_;
  std::vector<unsigned> deferred_characters_;  // typed in the frame of a Ctrl or Alt tap (ImWchar's)
  bool platform_backend_ = false;
  bool renderer_backend_ = false;
  float scale_ = 0.0f;  // 0: no font yet
};

}  // namespace gausslab
