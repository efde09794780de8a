#include "panels/sequence_panels.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "panels/docked_panel.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

const ImVec4 kDxColour(0.35f, 0.75f, 1.0f, 1.0f);
const ImVec4 kDyColour(1.0f, 0.7f, 0.3f, 1.0f);

const char* kDisplayNames[] = {"A: the frame", "B: whitened", "split A | B", "|A - B| x gain"};

bool slider_double(const char* label, double& value, double lo, double hi, const char* format, bool logarithmic) {
  float v = static_cast<float>(value);
  const bool changed = ImGui::SliderFloat(label, &v, static_cast<float>(lo), static_cast<float>(hi), format,
                                          logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
  if (changed) value = v;
  return changed;
}

}  // namespace

SequenceRequests sequence_panel(SequenceControls& c, ViewState& view, SequencePanels& panels,
                                const SequencePanelInfo& info) {
  SequenceRequests requests;
  if (panels.focus_open_field) {
    ImGui::SetKeyboardFocusHere();
    panels.focus_open_field = false;
  }
  ImGui::InputTextWithHint("##input", "a folder, a video or synthetic", &panels.open_text);
  ImGui::SameLine();
  if (ImGui::Button("Open") && !panels.open_text.empty()) requests.open_input = panels.open_text;
  if (!info.error.empty()) ImGui::TextColored(kErrorColour, "%s", info.error.c_str());

  if (ImGui::Button(c.playing ? "Pause" : "Play")) c.playing = !c.playing;
  ImGui::SameLine();
  if (ImGui::Button("Step")) requests.step = true;
  ImGui::SameLine();
  ImGui::Checkbox("loop", &c.loop);
  ImGui::Text("frame %d of %d  (%lld pushed; history %s)", info.frame_index, info.frame_count, info.frames_pushed,
              info.history_full ? "full" : "filling");

  ImGui::Separator();
  ImGui::TextColored(kDimColour, "whitening (a change starts the sequence over)");
  ImGui::SliderInt("history N", &c.history, 1, 64);
  if (!info.warning.empty()) wrapped(kErrorColour, info.warning);
  ImGui::SliderInt("degree n", &c.degree, 0, 4);
  slider_double("gamma", c.gamma, 1e-6, 1e3, "%.2g", true);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("small: the weights match the shift moments exactly; large: the plain mean of the history");
  const std::vector<std::string>& prefilters = *info.prefilters;
  const char* preview = c.prefilter >= 0 && c.prefilter < static_cast<int>(prefilters.size())
                            ? prefilters[static_cast<std::size_t>(c.prefilter)].c_str()
                            : "none";
  if (ImGui::BeginCombo("pre-filter", preview)) {
    if (ImGui::Selectable("none", c.prefilter < 0)) c.prefilter = -1;
    for (std::size_t i = 0; i < prefilters.size(); ++i)
      if (ImGui::Selectable(prefilters[i].c_str(), c.prefilter == static_cast<int>(i))) c.prefilter = static_cast<int>(i);
    ImGui::EndCombo();
  }
  if (c.prefilter >= 0) slider_double("sigma", c.sigma, 0.1, 20.0, "%.2f px", true);

  ImGui::Separator();
  int mode = static_cast<int>(view.mode);
  if (ImGui::Combo("display", &mode, kDisplayNames, IM_ARRAYSIZE(kDisplayNames))) view.mode = static_cast<CompareMode>(mode);
  ImGui::Checkbox("B shows the pre-filtered frame", &c.show_filtered);
  if (!c.show_filtered) slider_double("B range +-", c.whitened_range, 1.0, 32.0, "%.1f noise deviations", true);
  if (view.mode == CompareMode::Difference) slider_double("gain", view.gain, 1.0, 64.0, "%.1f", true);
  if (ImGui::Button("Fit")) requests.fit = true;
  ImGui::SameLine();
  if (ImGui::Button("1:1")) requests.one_to_one = true;
  return requests;
}

