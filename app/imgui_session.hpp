#pragma once
// Dear ImGui's context and backends, shut down in reverse order before the GL context goes.
namespace gausslab {

class GlfwWindow;

struct ImGuiSession {
  // window: the GLFW platform backend's window, or null offscreen (the loop then sets the display
  // size and time itself). Throws GlError when the OpenGL 3 renderer backend cannot start.
  explicit ImGuiSession(GlfwWindow* window);
  ~ImGuiSession();
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;

  // Starts an ImGui frame; offscreen, with the surface's size and the frame interval.
  void new_frame(int surface_width, int surface_height, double delta_seconds);
  // Draws ImGui's draw data into the bound framebuffer.
  void render_draw_data();

 private:
  void shutdown();
  bool platform_backend_ = false;
  bool renderer_backend_ = false;
};

}  // namespace gausslab
