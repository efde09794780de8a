// The side panel's timing and machine sections: each stage's time over the last frames (the timing
// graph), vsync; where the viewer runs (path, OpenGL, CUDA) and where it saves.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "comparison/auto_explanation.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void timing_panel(const TimingHistory& history, GlfwWindow* window, ActionDispatcher& actions) {
  if (window) {
    bool vsync = window->vsync();
    if (ImGui::Checkbox("vsync", &vsync)) actions.queue(ActionId::ToggleVsync);
    action_tooltip(ActionId::ToggleVsync);
  }
  ImGui::TextColored(kDimColour, "last %d frames per stage (ms)", ComparisonTiming::kHistoryFrames);
  for (const auto& [name, values] : history.series()) {
    if (values.empty()) continue;
    std::vector<float> data(values.begin(), values.end());
    const float top = *std::max_element(data.begin(), data.end());
    char overlay_text[96];
    std::snprintf(overlay_text, sizeof overlay_text, "%s  %.3f (max %.3f)", name.c_str(), data.back(), top);
    ImGui::PlotLines(("##" + name).c_str(), data.data(), static_cast<int>(data.size()), 0, overlay_text, 0.0f,
                     top * 1.1f + 1e-6f, ImVec2(ImGui::GetContentRegionAvail().x, 36));
  }
}

void machine_panel(const Comparison& comparison, const std::string& save_folder, ActionDispatcher& actions) {
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  const MachineFacts& machine = comparison.machine();
  ImGui::Text("path: %s", to_string(pipeline.path()));
  wrapped(kDimColour, pipeline.path_reason());
  ImGui::TextWrapped("OpenGL: %s (%s)", machine.gl.renderer.c_str(), machine.gl.version.c_str());
  ImGui::TextWrapped("context: %s", machine.gl.platform.c_str());
  ImGui::TextWrapped("CUDA: %s", machine.cuda.c_str());
  // Why auto runs what it runs (comparison/auto_explanation.hpp): the calibration's times, fastest first.
  const AutoExplanation why = explain_auto(comparison.settings().choices(), comparison.settings().problem(),
                                           pipeline.runs_gpu_methods());
  if (!why.headline.empty()) {
    ImGui::Separator();
    ImGui::TextWrapped("%s", why.headline.c_str());
    for (const std::string& line : why.table) ImGui::TextUnformatted(line.c_str());
    wrapped(kDimColour, why.note);
  }
  ImGui::Separator();
  ImGui::TextWrapped("saving to: %s", save_folder.empty() ? "the working folder" : save_folder.c_str());
  const auto button = [&](const char* label, ActionId id) {
    if (ImGui::Button(label)) actions.queue(id);
    action_tooltip(id);
  };
  button("choose folder...", ActionId::ChooseFolder);
  button("save A", ActionId::SaveA);
  ImGui::SameLine();
  button("save B", ActionId::SaveB);
  ImGui::SameLine();
  button("save difference", ActionId::SaveDifference);
  ImGui::SameLine();
  button("save view", ActionId::SaveView);
}

}  // namespace gausslab
