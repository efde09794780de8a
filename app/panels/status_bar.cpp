#include "panels/status_bar.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>

#include "gausslab/render/display_transform.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "panels/view_input.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void view_status(StatusBarContent& content, const ViewState& view, const PictureArea& area, int image_width,
                 int image_height, const std::string& display_range) {
  content.zoom = view.transform.zoom;
  content.sampling = sampling_at(view.sampling, view.transform.zoom);
  if (view.mode != CompareMode::Difference) content.display = describe(view.display, display_range);
  const Vec2 mouse = mouse_in_picture(area);
  if (!ImGui::GetIO().WantCaptureMouse && mouse.x >= 0 && mouse.y >= 0 && mouse.x < area.width && mouse.y < area.height) {
    const Vec2 p = screen_to_image(view.transform, mouse, area.width, area.height);
    if (p.x >= 0 && p.y >= 0 && p.x < image_width && p.y < image_height) content.pixel = p;
  }
}

float status_bar_height(bool hidden) { return hidden ? 0.0f : ImGui::GetFrameHeight(); }

void status_bar(const StatusBarContent& content, ActionDispatcher& actions) {
  const ImGuiIO& io = ImGui::GetIO();
  const float height = status_bar_height(false);
  ImGui::SetNextWindowPos(ImVec2(0.0f, io.DisplaySize.y - height), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, height), ImGuiCond_Always);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().FramePadding.x, ImGui::GetStyle().FramePadding.y));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::GetStyleColorVec4(ImGuiCol_MenuBarBg));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse;
  const bool open = ImGui::Begin("##status", nullptr, flags);
  ImGui::PopStyleColor();
  ImGui::PopStyleVar(3);
  if (open) {
    char zoom[128];
    std::snprintf(zoom, sizeof zoom, "zoom %s  %s", zoom_percent_text(content.zoom).c_str(), to_string(content.sampling));
    std::string view = zoom;
    if (!content.display.empty()) view += "  " + content.display;
    std::string right = view;
    if (content.pixel) {
      char where[64];
      std::snprintf(where, sizeof where, "   x %d  y %d", static_cast<int>(std::floor(content.pixel->x)),
                    static_cast<int>(std::floor(content.pixel->y)));
      right += where;
    }
    const float right_width = ImGui::CalcTextSize(right.c_str()).x;
    const float right_x = ImGui::GetWindowContentRegionMax().x - right_width;
    // The message, then the progress, clipped where the right part starts.
    const ImVec2 start = ImGui::GetCursorScreenPos();
    ImGui::PushClipRect(start, ImVec2(ImGui::GetWindowPos().x + right_x - scaled(12.0f), start.y + height), true);
    const ImVec4 colour = content.error ? kErrorColour : content.current ? ImGui::GetStyleColorVec4(ImGuiCol_Text) : kDimColour;
    if (!content.message.empty()) {
      ImGui::TextColored(colour, "%s", content.message.c_str());
      if (!content.progress.empty()) ImGui::SameLine(0.0f, scaled(24.0f));
    }
    if (!content.progress.empty()) ImGui::TextColored(kDimColour, "%s", content.progress.c_str());
    if (content.message.empty() && content.progress.empty()) ImGui::TextColored(kDimColour, "ready");
    ImGui::PopClipRect();
    ImGui::SameLine(right_x);
    ImGui::TextColored(kDimColour, "%s", right.c_str());
    if (!content.message.empty() && ImGui::IsWindowHovered()) tooltip(content.message);
    actions.report("status", "status " + content.message);
    actions.report("status_view", "status_view " + view);
  }
  ImGui::End();
}

}  // namespace gausslab
