// The reference slot's ways in (comparison/reference_file.hpp): the Slots menu's "A: image file..."
// and "B: image file..." (a small window with a path field; a refusal, a file the readers refuse or
// of another size, stays in it with the reason, the slot keeping what it had), and a dropped file.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void reference_file_window(Comparison& comparison, ReferenceFileField& field) {
  if (!field.open) return;
  ImGui::SetNextWindowSize(ImVec2(scaled(520.0f), 0.0f), ImGuiCond_Always);
  const char* title = field.slot == 0 ? "A: image file###reference file" : "B: image file###reference file";
  if (!ImGui::Begin(title, &field.open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  ImGui::TextWrapped("An image file of the picture's size (%d x %d), of any type the readers take; it is compared "
                     "as its own samples and reloaded when it changes.",
                     comparison.picture().processed->width(), comparison.picture().processed->height());
  if (field.focus) {
    ImGui::SetKeyboardFocusHere();
    field.focus = false;
  }
  ImGui::SetNextItemWidth(-scaled(80.0f));
  const bool enter = ImGui::InputTextWithHint("##reference path", "path of an image file", &field.path,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("use") || enter) && !field.path.empty()) {
    field.refusal = comparison.set_slot_file(field.slot, field.path);
    if (field.refusal.empty()) field.open = false;
  }
  if (!field.refusal.empty()) wrapped(kErrorColour, field.refusal);
  ImGui::End();
}

void drop_file(Comparison& comparison, const ViewState& view, const PictureArea& area, const std::string& path) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyShift) {
    comparison.open_file(path);
    return;
  }
  int slot = 1;
  if (view.mode == CompareMode::Split) {
    const float x = io.MousePos.x * io.DisplayFramebufferScale.x;  // the area is in framebuffer pixels
    const bool left = x < area.x + static_cast<float>(view.split_fraction * area.width);
    slot = left != view.blink_swapped ? 0 : 1;
  }
  comparison.set_slot_file(slot, path);
}

}  // namespace gausslab
