// The side panel's slots section: what A and B hold (a method of the list, greyed with the reason
// when it cannot run here, the original picture or the exact Gaussian), and each slot's state (its
// refusal, a CPU run in progress, a sliced run's progress, the exact Gaussian's).
#include <imgui.h>

#include <cstdio>
#include <utility>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

// The list of a slot; true when `choice` changed.
bool slot_combo(const char* label, const MethodChoices& choices, int& choice, bool allow_exact) {
  bool changed = false;
  if (!ImGui::BeginCombo(label, choices.label(choice).c_str())) return false;
  if (ImGui::Selectable("original picture", choice == kOriginalPicture)) {
    changed = choice != kOriginalPicture;
    choice = kOriginalPicture;
  }
  if (allow_exact && ImGui::Selectable("exact Gaussian (float64)", choice == kExactGaussian)) {
    changed = choice != kExactGaussian;
    choice = kExactGaussian;
  }
  tooltip("The float64 reference (core's direct convolution), computed in the background on all cores.");
  for (std::size_t i = 0; i < choices.list().size(); ++i) {
    const MethodChoice& method = choices.list()[i];
    char item[200];
    std::snprintf(item, sizeof item, "%s%s  %s", i < 9 ? std::to_string(i + 1).c_str() : "  ", method.gpu ? "" : " (CPU)",
                  method.label.c_str());
    if (ImGui::Selectable(item, choice == static_cast<int>(i), method.blocked.empty() ? 0 : ImGuiSelectableFlags_Disabled)) {
      changed = choice != static_cast<int>(i);
      choice = static_cast<int>(i);
    }
    tooltip(method.label + " (" + method.id + ")\n" + method.summary +
            (method.accuracy.empty() ? "" : "\npromised: " + method.accuracy) +
            (method.blocked.empty() ? "" : "\n\ncannot run: " + method.blocked));
  }
  ImGui::EndCombo();
  return changed;
}

}  // namespace

void slots_panel(Comparison& comparison) {
  ComparisonSettings& settings = comparison.settings();
  const MethodChoices& choices = settings.choices();
  const ExactReference& exact = comparison.work().exact();
  for (int i = 0; i < 2; ++i) {
    const SlotLane& lane = comparison.runs().lane(i);
    int picked = i == 0 ? settings.requested().method_a : settings.requested().method_b;
    if (slot_combo(lane.name(), choices, picked, true)) settings.select(i, picked);
    tooltip(i == 0 ? "Slot A: keys 1-9 (methods beyond 9: in this list only); Shift+E: exact"
                   : "Slot B: Shift+1-9 (methods beyond 9: in this list only); O: original, E: exact");
    const Slot& s = lane.slot;
    if (!s.problem().empty()) wrapped(kErrorColour, std::string(lane.name()) + ": " + s.problem());
    if (comparison.runs().cpu_runner().busy(i))
      ImGui::TextColored(kDimColour, "%s running on the CPU: %.1f s (the picture shows the last result)",
                         choices.id(s.wanted().method).c_str(), comparison.runs().cpu_runner().running_seconds(i));
    if (const std::string sliced = lane.slicer.progress(); !sliced.empty()) {
      ImGui::ProgressBar(lane.slicer.fraction_done(), ImVec2(-1, 0), sliced.c_str());
      tooltip("A slow GPU method runs in slices of about 2 ms a frame; the picture shows the last finished result");
    } else if (const std::string note = lane.slicer.note(); !note.empty()) {
      ImGui::TextColored(kDimColour, "%s", note.c_str());
    }
    if (s.wanted().method == kExactGaussian) {
      if (std::optional<double> p = exact.progress(exact_key(comparison))) {
        ImGui::ProgressBar(static_cast<float>(*p), ImVec2(-1, 0), "exact Gaussian");
      } else if (!exact.error().empty()) {
        wrapped(kErrorColour, exact.error());
      }
    }
  }
  if (ImGui::Button("swap A and B")) std::swap(settings.requested().method_a, settings.requested().method_b);
  action_tooltip(ActionId::SwapSlots);
}

}  // namespace gausslab
