#include "panels/mode_shell.hpp"

#include <imgui.h>

#include <cstdio>
#include <string>

#include "panels/widgets.hpp"

namespace gausslab {

void menu_bar(ActionDispatcher& actions) {
  if (!ImGui::BeginMainMenuBar()) return;
  const char* current = nullptr;
  bool open = false;
  for (const Action& action : action_table()) {
    const ActionOffer offer = actions.offers() ? actions.offers()(action) : ActionOffer{true, {}, {}, false, {}};
    if (!offer.offered) continue;
    if (!current || std::string(current) != action.menu) {
      if (open) ImGui::EndMenu();
      current = action.menu;
      open = ImGui::BeginMenu(current);
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      char where[64];
      std::snprintf(where, sizeof where, " %.0f %.0f %.0f %.0f", lo.x, lo.y, hi.x, hi.y);
      actions.report(std::string("menu ") + current, std::string("menu ") + current + where);
    }
    if (!open) continue;
    const std::string& label = offer.label.empty() ? action.label : offer.label;
    const bool available = offer.unavailable.empty();
    if (ImGui::MenuItem(label.c_str(), shortcut_list(action).c_str(), offer.checked, available)) actions.queue(action);
    tooltip((offer.help.empty() ? std::string(action.help) : offer.help) +
            (available ? std::string() : "\n\ncannot run here: " + offer.unavailable));
    actions.report("menu_item " + label,
                   "menu_item " + std::string(current) + " '" + label + "' " +
                       (available ? std::string("enabled") : "greyed: " + offer.unavailable));
  }
  if (open) ImGui::EndMenu();
  ImGui::EndMainMenuBar();
}

void help_window(ActionDispatcher& actions, const char* mouse) {
  bool& open = actions.help_open();
  if (!open) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(scaled(200.0f), scaled(100.0f)), ImVec2(io.DisplaySize.x * 0.95f, io.DisplaySize.y * 0.95f));
  ImGui::SetNextWindowBgAlpha(0.95f);
  if (ImGui::Begin("help: actions and keys (? or F1 closes)", &open,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::BeginTable("help", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      for (const auto& [menu, lines] : help_sections(actions.offers())) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(kDimColour, "%s", menu.c_str());
        for (const HelpLine& line : lines) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::Text("%s", line.keys.c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(line.what.c_str());
        }
      }
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("wheel, drag");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mouse);
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

}  // namespace gausslab
