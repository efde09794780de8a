#include "panels/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gausslab {

void tooltip(const std::string& text) {
  if (!text.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void action_tooltip(ActionId id) {
  const Action& action = first_action(id);
  const std::string keys = shortcut_list(action);
  tooltip(std::string(action.help) + (keys.empty() ? "" : "  [" + keys + "]"));
}

void wrapped(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void keep_on_screen() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImVec2 pos = ImGui::GetWindowPos();
  const ImVec2 size = ImGui::GetWindowSize();
  const ImVec2 clamped(std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - std::min(size.x, display.x))),
                       std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - std::min(size.y, display.y))));
  if (clamped.x != pos.x || clamped.y != pos.y) ImGui::SetWindowPos(clamped);
}

std::string figure(double value, const char* format) {
  if (std::isinf(value)) return "inf";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace gausslab
