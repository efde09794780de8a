// The side panel's filter section: sigma and truncate (log slider; a value typed beyond the range
// is refused with the reason, not clamped), the border, 2x2 pooling, continuous processing and the
// repeat count.
#include <imgui.h>

#include <optional>
#include <string>

#include "gausslab/core/border.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

bool filter_panel(FilterState& filter, FilterPanelState& state) {
  const FilterState before = filter;
  ImGui::SetNextItemWidth(-scaled(90.0f));
  if (const std::optional<double> sigma =
          committed_slider("\u03c3 sigma", filter.params.sigma, kMinSigma, kMaxSigma, "%.4g px",
                           ImGuiSliderFlags_Logarithmic, state.sigma_typed)) {
    FilterParams params = filter.params;
    params.sigma = *sigma;
    state.sigma_refusal = validate(params);
    if (state.sigma_refusal.empty()) filter.params = params;
  }
  state.sigma_field = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, ImGui::GetItemRectMax().x,
                       ImGui::GetItemRectMax().y};
  tooltip(std::string("Gaussian sigma in pixels. ") + kTypedValueKeys + " Keys: " +
          shortcut_list(first_action(ActionId::SigmaUpLarge)) + " / " +
          shortcut_list(first_action(ActionId::SigmaDownLarge)) + " step by 1, " +
          shortcut_list(first_action(ActionId::SigmaUpSmall)) + " / " +
          shortcut_list(first_action(ActionId::SigmaDownSmall)) + " by 0.1.");
  if (!state.sigma_refusal.empty()) wrapped(kErrorColour, state.sigma_refusal + " (not applied)");
  ImGui::SetNextItemWidth(-scaled(90.0f));
  if (const std::optional<double> truncate = committed_slider("truncate", filter.params.truncate, kMinTruncate,
                                                              kMaxTruncate, "%.2f", 0, state.truncate_typed)) {
    FilterParams params = filter.params;
    params.truncate = *truncate;
    state.truncate_refusal = validate(params);
    if (state.truncate_refusal.empty()) filter.params = params;
  }
  tooltip(std::string("radius = floor(truncate \u00d7 \u03c3 + 0.5), as SciPy (default 4); from 0.5 to 10. ") +
          kTypedValueKeys);
  if (!state.truncate_refusal.empty()) wrapped(kErrorColour, state.truncate_refusal + " (not applied)");
  ImGui::TextColored(kDimColour, "radius %d (%d taps per pass)", filter.params.radius(), filter.params.taps());
  if (ImGui::BeginCombo("border", to_string(filter.params.border))) {
    for (BorderMode mode : kAllBorderModes) {
      if (ImGui::Selectable(to_string(mode), filter.params.border == mode)) filter.params.border = mode;
      tooltip(describe(mode));
    }
    ImGui::EndCombo();
  } else {
    action_tooltip(ActionId::NextBorder);
  }
  {
    static const PoolMode kModes[] = {PoolMode::None, PoolMode::Max2x2, PoolMode::Avg2x2};
    static const char* kLabels[] = {"off", "max 2x2", "average 2x2"};
    int current = static_cast<int>(filter.pool);
    ImGui::SetNextItemWidth(-scaled(90.0f));
    if (ImGui::Combo("pooling", &current, kLabels, 3)) state.pool_asked = kModes[current];
    action_tooltip(ActionId::TogglePooling);
  }
  ImGui::Checkbox("continuous processing", &filter.continuous);
  action_tooltip(ActionId::ToggleContinuous);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(scaled(80.0f));
  if (ImGui::BeginCombo("repeat", ("x" + std::to_string(filter.repeat)).c_str())) {
    for (int n : {1, 4, 16, 64})
      if (ImGui::Selectable(("x" + std::to_string(n)).c_str(), filter.repeat == n)) filter.repeat = n;
    ImGui::EndCombo();
  }
  action_tooltip(ActionId::CycleRepeat);
  return filter != before || state.pool_asked.has_value();
}

}  // namespace gausslab