void shift_plot(const SequencePanelInfo& info, const ViewState& view) {
  const ImGuiIO& io = ImGui::GetIO();
  // At the picture's bottom-left corner, above the status bar.
  ImGui::SetNextWindowPos(ImVec2(scaled(10.0f), io.DisplaySize.y - status_bar_height(view.panels_hidden) - scaled(10.0f)),
                          ImGuiCond_FirstUseEver, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowSize(ImVec2(scaled(460.0f), 0.0f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  if (!ImGui::Begin("shifts")) {
    ImGui::End();
    return;
  }
  const std::vector<float>& dx = *info.dx;
  const std::vector<float>& dy = *info.dy;
  // One scale for both, symmetric about zero; frames without a shift are drawn at zero.
  float extent = 0.5f;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    if (std::isfinite(dx[i])) extent = std::max(extent, std::fabs(dx[i]));
    if (std::isfinite(dy[i])) extent = std::max(extent, std::fabs(dy[i]));
  }
  extent *= 1.1f;
  const auto plot = [&](const char* label, const std::vector<float>& values, const ImVec4& colour) {
    std::vector<float> shown(values.size());
    std::transform(values.begin(), values.end(), shown.begin(), [](float v) { return std::isfinite(v) ? v : 0.0f; });
    const bool current_known = info.frame_index >= 0 && info.frame_index < static_cast<int>(values.size()) &&
                               std::isfinite(values[static_cast<std::size_t>(info.frame_index)]);
    char overlay[64];
    if (current_known)
      std::snprintf(overlay, sizeof overlay, "%s = %+.3f px", label, values[static_cast<std::size_t>(info.frame_index)]);
    else
      std::snprintf(overlay, sizeof overlay, "%s", label);
    ImGui::PushStyleColor(ImGuiCol_PlotLines, colour);
    ImGui::PlotLines("##plot", shown.data(), static_cast<int>(shown.size()), 0, overlay, -extent, extent,
                     ImVec2(ImGui::GetContentRegionAvail().x, scaled(70.0f)));
    ImGui::PopStyleColor();
    // The current frame: a vertical line across the plot.
    if (!values.empty() && info.frame_index >= 0) {
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      const float x = lo.x + (hi.x - lo.x) * (static_cast<float>(info.frame_index) + 0.5f) / static_cast<float>(values.size());
      ImGui::GetWindowDrawList()->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), IM_COL32(255, 255, 255, 120));
    }
  };
  ImGui::PushID("dx");
  plot("dx", dx, kDxColour);
  ImGui::PopID();
  ImGui::PushID("dy");
  plot("dy", dy, kDyColour);
  ImGui::PopID();
  ImGui::TextColored(kDimColour, "shift of each frame against the first, px (+-%.2f)", extent);
  ImGui::End();
}

void sequence_overlay_contents(const SequencePanelInfo& info, const SequenceControls& c, ViewState& view,
                               const SequenceOverlayReadouts& readouts) {
  const std::vector<StageTiming>& stages = readouts.stages;
  const std::vector<StageTiming>& gl = readouts.gl;
  const double frame_ms = readouts.frame_ms;
  overlay_path_line(info.path, (std::string(to_string(info.path)) + " path, whitening on the " + info.engine).c_str(),
                    view);
  ImGui::PushTextWrapPos(view.overlay_floating ? ImGui::GetFontSize() * 30.0f : 0.0f);
  ImGui::TextColored(kDimColour, "%s", info.path_reason.c_str());
  if (info.gl) ImGui::TextColored(kDimColour, "GL: %s", info.gl->renderer.c_str());
  if (info.path != OutputPath::Cpu) ImGui::TextColored(kDimColour, "CUDA: %s", info.cuda_device.c_str());
  ImGui::TextColored(kDimColour, "%s", info.description.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Text("%d x %d  frame %d/%d  history %d  degree %d  gamma %.2g%s", info.width, info.height, info.frame_index,
              info.frame_count, c.history, c.degree, c.gamma, c.prefilter >= 0 ? "  pre-filtered" : "");
  ImGui::Text("A: the frame   B: %s  (%s)", c.show_filtered ? "pre-filtered" : "whitened", to_string(view.mode));
  if (ImGui::BeginTable("stages", 3, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("last ms");
    ImGui::TableSetupColumn("median ms");
    ImGui::TableHeadersRow();
    for (const std::vector<StageTiming>* list : {&stages, &gl})
      for (const StageTiming& stage : *list) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%s%s", list == &gl ? "GL " : "", stage.name.c_str());  // GL's upload is the texture's
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f", stage.last_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f", stage.median_ms);
      }
    ImGui::EndTable();
  }
  if (frame_ms > 0) ImGui::Text("frame %.2f ms (%.0f fps)%s", frame_ms, 1000.0 / frame_ms, c.playing ? "" : ", paused");
  if (!info.status.empty()) ImGui::TextColored(kDimColour, "%s", info.status.c_str());
}

StatusBarContent sequence_status(const StatusMessages& messages, const ViewState& view, const PictureArea& area,
                                 int width, int height) {
  StatusBarContent content;
  const TimedMessage& latest = messages.latest();
  content.message = latest.text;
  content.error = latest.error;
  content.current = messages.current() != nullptr;
  view_status(content, view, area, width, height, "");
  return content;
}

}  // namespace gausslab
