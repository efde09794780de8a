#include "viewer/imgui_session.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/glfw_window.hpp"
#define GLFW_INCLUDE_NONE  // key codes only
#include <GLFW/glfw3.h>

namespace gausslab {

namespace {

// Debian's fonts-dejavu-core (scripts/install-deps.sh): ImGui's built-in font has no σ, ≤, ≥, –, ×.
constexpr const char* kFontPaths[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                      "/usr/share/fonts/dejavu/DejaVuSans.ttf"};

void load_font(float pixels) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Latin-1, Greek, general punctuation (– …), arrows, mathematical operators (≤ ≥ ×).
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
  const char* chosen = std::getenv("GAUSSLAB_FONT");
  for (const char* path : kFontPaths)
    if (!chosen && std::filesystem::exists(path)) chosen = path;
  if (chosen && io.Fonts->AddFontFromFileTTF(chosen, pixels, nullptr, ranges)) return;
  static bool said = false;
  if (!said)
    std::fprintf(stderr,
                 "gausslab: note: no DejaVu Sans font (apt install fonts-dejavu-core); symbols such as sigma "
                 "show as '?'\n");
  said = true;
  ImFontConfig config;
  config.SizePixels = pixels;  // ImGui's built-in font, at the scaled size (blockier, but the size is right)
  io.Fonts->AddFontDefault(&config);
}

}  // namespace

ImGuiSession::ImGuiSession(GlfwWindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini into the user's folder
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

void ImGuiSession::new_frame(int surface_width, int surface_height, double delta_seconds,
                             const std::vector<KeyEvent>& keys) {
  ImGuiIO& keys_io = ImGui::GetIO();
  for (int key : release_next_frame_) keys_io.KeysDown[key] = false;
  release_next_frame_.clear();
  // The characters held back last frame come first, before those typed since.
  if (!deferred_characters_.empty()) {
    ImVector<ImWchar> typed_since;
    typed_since.swap(keys_io.InputQueueCharacters);
    for (unsigned c : deferred_characters_) keys_io.InputQueueCharacters.push_back(static_cast<ImWchar>(c));
    for (ImWchar c : typed_since) keys_io.InputQueueCharacters.push_back(c);
    deferred_characters_.clear();
  }
  for (const KeyEvent& event : keys) {
    const bool in_range = event.key >= 0 && event.key < IM_ARRAYSIZE(keys_io.KeysDown);
    if (in_range && event.kind == KeyEvent::Kind::Press && !keys_io.KeysDown[event.key]) {
      keys_io.KeysDown[event.key] = true;  // a tap shorter than a frame: down for this one
      release_next_frame_.push_back(event.key);
    }
  }
  if (!release_next_frame_.empty()) {
    const bool* down = keys_io.KeysDown;
    keys_io.KeyCtrl = down[GLFW_KEY_LEFT_CONTROL] || down[GLFW_KEY_RIGHT_CONTROL];
    keys_io.KeyShift = down[GLFW_KEY_LEFT_SHIFT] || down[GLFW_KEY_RIGHT_SHIFT];
    keys_io.KeyAlt = down[GLFW_KEY_LEFT_ALT] || down[GLFW_KEY_RIGHT_ALT];
    // A text field takes no characters while Ctrl or Alt is down: text typed within the same frame
    // as a Ctrl or Alt tap (Ctrl+A, then the new name) waits for the next frame, when the tap is
    // released, instead of being lost.
    const auto tapped = [&](int key) {
      return std::find(release_next_frame_.begin(), release_next_frame_.end(), key) != release_next_frame_.end();
    };
    if (tapped(GLFW_KEY_LEFT_CONTROL) || tapped(GLFW_KEY_RIGHT_CONTROL) || tapped(GLFW_KEY_LEFT_ALT) ||
        tapped(GLFW_KEY_RIGHT_ALT)) {
      for (ImWchar c : keys_io.InputQueueCharacters) deferred_characters_.push_back(c);
      keys_io.InputQueueCharacters.resize(0);
    }
  }
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

bool ImGuiSession::set_scale(float scale) {
  if (scale == scale_) return false;
  const bool had_font = scale_ > 0.0f;
  scale_ = scale;
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
  load_font(std::round(kBaseFontPixels * scale));
  // The renderer's font texture is made from the atlas: made again once it has been made.
  if (had_font && renderer_backend_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  return true;
}

}  // namespace gausslab
