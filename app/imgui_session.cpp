#include "imgui_session.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>

#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/glfw_window.hpp"

namespace gausslab {

ImGuiSession::ImGuiSession(GlfwWindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini into the user's folder
  ImGui::StyleColorsDark();
  if (window) platform_backend_ = ImGui_ImplGlfw_InitForOpenGL(window->handle(), true);
  renderer_backend_ = ImGui_ImplOpenGL3_Init("#version 330 core");
  if (!renderer_backend_) {
    shutdown();
    throw GlError("Dear ImGui's OpenGL 3 renderer could not start (it loads libGL.so.1 for its functions)");
  }
}

ImGuiSession::~ImGuiSession() { shutdown(); }

void ImGuiSession::shutdown() {
  if (!ImGui::GetCurrentContext()) return;
  if (renderer_backend_) ImGui_ImplOpenGL3_Shutdown();
  if (platform_backend_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  renderer_backend_ = platform_backend_ = false;
}

void ImGuiSession::new_frame(int surface_width, int surface_height, double delta_seconds) {
  ImGui_ImplOpenGL3_NewFrame();
  if (platform_backend_) {
    ImGui_ImplGlfw_NewFrame();
  } else {  // offscreen: no platform backend, so size and time are set here
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(surface_width), static_cast<float>(surface_height));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = static_cast<float>(std::max(delta_seconds, 1e-4));
  }
  ImGui::NewFrame();
}

void ImGuiSession::render_draw_data() { ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData()); }

}  // namespace gausslab
