// The side panel's picture section: the file shown (open one by path; a drop on the window does the
// same), and the size it is processed at (resampled once, so that the timings show a method's cost
// at that size).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

struct SizePreset {
  const char* label;
  int width, height;
};
constexpr SizePreset kSizePresets[] = {
    {"1280 x 720", 1280, 720}, {"1920 x 1080", 1920, 1080}, {"3840 x 2160", 3840, 2160}, {"4096 x 4096", 4096, 4096}};

}  // namespace

void picture_panel(Comparison& comparison, PicturePanelState& state) {
  const ComparisonPicture& picture = comparison.picture();
  FilterState& filter = comparison.settings().requested();
  ImGui::TextWrapped("%s (%d x %d)", picture.name.c_str(), picture.original.width(), picture.original.height());
  if (picture.levels)
    ImGui::TextColored(kDimColour, picture.processed_levels ? "%s: measured and shown as stored (8 bits until the numbers are in)"
                                                            : "%s: resampled, so measured in 8 bits",
                       picture.levels->type.c_str());
  ImGui::SetNextItemWidth(-scaled(130.0f));
  const bool enter = ImGui::InputTextWithHint("##open", "path of an image, or drop a file", &state.open_path,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !state.open_path.empty()) comparison.open_file(state.open_path);
  tooltip("Open the path typed on the left (or drop a file on the window).");
  ImGui::SameLine();
  if (ImGui::Button("browse...")) state.focus_open_field = true;  // the side panel opens the browser
  action_tooltip(ActionId::Open);
  if (!picture.load_error.empty()) {
    wrapped(kErrorColour, picture.load_error);
    if (ImGui::SmallButton("dismiss")) comparison.dismiss_load_error();
  }
  char preview[64];
  if (filter.original_size)
    std::snprintf(preview, sizeof preview, "original (%d x %d)", picture.original.width(), picture.original.height());
  else
    std::snprintf(preview, sizeof preview, "%d x %d (resampled)", filter.width, filter.height);
  const bool open = ImGui::BeginCombo("size", preview);
  if (open) {
    if (ImGui::Selectable("original", filter.original_size)) filter.original_size = true;
    for (const SizePreset& preset : kSizePresets) {
      const bool current = !filter.original_size && filter.width == preset.width && filter.height == preset.height;
      if (ImGui::Selectable(preset.label, current)) {
        filter.original_size = false;
        filter.width = preset.width;
        filter.height = preset.height;
      }
    }
    ImGui::EndCombo();
  } else {
    tooltip("The picture is resampled once to this size, so the timings show what a method costs at it.");
  }
  ImGui::SetNextItemWidth(scaled(150.0f));
  ImGui::InputInt2("##custom", state.custom_size);
  ImGui::SameLine();
  if (ImGui::Button("custom size")) {
    const int w = state.custom_size[0], h = state.custom_size[1];
    if (w < 1 || h < 1 || w > 65536 || h > 65536 || static_cast<long long>(w) * h > kMaxPixels) {
      comparison.messages().say("a custom size must be 1 to 65536 on each side and at most " +
                                    std::to_string(kMaxPixels) + " pixels; " + std::to_string(w) + " x " +
                                    std::to_string(h) + " is not applied",
                                true);
    } else {
      filter.original_size = false;
      filter.width = w;
      filter.height = h;
    }
  }
  tooltip("Resample to width x height (1 to 65536 each).");
}

}  // namespace gausslab
