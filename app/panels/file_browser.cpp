#include "panels/file_browser.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "panels/widgets.hpp"

namespace gausslab {

namespace {

bool contains_ignoring_case(const std::string& text, const std::string& part) {
  const auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

void go_to(FileBrowser& browser, const std::string& folder) {
  browser.listing = list_folder(folder);
  browser.folder = browser.listing.folder;
  browser.field.clear();
  browser.selected = -1;
  browser.focus_field = true;
}

// The entries the field lets through: all of them, or those whose name holds the field's text
// (a field with a '/' is a path, not a filter).
std::vector<const FolderEntry*> shown_entries(const FileBrowser& browser) {
  std::vector<const FolderEntry*> shown;
  const bool filter = !browser.field.empty() && browser.field.find('/') == std::string::npos;
  for (const FolderEntry& entry : browser.listing.entries)
    if (!filter || contains_ignoring_case(entry.name, browser.field)) shown.push_back(&entry);
  return shown;
}

}  // namespace

void open_file_browser(FileBrowser& browser, const std::string& folder) {
  browser.open = true;
  go_to(browser, folder.empty() ? std::string(".") : folder);
}

std::optional<std::string> file_browser_window(FileBrowser& browser) {
  if (!browser.open) return std::nullopt;
  namespace fs = std::filesystem;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(scaled(560.0f), io.DisplaySize.x * 0.9f), std::min(scaled(420.0f), io.DisplaySize.y * 0.8f)),
                           ImGuiCond_Appearing);
  if (!ImGui::Begin("open an image (Enter opens, Backspace goes up, Esc closes)", &browser.open,
                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return std::nullopt;
  }
  keep_on_screen();
  std::optional<std::string> chosen;
  std::optional<std::string> go;  // a folder to list next
  ImGui::TextWrapped("%s", browser.folder.c_str());
  if (ImGui::Button("up")) go = parent_folder(browser.folder);
  tooltip("The folder above (Backspace in an empty field).");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1.0f);
  if (browser.focus_field) {
    ImGui::SetKeyboardFocusHere();
    browser.focus_field = false;
  }
  const bool enter = ImGui::InputTextWithHint("##path", "a name to filter by, or a path to open", &browser.field,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  const bool field_active = ImGui::IsItemActive();
  if (enter) browser.focus_field = true;  // Enter takes the focus away: give it back
  const std::vector<const FolderEntry*> shown = shown_entries(browser);
  const int count = static_cast<int>(shown.size());
  if (field_active || ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow)) && count > 0)
      browser.selected = std::min(browser.selected + 1, count - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow)) && count > 0)
      browser.selected = std::max(browser.selected - 1, 0);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Backspace)) && browser.field.empty() && !enter)
      go = parent_folder(browser.folder);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) browser.open = false;
  }
  browser.selected = std::min(browser.selected, count - 1);
  const auto take = [&](const FolderEntry& entry) {
    const std::string path = (fs::path(browser.folder) / entry.name).string();
    if (entry.folder)
      go = path;
    else
      chosen = path;
  };
  if (enter) {
    if (browser.selected >= 0) {
      take(*shown[static_cast<std::size_t>(browser.selected)]);
    } else if (!browser.field.empty()) {
      // A typed path: as typed when it is there (from the current folder, as the picture section's
      // Open field takes it), else in the listed folder; one that is in neither is opened as typed,
      // so that the message names it as the user wrote it.
      std::error_code error;
      const fs::path typed(browser.field);
      const fs::path here = fs::path(browser.folder) / typed;
      const fs::path path = fs::exists(typed, error) || !typed.is_relative() || !fs::exists(here, error) ? typed : here;
      if (fs::is_directory(path, error))
        go = path.string();
      else
        chosen = path.string();
    }
  }
  if (!browser.listing.error.empty()) wrapped(kErrorColour, browser.listing.error);
  ImGui::BeginChild("entries", ImVec2(0, 0), true);
  for (int i = 0; i < count; ++i) {
    const FolderEntry& entry = *shown[static_cast<std::size_t>(i)];
    const std::string label = entry.folder ? entry.name + "/" : entry.name;
    if (ImGui::Selectable(label.c_str(), i == browser.selected, ImGuiSelectableFlags_AllowDoubleClick)) {
      browser.selected = i;
      browser.focus_field = true;  // the keys stay with the browser, not the viewer's shortcuts
      if (ImGui::IsMouseDoubleClicked(0)) take(entry);
    }
    if (i == browser.selected && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow)) ||
                                  ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))))
      ImGui::SetScrollHereY();
  }
  if (count == 0) ImGui::TextColored(kDimColour, browser.field.empty() ? "no folders or images here" : "nothing matches");
  ImGui::EndChild();
  ImGui::End();
  if (go) go_to(browser, *go);
  if (chosen) browser.open = false;
  return chosen;
}

}  // namespace gausslab
