// The side panel's view section: A, B, split or difference, blink, the difference's style and gain
// (else the exposure and the channel shown),
// the sampling, fit and 1:1 (the zoom shown), the inspector.
#include <imgui.h>

#include <algorithm>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void view_panel(ViewState& view, ActionDispatcher& actions) {
  static const char* kModes[] = {"A", "B", "split", "difference"};
  static const ActionId kModeActions[] = {ActionId::ViewA, ActionId::ViewB, ActionId::ViewSplit, ActionId::ViewDifference};
  for (int i = 0; i < static_cast<int>(CompareMode::Count); ++i) {
    if (i > 0) ImGui::SameLine();
    if (ImGui::RadioButton(kModes[i], view.mode == static_cast<CompareMode>(i))) view.mode = static_cast<CompareMode>(i);
    action_tooltip(kModeActions[i]);
  }
  ImGui::Checkbox("blink: A and B swapped", &view.blink_swapped);
  action_tooltip(ActionId::Blink);
  if (view.mode == CompareMode::Difference) {
    ImGui::Checkbox("signed", &view.signed_difference);
    action_tooltip(ActionId::SignedDifference);
    ImGui::SameLine();
    ImGui::Checkbox("false colour", &view.false_colour);
    action_tooltip(ActionId::FalseColour);
    ImGui::SetNextItemWidth(-90.0f);
    float gain = static_cast<float>(view.gain);
    if (ImGui::SliderFloat("gain", &gain, 1.0f, static_cast<float>(kMaxDifferenceGain), "x%.0f", ImGuiSliderFlags_Logarithmic))
      view.gain = std::max(1.0f, gain);
    action_tooltip(ActionId::GainUp);
  } else {
    ImGui::SetNextItemWidth(-90.0f);
    float stops = static_cast<float>(view.display.exposure_stops);
    if (ImGui::SliderFloat("exposure", &stops, -20.0f, 20.0f, "%+.1f stops")) view.display.exposure_stops = stops;
    action_tooltip(ActionId::ExposureUp);
    static const char* kChannels[] = {"rgb", "r", "g", "b", "a", "luminance"};
    int channel = static_cast<int>(view.display.channel);
    ImGui::SetNextItemWidth(-90.0f);
    if (ImGui::Combo("channel", &channel, kChannels, static_cast<int>(ChannelView::Count)))
      view.display.channel = static_cast<ChannelView>(channel);
    action_tooltip(ActionId::NextChannel);
  }
  for (Sampling sampling : {Sampling::Auto, Sampling::Nearest, Sampling::Linear}) {
    if (sampling != Sampling::Auto) ImGui::SameLine();
    if (ImGui::RadioButton(to_string(sampling), view.sampling == sampling)) view.sampling = sampling;
    action_tooltip(ActionId::ToggleSampling);
  }
  ImGui::SameLine();
  ImGui::Checkbox("grid", &view.pixel_grid);
  tooltip("From " + zoom_percent_text(kPixelGridZoom) + " zoom up, a line between the picture's pixels; from " +
          zoom_percent_text(kPixelValuesZoom) + " up, their values in the cells (with the inspector on).  [" +
          shortcut_list(first_action(ActionId::TogglePixelGrid)) + "]");
  if (ImGui::Button("-")) actions.queue(ActionId::ZoomOut);
  action_tooltip(ActionId::ZoomOut);
  ImGui::SameLine();
  if (ImGui::Button("+")) actions.queue(ActionId::ZoomIn);
  action_tooltip(ActionId::ZoomIn);
  ImGui::SameLine();
  if (ImGui::Button("fit")) view.fit = true;
  action_tooltip(ActionId::Fit);
  ImGui::SameLine();
  if (ImGui::Button("1:1")) actions.queue(ActionId::OneToOne);
  action_tooltip(ActionId::OneToOne);
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%s (%s)", zoom_percent_text(view.transform.zoom).c_str(),
                     to_string(sampling_at(view.sampling, view.transform.zoom)));
  ImGui::Checkbox("inspector", &view.inspector);
  action_tooltip(ActionId::ToggleInspector);
}

}  // namespace gausslab
