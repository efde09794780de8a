#include "panels.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <cmath>
#include <cstdio>

#include "gausslab/core/border.hpp"
#include "keyboard.hpp"
#include "viewer_options.hpp"

namespace gausslab {

namespace {

struct SizePreset {
  const char* label;
  int width, height;
};
constexpr SizePreset kSizePresets[] = {
    {"1280 x 720", 1280, 720}, {"1920 x 1080", 1920, 1080}, {"3840 x 2160", 3840, 2160}, {"4096 x 4096", 4096, 4096}};

const ImVec4 kErrorColour(1.0f, 0.45f, 0.4f, 1.0f);
const ImVec4 kGoodColour(0.5f, 0.9f, 0.5f, 1.0f);
const ImVec4 kDimColour(0.65f, 0.65f, 0.65f, 1.0f);

void tooltip(const std::string& text) {
  if (!text.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

std::string method_tooltip(const MethodChoice& choice) {
  std::string text = choice.label + " (" + choice.id + ")\n" + choice.summary;
  if (!choice.accuracy.empty()) text += "\naccuracy: " + choice.accuracy;
  if (!choice.blocked.empty()) text += "\n\ncannot run: " + choice.blocked;
  return text;
}

// A combo over the registry; greyed entries cannot be chosen. `extra` adds a first entry (index
// extra_index) such as "original picture". Returns true when the selection changed.
bool method_combo(const char* label, int& selected, const std::vector<MethodChoice>& methods, const char* extra = nullptr,
                  int extra_index = -1) {
  bool changed = false;
  std::string preview = selected == extra_index && extra ? extra
                        : selected >= 0 && selected < static_cast<int>(methods.size())
                            ? methods[static_cast<std::size_t>(selected)].label
                            : "?";
  const bool open = ImGui::BeginCombo(label, preview.c_str());
  if (open) {
    if (extra && ImGui::Selectable(extra, selected == extra_index)) {
      changed = selected != extra_index;
      selected = extra_index;
    }
    for (std::size_t i = 0; i < methods.size(); ++i) {
      const MethodChoice& choice = methods[i];
      char item[160];
      std::snprintf(item, sizeof item, "%s%zu  %s", i < 9 ? "" : " ", i + 1, choice.label.c_str());
      const bool blocked = !choice.blocked.empty();
      if (ImGui::Selectable(item, selected == static_cast<int>(i), blocked ? ImGuiSelectableFlags_Disabled : 0)) {
        changed = selected != static_cast<int>(i);
        selected = static_cast<int>(i);
      }
      tooltip(method_tooltip(choice));
    }
    ImGui::EndCombo();
  }
  if (!open && selected >= 0 && selected < static_cast<int>(methods.size()))  // the closed combo's own tooltip
    tooltip(method_tooltip(methods[static_cast<std::size_t>(selected)]));
  return changed;
}

// A titled separator (ImGui 1.86 has no SeparatorText).
void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(kDimColour, "%s", title);
  ImGui::Separator();
}

const char* display_label(CompareMode mode) {
  switch (mode) {
    case CompareMode::A: return "A";
    case CompareMode::B: return "B";
    case CompareMode::Split: return "split A|B";
    case CompareMode::Difference: return "|A-B| x gain";
    default: return "?";
  }
}

}  // namespace

PanelRequests control_panel(FilterState& filter, ViewState& view, PanelScratch& scratch, const PanelInfo& info) {
  PanelRequests requests;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 10.0f, 10.0f), ImGuiCond_FirstUseEver, ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowSize(ImVec2(380.0f, 0.0f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.92f);
  if (!ImGui::Begin("gausslab")) {
    ImGui::End();
    return requests;
  }
  const std::vector<MethodChoice>& methods = *info.methods;

  // --- picture ---
  ImGui::TextWrapped("%s (%d x %d)", info.image_name.c_str(), info.original_width, info.original_height);
  ImGui::SetNextItemWidth(-70.0f);
  const bool enter = ImGui::InputTextWithHint("##open", "path of an image, or drop a file", &scratch.open_path,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !scratch.open_path.empty()) requests.open_path = scratch.open_path;
  if (!info.load_error.empty()) ImGui::TextColored(kErrorColour, "%s", info.load_error.c_str());

  char size_preview[64];
  if (filter.original_size)
    std::snprintf(size_preview, sizeof size_preview, "original (%d x %d)", info.original_width, info.original_height);
  else
    std::snprintf(size_preview, sizeof size_preview, "%d x %d (resampled)", filter.width, filter.height);
  const bool size_open = ImGui::BeginCombo("size", size_preview);
  if (size_open) {
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
  }
  if (!size_open) tooltip("The picture is resampled once to this size, so the timings show what a method costs at it.");
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputInt2("##custom", &scratch.custom_width);
  ImGui::SameLine();
  if (ImGui::Button("custom size")) {
    if (scratch.custom_width >= 1 && scratch.custom_height >= 1 && scratch.custom_width <= 65536 &&
        scratch.custom_height <= 65536) {
      filter.original_size = false;
      filter.width = scratch.custom_width;
      filter.height = scratch.custom_height;
    }
  }
  tooltip("Resample to width x height (1 to 65536 each).");

  // --- methods and parameters ---
  section("filter");
  method_combo("method A", filter.method_a, methods);
  if (!info.method_a_problem.empty()) ImGui::TextColored(kErrorColour, "A: %s", info.method_a_problem.c_str());

  ImGui::SetNextItemWidth(-90.0f);
  double sigma = filter.params.sigma;
  const double sigma_min = kMinSigma, sigma_max = kMaxSigma;
  if (ImGui::SliderScalar("sigma", ImGuiDataType_Double, &sigma, &sigma_min, &sigma_max, "%.3g px",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    filter.params.sigma = sigma;
  tooltip("Gaussian sigma in pixels (= and - step 0.1, + and _ step 1). Ctrl+click to type a value.");
  ImGui::SetNextItemWidth(-90.0f);
  double truncate = filter.params.truncate;
  const double truncate_min = kMinTruncate, truncate_max = kMaxTruncate;
  if (ImGui::SliderScalar("truncate", ImGuiDataType_Double, &truncate, &truncate_min, &truncate_max, "%.2f",
                          ImGuiSliderFlags_AlwaysClamp))
    filter.params.truncate = truncate;
  tooltip("radius = floor(truncate x sigma + 0.5), as SciPy (default 4).");
  ImGui::TextColored(kDimColour, "radius %d (%d taps per pass)", filter.params.radius(), filter.params.taps());

  if (ImGui::BeginCombo("border", to_string(filter.params.border))) {
    for (BorderMode mode : kAllBorderModes) {
      if (ImGui::Selectable(to_string(mode), filter.params.border == mode)) filter.params.border = mode;
      tooltip(describe(mode));
    }
    ImGui::EndCombo();
  } else {
    tooltip(describe(filter.params.border));
  }
  ImGui::Checkbox("continuous processing (Space)", &filter.continuous);
  tooltip("On: the method runs every frame (timings stay live). Off: only when something changes.");

  // --- comparison and view ---
  section("view");
  for (int i = 0; i < static_cast<int>(CompareMode::Count); ++i) {
    if (i > 0) ImGui::SameLine();
    if (ImGui::RadioButton(display_label(static_cast<CompareMode>(i)), view.mode == static_cast<CompareMode>(i)))
      view.mode = static_cast<CompareMode>(i);
  }
  method_combo("method B", filter.method_b, methods, "original picture", kOriginalPicture);
  if (!info.method_b_problem.empty() && view.mode != CompareMode::A)
    ImGui::TextColored(kErrorColour, "B: %s", info.method_b_problem.c_str());
  if (view.mode == CompareMode::Difference) {
    ImGui::SetNextItemWidth(-90.0f);
    float gain = static_cast<float>(view.gain);
    if (ImGui::SliderFloat("gain", &gain, 1.0f, 1024.0f, "x%.0f", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
      view.gain = gain;
  }
  if (ImGui::RadioButton("linear", view.sampling == Sampling::Linear)) view.sampling = Sampling::Linear;
  ImGui::SameLine();
  if (ImGui::RadioButton("nearest", view.sampling == Sampling::Nearest)) view.sampling = Sampling::Nearest;
  ImGui::SameLine();
  if (ImGui::Button("fit")) requests.fit = true;
  ImGui::SameLine();
  if (ImGui::Button("1:1")) requests.one_to_one = true;
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%.0f%%", view.transform.zoom * 100.0);

  // --- output ---
  section("result");
  if (ImGui::Button("save result (Ctrl+S)")) requests.save_result = true;
  tooltip("Saves the full-resolution result A as PNG in the current folder; never overwrites a file.");
  if (!info.status.empty()) ImGui::TextWrapped("%s", info.status.c_str());
  ImGui::TextColored(info.accuracy_ok ? kGoodColour : kErrorColour, "%s", info.accuracy_text.c_str());

  ImGui::Text("path: %s", to_string(info.path));
  tooltip(info.path_reason);
  ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
  ImGui::TextWrapped("%s", info.path_reason.c_str());
  ImGui::PopStyleColor();
  if (ImGui::CollapsingHeader("machine")) {
    ImGui::TextWrapped("OpenGL: %s (%s)", info.gl->renderer.c_str(), info.gl->version.c_str());
    ImGui::TextWrapped("context: %s", info.gl->platform.c_str());
    ImGui::TextWrapped("CUDA: %s", info.cuda_device.c_str());
  }
  if (ImGui::CollapsingHeader("keys")) {
    for (const auto& [key, what] : key_help()) {
      ImGui::TextColored(kDimColour, "%s", key);
      ImGui::SameLine(90.0f);
      ImGui::TextWrapped("%s", what);
    }
  }
  ImGui::End();
  return requests;
}

void timing_overlay(const PanelInfo& info, const FilterState& filter, const ViewState& view,
                    const OverlayTimings& timings) {
  ImGui::SetNextWindowPos(ImVec2(10.0f, 10.0f), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.72f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;
  if (!ImGui::Begin("##timings", nullptr, flags)) {
    ImGui::End();
    return;
  }
  // The path badge: a solid square in the path's colour.
  const Rgba8 badge = path_badge_colour(info.path);
  const ImVec2 corner = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(
      corner, ImVec2(corner.x + kPathBadgeSide, corner.y + kPathBadgeSide), IM_COL32(badge.r, badge.g, badge.b, 255));
  ImGui::Dummy(ImVec2(static_cast<float>(kPathBadgeSide), static_cast<float>(kPathBadgeSide)));
  ImGui::SameLine();
  ImGui::Text("%s path", to_string(info.path));
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
  ImGui::TextColored(kDimColour, "%s", info.path_reason.c_str());
  ImGui::TextColored(kDimColour, "GL: %s", info.gl->renderer.c_str());
  if (info.path != OutputPath::Cpu || info.cuda_device != info.path_reason)  // the cpu reason already says it
    ImGui::TextColored(kDimColour, "CUDA: %s", info.cuda_device.c_str());
  ImGui::PopTextWrapPos();

  const std::vector<MethodChoice>& methods = *info.methods;
  const auto label = [&](int index) {
    return index >= 0 && index < static_cast<int>(methods.size()) ? methods[static_cast<std::size_t>(index)].id
                                                                   : std::string("original");
  };
  ImGui::Text("%d x %d  %s  sigma %.3g  radius %d  %s", info.width, info.height, label(filter.method_a).c_str(),
              filter.params.sigma, filter.params.radius(), to_string(filter.params.border));
  if (view.mode != CompareMode::A) ImGui::Text("B: %s  (%s)", label(filter.method_b).c_str(), to_string(view.mode));
  if (!info.method_a_problem.empty()) ImGui::TextColored(kErrorColour, "A not updated: %s", info.method_a_problem.c_str());

  if (ImGui::BeginTable("stages", 3, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("last ms");
    ImGui::TableSetupColumn("median ms");
    ImGui::TableHeadersRow();
    const auto rows = [](const std::vector<StageTiming>& stages, const char* prefix) {
      for (const StageTiming& stage : stages) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%s%s", prefix, stage.name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f", stage.last_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f", stage.median_ms);
      }
    };
    rows(timings.a, "");
    rows(timings.b, "B ");
    rows(timings.gl, "");
    ImGui::EndTable();
  }
  if (timings.frame_ms > 0)
    ImGui::Text("frame %.2f ms (%.0f fps)%s", timings.frame_ms, 1000.0 / timings.frame_ms,
                filter.continuous || info.automated ? "" : ", processing on change");
  if (timings.method_ms > 0)
    ImGui::Text("method A %.1f Mpixel/s", static_cast<double>(info.width) * info.height / (timings.method_ms * 1e3));
  ImGui::TextColored(info.accuracy_ok ? kGoodColour : kErrorColour, "%s", info.accuracy_text.c_str());
  ImGui::End();
}

}  // namespace gausslab
