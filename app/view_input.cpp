#include "view_input.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace gausslab {

void handle_view_mouse(ViewState& view, MouseDrag& drag, int view_width, int view_height) {
  ImGuiIO& io = ImGui::GetIO();
  // The mouse, in framebuffer pixels (the view's units), unless ImGui wants it.
  const Vec2 mouse{io.MousePos.x * io.DisplayFramebufferScale.x, io.MousePos.y * io.DisplayFramebufferScale.y};
  const double divider_x = view.split_fraction * view_width;
  const bool over_divider = view.mode == CompareMode::Split && std::abs(mouse.x - divider_x) <= 6.0;
  if (!io.WantCaptureMouse) {
    if (io.MouseWheel != 0.0f) {
      view.transform = zoom_around(view.transform, wheel_zoom_factor(io.MouseWheel), mouse, view_width, view_height);
      view.fit = false;
    }
    if (ImGui::IsMouseClicked(0)) drag = over_divider ? MouseDrag::Divider : MouseDrag::Pan;
    if (over_divider || drag == MouseDrag::Divider) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  }
  if (drag != MouseDrag::None && !ImGui::IsMouseDown(0)) drag = MouseDrag::None;
  if (drag == MouseDrag::Pan && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)) {
    view.transform = pan_by(view.transform, {io.MouseDelta.x * io.DisplayFramebufferScale.x,
                                             io.MouseDelta.y * io.DisplayFramebufferScale.y});
    view.fit = false;
  } else if (drag == MouseDrag::Divider && view_width > 0) {
    view.split_fraction = std::clamp(mouse.x / view_width, 0.0, 1.0);
  }
}

}  // namespace gausslab
