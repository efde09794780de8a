#include "panels/view_input.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "panels/widgets.hpp"

namespace gausslab {

Vec2 mouse_in_picture(const PictureArea& area) {
  const ImGuiIO& io = ImGui::GetIO();
  return {io.MousePos.x * io.DisplayFramebufferScale.x - area.x, io.MousePos.y * io.DisplayFramebufferScale.y - area.y};
}

float side_panel_edge(const ViewState& view) {
  return view.panels_hidden ? -1.0f : ImGui::GetIO().DisplaySize.x - view.panel_width;
}

void place_mouse(const Vec2& position) {
  ImGui::GetIO().MousePos = ImVec2(static_cast<float>(position.x), static_cast<float>(position.y));
}

void handle_view_mouse(ViewState& view, MouseDrag& drag, const PictureArea& area, float panel_edge_x) {
  ImGuiIO& io = ImGui::GetIO();
  const Vec2 mouse = mouse_in_picture(area);
  const bool inside = mouse.x >= 0 && mouse.y >= 0 && mouse.x < area.width && mouse.y < area.height;
  const double divider_x = view.split_fraction * area.width;
  const bool over_divider = view.mode == CompareMode::Split && std::abs(mouse.x - divider_x) <= 6.0 && inside;
  const bool over_edge = panel_edge_x >= 0 && std::abs(io.MousePos.x - panel_edge_x) <= 5.0f;
  if (over_edge || drag == MouseDrag::PanelEdge) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  if (ImGui::IsMouseClicked(0) && over_edge) drag = MouseDrag::PanelEdge;
  if (!io.WantCaptureMouse && inside) {
    if (io.MouseWheel != 0.0f) {
      view.transform = zoom_around(view.transform, wheel_zoom_factor(io.MouseWheel), mouse, area.width, area.height);
      view.fit = false;
    }
    if (ImGui::IsMouseClicked(0) && drag == MouseDrag::None) drag = over_divider ? MouseDrag::Divider : MouseDrag::Pan;
    if (over_divider || drag == MouseDrag::Divider) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  }
  if (drag != MouseDrag::None && !ImGui::IsMouseDown(0)) drag = MouseDrag::None;
  if (drag == MouseDrag::Pan && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)) {
    view.transform = pan_by(view.transform, {io.MouseDelta.x * io.DisplayFramebufferScale.x,
                                             io.MouseDelta.y * io.DisplayFramebufferScale.y});
    view.fit = false;
  } else if (drag == MouseDrag::Divider && area.width > 0) {
    view.split_fraction = std::clamp(mouse.x / area.width, 0.0, 1.0);
  } else if (drag == MouseDrag::PanelEdge) {
    const float narrowest = kNarrowestPanel * ui_scale();
    view.panel_width = std::clamp(io.DisplaySize.x - io.MousePos.x, narrowest, std::max(narrowest, io.DisplaySize.x * 0.7f));
  }
}

}  // namespace gausslab
