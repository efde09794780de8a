// The side panel's view section: A, B, split or difference, blink, the difference's style and gain
// (else the display transform: channel, colour map, range, exposure, offset, transfer),
// the sampling, fit and 1:1 (the zoom shown), the inspector.
#include <imgui.h>

#include <algorithm>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

// The A, B and split views' display transform (render/display_transform.hpp), in its order.
void display_transform_controls(DisplayTransform& display, ActionDispatcher& actions, const std::string& range_note) {
  static const char* kChannels[] = {"rgb", "r", "g", "b", "a", "luminance"};
  static const char* kTransfers[] = {"linear (as stored)", "sRGB", "gamma"};
  static const char* kRanges[] = {"nominal [0, 1]", "min - max", "percentiles"};
  int channel = static_cast<int>(display.channel);
  ImGui::SetNextItemWidth(-scaled(90.0f));
  if (ImGui::Combo("channel", &channel, kChannels, static_cast<int>(ChannelView::Count)))
    display.channel = static_cast<ChannelView>(channel);
  action_tooltip(ActionId::NextChannel);
  ImGui::BeginDisabled(display.channel == ChannelView::Rgb);
  ImGui::Checkbox("colour map", &display.colour_map);
  ImGui::EndDisabled();
  action_tooltip(ActionId::ToggleChannelMap);
  int range = static_cast<int>(display.range);
  ImGui::SetNextItemWidth(-scaled(90.0f));
  if (ImGui::Combo("range", &range, kRanges, static_cast<int>(RangeMode::Count))) display.range = static_cast<RangeMode>(range);
  action_tooltip(ActionId::NextRange);
  if (display.range == RangeMode::Percentiles) {
    float low = static_cast<float>(display.low_percentile), high = static_cast<float>(display.high_percentile);
    ImGui::SetNextItemWidth(-scaled(90.0f));
    if (ImGui::DragFloatRange2("percentiles", &low, &high, 0.05f, 0.0f, 100.0f, "%.2f", "%.2f", ImGuiSliderFlags_AlwaysClamp) &&
        low < high) {
      display.low_percentile = low;
      display.high_percentile = high;
    }
    tooltip("The percentiles that map to black and white (of A's and B's values together, NaN and infinities left out)");
  }
  if (display.range != RangeMode::Nominal) ImGui::TextColored(kDimColour, "  %s", range_note.c_str());
  ImGui::SetNextItemWidth(-scaled(90.0f));
  float stops = static_cast<float>(display.exposure_stops);
  if (ImGui::SliderFloat("exposure", &stops, static_cast<float>(-kMaxExposureStops), static_cast<float>(kMaxExposureStops),
                         "%+.1f stops", ImGuiSliderFlags_AlwaysClamp))
    display.exposure_stops = stops;
  action_tooltip(ActionId::ExposureUp);
  ImGui::SetNextItemWidth(-scaled(90.0f));
  float offset = static_cast<float>(display.offset);
  if (ImGui::SliderFloat("offset", &offset, -1.0f, 1.0f, "%+.3f", ImGuiSliderFlags_None))
    display.offset = std::clamp(static_cast<double>(offset), -kMaxDisplayOffset, kMaxDisplayOffset);
  action_tooltip(ActionId::OffsetUp);
  int transfer = static_cast<int>(display.transfer);
  ImGui::SetNextItemWidth(-scaled(90.0f));
  if (ImGui::Combo("transfer", &transfer, kTransfers, static_cast<int>(Transfer::Count)))
    display.transfer = static_cast<Transfer>(transfer);
  action_tooltip(ActionId::NextTransfer);
  if (display.transfer == Transfer::Gamma) {
    float gamma = static_cast<float>(display.gamma);
    ImGui::SetNextItemWidth(-scaled(90.0f));
    if (ImGui::SliderFloat("gamma", &gamma, static_cast<float>(kMinDisplayGamma), static_cast<float>(kMaxDisplayGamma), "%.2f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
      display.gamma = gamma;
    tooltip("v^(1/gamma): 2.2 brightens the dark values as a display's gamma would, below 1 darkens them");
  }
  if (ImGui::Button("reset display")) actions.queue(ActionId::ResetDisplay);
  action_tooltip(ActionId::ResetDisplay);
}

}  // namespace

void view_panel(ViewState& view, ActionDispatcher& actions, const std::string& range_note) {
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
    ImGui::SetNextItemWidth(-scaled(90.0f));
    float gain = static_cast<float>(view.gain);
    if (ImGui::SliderFloat("gain", &gain, 1.0f, static_cast<float>(kMaxDifferenceGain), "x%.0f", ImGuiSliderFlags_Logarithmic))
      view.gain = std::max(1.0f, gain);
    action_tooltip(ActionId::GainUp);
  } else {
    display_transform_controls(view.display, actions, range_note);
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
