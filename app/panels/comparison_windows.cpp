// The comparison's windows besides the help: compare all (every method timed and measured on the
// worker, a sortable table; run again, export as CSV) and the folder chooser (where saves go,
// remembered between runs).
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "gausslab/core/border.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void compare_all_window(const CompareAll& compare_all, bool& open, const ViewState& view, ActionDispatcher& actions) {
  if (!open) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(scaled(20.0f), menu_height(view) + scaled(40.0f)), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(std::min(scaled(900.0f), io.DisplaySize.x - scaled(40.0f)), scaled(320.0f)), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(1.0f);
  if (!ImGui::Begin("compare all methods", &open, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const std::optional<CompareAllTable> table = compare_all.table();
  if (const std::string p = compare_all.progress(); !p.empty()) ImGui::TextColored(kDimColour, "running %s", p.c_str());
  if (ImGui::Button("run again")) actions.queue(ActionId::CompareAll);
  action_tooltip(ActionId::CompareAll);
  ImGui::SameLine();
  if (ImGui::Button("export CSV")) actions.queue(ActionId::ExportCompareAll);
  action_tooltip(ActionId::ExportCompareAll);
  if (!table) {
    ImGui::End();
    return;
  }
  ImGui::TextColored(kDimColour, "%d x %d, \u03c3 %.4g, %s; copy %.0f GB/s", table->width, table->height,
                     table->key.params.sigma, to_string(table->key.params.border), table->copy_gb_per_s);
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("compare", 7, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("method", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("separable_texture__").x);
    ImGui::TableSetupColumn("total ms", ImGuiTableColumnFlags_DefaultSort);
    ImGui::TableSetupColumn("Mpixel/s");
    ImGui::TableSetupColumn("% copy");
    ImGui::TableSetupColumn("max err (levels)");
    ImGui::TableSetupColumn("PSNR dB");
    ImGui::TableSetupColumn("stages ms", ImGuiTableColumnFlags_NoSort);
    ImGui::TableHeadersRow();
    std::vector<const CompareAllRow*> rows;
    for (const CompareAllRow& row : table->rows) rows.push_back(&row);
    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
      const int column = specs->Specs[0].ColumnIndex;
      const bool ascending = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
      const auto key = [column](const CompareAllRow* r) -> double {
        const bool ran = r->problem.empty();
        switch (column) {
          case 1: return ran ? r->total_ms : 1e300;
          case 2: return ran ? r->mpixel_per_s : -1;
          case 3: return r->copy_percent;
          case 4: return r->error ? r->error->unrounded.max_abs : 1e300;
          case 5: return r->error ? r->error->unrounded.psnr_db : -1;
          default: return 0;
        }
      };
      std::stable_sort(rows.begin(), rows.end(), [&](const CompareAllRow* x, const CompareAllRow* y) {
        if (column == 0) return ascending ? x->id < y->id : x->id > y->id;
        return ascending ? key(x) < key(y) : key(x) > key(y);
      });
    }
    for (const CompareAllRow* row : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (row->runs.empty()) {
        ImGui::Text("%s", row->id.c_str());
      } else {  // auto: what it ran, the why in the tooltip
        ImGui::Text("%s \u2192 %s", row->id.c_str(), row->runs.substr(0, row->runs.find(':')).c_str());
        tooltip(row->runs);
      }
      if (!row->problem.empty()) {
        ImGui::TableNextColumn();
        ImGui::TextColored(kDimColour, "-");
        tooltip(row->problem);
        for (int c = 0; c < 5; ++c) ImGui::TableNextColumn();
        ImGui::TextColored(kDimColour, "%s", row->problem.substr(0, 60).c_str());
        continue;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", row->total_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.0f", row->mpixel_per_s);
      ImGui::TableNextColumn();
      if (row->copy_percent >= 0) ImGui::Text("%.0f %%", row->copy_percent); else ImGui::TextColored(kDimColour, "CPU");
      ImGui::TableNextColumn();
      if (row->error) ImGui::Text("%s", figure(row->error->unrounded.max_abs).c_str()); else ImGui::TextColored(kDimColour, "...");
      ImGui::TableNextColumn();
      if (row->error) ImGui::Text("%s", figure(row->error->unrounded.psnr_db, "%.1f").c_str()); else ImGui::TextColored(kDimColour, "...");
      ImGui::TableNextColumn();
      std::string stages;
      for (const auto& [name, ms] : row->stages) stages += name + " " + figure(ms, "%.3g") + "  ";
      ImGui::TextUnformatted(stages.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

std::optional<std::string> folder_window(FolderChooser& chooser) {
  if (!chooser.open) return std::nullopt;
  ImGui::SetNextWindowSize(ImVec2(scaled(460.0f), scaled(360.0f)), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("save folder", &chooser.open, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return std::nullopt;
  }
  keep_on_screen();
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path current = fs::absolute(chooser.browsing.empty() ? "." : chooser.browsing, error).lexically_normal();
  ImGui::TextWrapped("%s", current.string().c_str());
  if (ImGui::Button("up")) chooser.browsing = current.parent_path().string();
  ImGui::SameLine();
  std::optional<std::string> chosen;
  if (ImGui::Button("use this folder")) {
    chosen = current.string();
    chooser.open = false;
  }
  ImGui::BeginChild("folders", ImVec2(0, 0), true);
  std::vector<std::string> names;
  for (fs::directory_iterator it(current, fs::directory_options::skip_permission_denied, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code type_error;
    if (it->is_directory(type_error) && it->path().filename().string()[0] != '.') names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names)
    if (ImGui::Selectable((name + "/").c_str())) chooser.browsing = (current / name).string();
  ImGui::EndChild();
  ImGui::End();
  return chosen;
}

}  // namespace gausslab
