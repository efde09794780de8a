#include "panels/docked_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "panels/path_badge.hpp"
#include "panels/status_bar.hpp"
#include "panels/view_input.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

float menu_height(const ViewState& view) { return view.panels_hidden ? 0.0f : ImGui::GetFrameHeight(); }

PictureArea docked_layout(ViewState& view, int surface_width, int surface_height) {
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  // HiDPI: the panel grows with the text (the content scale changed: imgui_session.hpp).
  if (const float s = ui_scale(); s != view.panel_scale) {
    view.panel_width *= s / view.panel_scale;
    view.panel_scale = s;
  }
  // The panel never takes more than 70 % of the window, nor less than what its widgets need.
  const float narrowest = kNarrowestPanel * ui_scale();
  view.panel_width = std::clamp(view.panel_width, narrowest, std::max(narrowest, io.DisplaySize.x * 0.7f));
  const float panel = view.panels_hidden ? 0.0f : std::min(view.panel_width, io.DisplaySize.x * 0.7f);
  PictureArea area;
  area.x = 0;
  area.y = static_cast<int>(menu_height(view) * scale);
  area.width = std::max(0, surface_width - static_cast<int>(panel * scale));
  area.height = std::max(0, surface_height - area.y - static_cast<int>(status_bar_height(view.panels_hidden) * scale));
  return area;
}

void docked_side_panel(const ViewState& view, float& overlay_height, const std::function<void()>& sections,
                       const std::function<void()>& overlay) {
  const ImGuiIO& io = ImGui::GetIO();
  const float width = std::min(view.panel_width, io.DisplaySize.x * 0.7f);
  const float top = menu_height(view);
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - width, top), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, std::max(50.0f, io.DisplaySize.y - top - status_bar_height(view.panels_hidden))),
                           ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("##panel", nullptr, flags)) {
    // The overlay's height is last frame's (measured below).
    const bool docked = !view.overlay_hidden && !view.overlay_floating;
    ImGui::BeginChild("##sections", ImVec2(0.0f, docked ? -overlay_height : 0.0f));
    sections();
    ImGui::EndChild();
    if (docked) {
      const float overlay_top = ImGui::GetCursorPosY();
      ImGui::Separator();
      overlay();
      overlay_height = ImGui::GetCursorPosY() - overlay_top + ImGui::GetStyle().ItemSpacing.y;
    }
  }
  ImGui::End();
}

void floating_overlay(const ViewState& view, const std::function<void()>& overlay) {
  if (!view.overlay_floating) return;
  ImGui::SetNextWindowPos(ImVec2(scaled(10.0f), menu_height(view) + scaled(10.0f)), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.72f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##timings", nullptr, flags)) {
    keep_on_screen();
    overlay();
  }
  ImGui::End();
}

void overlay_path_line(OutputPath path, const char* text, ViewState& view) {
  const Rgba8 badge = path_badge_colour(path);
  const ImVec2 corner = ImGui::GetCursorScreenPos();
  const float side = std::round(kPathBadgeSide * ui_scale());  // HiDPI: as large as the text
  ImGui::GetWindowDrawList()->AddRectFilled(
      corner, ImVec2(corner.x + side, corner.y + side), IM_COL32(badge.r, badge.g, badge.b, 255));
  ImGui::Dummy(ImVec2(side, side));
  ImGui::SameLine();
  ImGui::TextUnformatted(text);
  ImGui::SameLine();
  if (ImGui::SmallButton(view.overlay_floating ? "dock" : "float")) view.overlay_floating = !view.overlay_floating;
  tooltip(view.overlay_floating ? "Back to the bottom of the side panel (T hides it)."
                                : "A window of its own, to drag anywhere, over the picture too (T hides it).");
}

}  // namespace gausslab
