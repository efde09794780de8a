#include "panels/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui_internal.h>

#include "viewer/imgui_session.hpp"  // TempInputIsActive: whether a slider is being typed into

namespace gausslab {

float ui_scale() { return ImGui::GetFontSize() / kBaseFontPixels; }

float scaled(float units) { return units * ui_scale(); }

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

const char* const kTypedValueKeys =
    "Drag, or Ctrl+click and type a value: Enter or a click elsewhere applies it, Esc drops it.";

std::optional<double> committed_slider(const char* label, double value, double min, double max, const char* format,
                                       ImGuiSliderFlags flags, std::optional<double>& typed) {
  double shown = typed.value_or(value);
  const bool changed = ImGui::SliderScalar(label, ImGuiDataType_Double, &shown, &min, &max, format, flags);
  const ImGuiID id = ImGui::GetCurrentContext()->LastItemData.ID;
  if (ImGui::TempInputIsActive(id)) {  // typing: keep the text's value, apply nothing yet
    if (changed) typed = shown;
    return std::nullopt;
  }
  if (typed && ImGui::IsItemDeactivated()) {  // Enter, or the focus went elsewhere
    const double value_typed = *typed;
    typed.reset();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) return std::nullopt;
    return value_typed;
  }
  typed.reset();
  if (changed) return shown;
  return std::nullopt;
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
