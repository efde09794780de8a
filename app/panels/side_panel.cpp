// The comparison's side panel (placed by docked_panel.hpp, as the sequence mode's): its sections
// collapsible (and opened or closed by a script), the timing overlay docked at its bottom.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "panels/comparison_panels.hpp"
#include "panels/path_badge.hpp"
#include "panels/view_input.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void cpu_path_banner(const ResultPipeline& pipeline, ActionDispatcher& actions) {
  if (pipeline.path() != OutputPath::Cpu) {
    actions.report("banner", "banner none");
    return;
  }
  const std::string text = "CPU path: " + pipeline.path_reason() + " (GPU methods greyed in the lists and menus)";
  actions.report("banner", "banner " + text);
  const Rgba8 colour = path_badge_colour(OutputPath::Cpu);
  const ImVec2 pad = ImGui::GetStyle().FramePadding;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 text_size = ImGui::CalcTextSize(text.c_str(), nullptr, false, width - 2 * pad.x);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + width, at.y + text_size.y + 2 * pad.y),
                                            IM_COL32(colour.r, colour.g, colour.b, 255), 4.0f);
  ImGui::SetCursorScreenPos(ImVec2(at.x + pad.x, at.y + pad.y));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2 * pad.x);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  ImGui::Dummy(ImVec2(0, pad.y));
}

bool section(PanelSections& sections, const char* name, bool open_by_default) {
  if (const auto it = sections.requests.find(name); it != sections.requests.end()) {
    ImGui::SetNextItemOpen(it->second);
    sections.requests.erase(it);
  }
  return ImGui::CollapsingHeader(name, open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
}

void comparison_side_panel(Comparison& comparison, ViewState& view, ComparisonPanels& panels, ActionDispatcher& actions,
                           const std::string& save_folder, GlfwWindow* window) {
  const auto sections_of_the_panel = [&] {
    cpu_path_banner(comparison.runs().pipeline(), actions);
    PanelSections& sections = panels.sections;
    if (panels.picture.focus_open_field) {  // Open (Ctrl+O): the file browser, its field focused
      panels.picture.focus_open_field = false;
      open_file_browser(panels.browser, std::filesystem::path(comparison.picture().path).parent_path().string());
    }
    if (section(sections, "picture", true)) picture_panel(comparison, panels.picture);
    if (section(sections, "slots", true)) slots_panel(comparison);
    if (section(sections, "filter", true) && filter_panel(comparison.settings().requested(), panels.filter) &&
        panels.filter.pool_asked) {
      comparison.settings().set_pool(*panels.filter.pool_asked);
      panels.filter.pool_asked.reset();
    }
    if (section(sections, "view", true)) view_panel(view, actions, panels.display_range);
    if (section(sections, "numbers", true)) numbers_panel(comparison, actions);
    if (section(sections, "timing", false)) timing_panel(comparison.timing().history(), window, actions);
    if (section(sections, "machine", false)) machine_panel(comparison, save_folder, actions);
    if (section(sections, "keys", false)) {
      ImGui::TextWrapped("Every action is in the menu with its key; ? or F1 shows them all.");
      if (ImGui::Button("help (? or F1)")) actions.help_open() = true;
    }
  };
  docked_side_panel(view, panels.docked_overlay_height, sections_of_the_panel,
                    [&] { overlay_contents(comparison, view, panels.timed_run); });
  if (const std::optional<std::string> path = file_browser_window(panels.browser)) comparison.open_file(*path);
}

StatusBarContent comparison_status(const Comparison& comparison, const ViewState& view, const PictureArea& area,
                                   const std::string& display_range) {
  StatusBarContent content;
  const TimedMessage& latest = comparison.messages().latest();
  content.message = latest.text;
  content.error = latest.error;
  content.current = comparison.messages().current() != nullptr;
  content.progress = progress(comparison);
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  view_status(content, view, area, pipeline.width(), pipeline.height(), display_range);
  return content;
}

}  // namespace gausslab
