// The comparison's layout and its side panel: the menu bar at the top, the status bar at the bottom
// (status_bar.hpp), the side panel docked at the right between them, resizable by its left edge
// (view_input.cpp), its sections collapsible (and opened or closed by a script), the timing overlay
// docked at its bottom; the picture gets the rest, so that nothing of ours covers it by default. Tab
// hides the menu, the panel, the overlay and the status bar.
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

float menu_height(const ViewState& view) { return view.panels_hidden ? 0.0f : ImGui::GetFrameHeight(); }

PictureArea comparison_layout(ViewState& view, int surface_width, int surface_height) {
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  // HiDPI: the panel grows with the text (the content scale changed: imgui_session.hpp).
  if (const float s = ui_scale(); s != view.panel_scale) {
    view.panel_width *= s / view.panel_scale;
    view.panel_scale = s;
  }
  // The panel never takes more than 70 % of the window, nor less than what its widgets need.
  const float narrowest = kNarrowestPanel * ui_scale();
  view.panel_width = std::clamp(view.panel_width, narrowest, std::max(narrowest, io.DisplaySize.x * 0.7f));
  const float panel = view.panels_hidden ? 0.0f : std::min(view.panel_width, io.DisplaySize.x * 0.7f);
  PictureArea area;
  area.x = 0;
  area.y = static_cast<int>(menu_height(view) * scale);
  area.width = std::max(0, surface_width - static_cast<int>(panel * scale));
  area.height = std::max(0, surface_height - area.y - static_cast<int>(status_bar_height(view.panels_hidden) * scale));
  return area;
}

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
  const ImGuiIO& io = ImGui::GetIO();
  const float width = std::min(view.panel_width, io.DisplaySize.x * 0.7f);
  const float top = menu_height(view);
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - width, top), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, std::max(50.0f, io.DisplaySize.y - top - status_bar_height(view.panels_hidden))),
                           ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("##panel", nullptr, flags)) {
    cpu_path_banner(comparison.runs().pipeline(), actions);
    // The sections scroll in a child above the docked overlay, so that the overlay growing or
    // shrinking (a B with stages or without, the numbers coming in) never moves their widgets; its
    // height is last frame's (measured below).
    const bool docked = !view.overlay_hidden && !view.overlay_floating;
    ImGui::BeginChild("##sections", ImVec2(0.0f, docked ? -panels.docked_overlay_height : 0.0f));
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
    ImGui::EndChild();
    if (docked) {
      const float top = ImGui::GetCursorPosY();
      ImGui::Separator();
      overlay_contents(comparison, view, panels.timed_run);
      panels.docked_overlay_height = ImGui::GetCursorPosY() - top + ImGui::GetStyle().ItemSpacing.y;
    }
  }
  ImGui::End();
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
  content.zoom = view.transform.zoom;
  content.sampling = sampling_at(view.sampling, view.transform.zoom);
  if (view.mode != CompareMode::Difference) content.display = describe(view.display, display_range);
  const Vec2 mouse = mouse_in_picture(area);
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  if (!ImGui::GetIO().WantCaptureMouse && mouse.x >= 0 && mouse.y >= 0 && mouse.x < area.width && mouse.y < area.height) {
    const Vec2 p = screen_to_image(view.transform, mouse, area.width, area.height);
    if (p.x >= 0 && p.y >= 0 && p.x < pipeline.width() && p.y < pipeline.height()) content.pixel = p;
  }
  return content;
}

}  // namespace gausslab
