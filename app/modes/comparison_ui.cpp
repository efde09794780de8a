// What the comparison draws with Dear ImGui: the menu bar and the side panel (docked beside the
// picture, resizable by its left edge, sections collapsible, Tab hides everything), the timing
// overlay, the help (from the action table), compare-all, the folder chooser, the inspector, the
// split labels and the difference legend. Panels read and edit the mode's state; actions are queued.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "modes/comparison_mode.hpp"
#include "panels/mode_shell.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "comparison/save_folder.hpp"

namespace gausslab {

namespace {

const ImVec4 kErrorColour(1.0f, 0.45f, 0.4f, 1.0f);
const ImVec4 kGoodColour(0.5f, 0.9f, 0.5f, 1.0f);
const ImVec4 kDimColour(0.65f, 0.65f, 0.65f, 1.0f);

struct SizePreset {
  const char* label;
  int width, height;
};
constexpr SizePreset kSizePresets[] = {
    {"1280 x 720", 1280, 720}, {"1920 x 1080", 1920, 1080}, {"3840 x 2160", 3840, 2160}, {"4096 x 4096", 4096, 4096}};

void tooltip(const std::string& text) {
  if (!text.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// A tooltip that names the action's shortcut (the action table is the one source).
void action_tooltip(ActionId id) {
  const Action& action = first_action(id);
  const std::string keys = shortcut_list(action);
  tooltip(std::string(action.help) + (keys.empty() ? "" : "  [" + keys + "]"));
}

void wrapped(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// Keeps the current window inside the display (a window that shrinks must not lose it).
void keep_on_screen() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImVec2 pos = ImGui::GetWindowPos();
  const ImVec2 size = ImGui::GetWindowSize();
  const ImVec2 clamped(std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - std::min(size.x, display.x))),
                       std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - std::min(size.y, display.y))));
  if (clamped.x != pos.x || clamped.y != pos.y) ImGui::SetWindowPos(clamped);
}

std::string figure(double value, const char* format = "%.4g") {
  if (std::isinf(value)) return "inf";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

void difference_lines(const char* title, const std::optional<DifferenceStats>& stats, const char* waiting) {
  if (!stats) {
    ImGui::TextColored(kDimColour, "%s: %s", title, waiting);
    return;
  }
  static const char kChannels[] = "rgba";
  const DifferenceFigures& u = stats->unrounded;
  const DifferenceFigures& r = stats->rounded;
  ImGui::Text("%s", title);
  ImGui::Indent();
  if (stats->identical()) {
    ImGui::TextColored(kGoodColour, "identical (max |A-B| = 0 before rounding)");
  } else {
    ImGui::Text("max |diff| %s levels at (%d, %d, %c)", figure(u.max_abs).c_str(), u.max_x, u.max_y,
                u.max_channel >= 0 ? kChannels[u.max_channel] : '?');
    ImGui::Text("mean %s  RMS %s  PSNR %s dB", figure(u.mean_abs).c_str(), figure(u.rms).c_str(),
                figure(u.psnr_db, "%.1f").c_str());
    wrapped(kDimColour, "after rounding to 8 bits: max " + figure(r.max_abs) + ", mean " + figure(r.mean_abs) + ", PSNR " +
                            figure(r.psnr_db, "%.1f") + " dB");
  }
  if (stats->nonfinite > 0) ImGui::TextColored(kErrorColour, "%llu samples are NaN or infinite", stats->nonfinite);
  ImGui::Unindent();
}

}  // namespace

bool ComparisonMode::section(const char* name, bool open_by_default) {
  if (const auto it = section_requests_.find(name); it != section_requests_.end()) {
    ImGui::SetNextItemOpen(it->second);
    section_requests_.erase(it);
  }
  return ImGui::CollapsingHeader(name, open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
}

void ComparisonMode::layout(FrameContext& frame) {
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  menu_height_ = view_.panels_hidden ? 0.0f : ImGui::GetFrameHeight();
  // The panel never takes more than 70 % of the window, nor less than what its widgets need.
  view_.panel_width = std::clamp(view_.panel_width, 240.0f, std::max(240.0f, io.DisplaySize.x * 0.7f));
  const float panel = view_.panels_hidden ? 0.0f : std::min(view_.panel_width, io.DisplaySize.x * 0.7f);
  area_.x = 0;
  area_.y = static_cast<int>(menu_height_ * scale);
  area_.width = std::max(0, frame.surface.width() - static_cast<int>(panel * scale));
  area_.height = std::max(0, frame.surface.height() - area_.y);
}

bool ComparisonMode::slot_combo(const char* label, int& choice, bool allow_exact) {
  bool changed = false;
  const bool open = ImGui::BeginCombo(label, slot_label(choice).c_str());
  if (open) {
    if (ImGui::Selectable("original picture", choice == kOriginalPicture)) {
      changed = choice != kOriginalPicture;
      choice = kOriginalPicture;
    }
    if (allow_exact && ImGui::Selectable("exact Gaussian (float64)", choice == kExactGaussian)) {
      changed = choice != kExactGaussian;
      choice = kExactGaussian;
    }
    tooltip("The float64 reference (core's direct convolution), computed in the background on all cores.");
    for (std::size_t i = 0; i < choices_.size(); ++i) {
      const MethodChoice& method = choices_[i];
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
  }
  return changed;
}

void ComparisonMode::side_panel(FrameContext& frame) {
  const ImGuiIO& io = ImGui::GetIO();
  const float width = std::min(view_.panel_width, io.DisplaySize.x * 0.7f);
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - width, menu_height_), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, std::max(50.0f, io.DisplaySize.y - menu_height_)), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("##panel", nullptr, flags)) {
    picture_section();
    slots_section();
    filter_section();
    view_section();
    numbers_section();
    timing_section(frame);
    machine_section();
    if (section("keys", false)) {
      ImGui::TextWrapped("Every action is in the menu with its key; ? or F1 shows them all.");
      if (ImGui::Button("help (? or F1)")) actions_.help_open() = true;
    }
  }
  ImGui::End();
}

void ComparisonMode::picture_section() {
  if (!section("picture", true)) return;
  ImGui::TextWrapped("%s (%d x %d)", image_name_.c_str(), original_.width(), original_.height());
  ImGui::SetNextItemWidth(-70.0f);
  if (focus_open_field_) {
    ImGui::SetKeyboardFocusHere();
    focus_open_field_ = false;
  }
  const bool enter = ImGui::InputTextWithHint("##open", "path of an image, or drop a file", &open_path_,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !open_path_.empty()) open_file(open_path_);
  action_tooltip(ActionId::Open);
  if (!load_error_.empty()) {
    wrapped(kErrorColour, load_error_);
    if (ImGui::SmallButton("dismiss")) load_error_.clear();
  }
  char preview[64];
  if (filter_.original_size)
    std::snprintf(preview, sizeof preview, "original (%d x %d)", original_.width(), original_.height());
  else
    std::snprintf(preview, sizeof preview, "%d x %d (resampled)", filter_.width, filter_.height);
  const bool open = ImGui::BeginCombo("size", preview);
  if (open) {
    if (ImGui::Selectable("original", filter_.original_size)) filter_.original_size = true;
    for (const SizePreset& preset : kSizePresets) {
      const bool current = !filter_.original_size && filter_.width == preset.width && filter_.height == preset.height;
      if (ImGui::Selectable(preset.label, current)) {
        filter_.original_size = false;
        filter_.width = preset.width;
        filter_.height = preset.height;
      }
    }
    ImGui::EndCombo();
  } else {
    tooltip("The picture is resampled once to this size, so the timings show what a method costs at it.");
  }
  ImGui::SetNextItemWidth(150.0f);
  ImGui::InputInt2("##custom", &custom_width_);
  ImGui::SameLine();
  if (ImGui::Button("custom size")) {
    const long long pixels = static_cast<long long>(custom_width_) * custom_height_;
    if (custom_width_ < 1 || custom_height_ < 1 || custom_width_ > 65536 || custom_height_ > 65536 || pixels > kMaxPixels) {
      say("a custom size must be 1 to 65536 on each side and at most " + std::to_string(kMaxPixels) + " pixels; " +
              std::to_string(custom_width_) + " x " + std::to_string(custom_height_) + " is not applied",
          true);
    } else {
      filter_.original_size = false;
      filter_.width = custom_width_;
      filter_.height = custom_height_;
    }
  }
  tooltip("Resample to width x height (1 to 65536 each).");
}

void ComparisonMode::slots_section() {
  if (!section("slots", true)) return;
  for (int i = 0; i < 2; ++i) {
    int& choice = i == 0 ? filter_.method_a : filter_.method_b;
    int picked = choice;
    if (slot_combo(i == 0 ? "A" : "B", picked, true)) select_slot(i, picked);
    tooltip(i == 0 ? "Slot A: keys 1-9 (methods beyond 9: in this list only); Shift+E: exact"
                   : "Slot B: Shift+1-9 (methods beyond 9: in this list only); O: original, E: exact");
    const Slot& s = slot(i);
    if (!s.problem().empty()) wrapped(kErrorColour, std::string(i == 0 ? "A" : "B") + ": " + s.problem());
    if (cpu_runner_.busy(i))
      ImGui::TextColored(kDimColour, "%s running on the CPU: %.1f s (the picture shows the last result)",
                         slot_id(s.wanted().method).c_str(), cpu_runner_.running_seconds(i));
    if (const std::string sliced = sliced_progress(i); !sliced.empty()) {
      ImGui::ProgressBar(schedule_[i].steps() > 0 ? static_cast<float>(schedule_[i].next()) / schedule_[i].steps() : 0.0f,
                         ImVec2(-1, 0), sliced.c_str());
      tooltip("A slow GPU method runs in slices of about 2 ms a frame; the picture shows the last finished result");
    } else if (!sliced_note_[i].empty() && sliced_note_setting_[i] == s.wanted()) {
      ImGui::TextColored(kDimColour, "%s", sliced_note_[i].c_str());
    }
    if (s.wanted().method == kExactGaussian) {
      if (std::optional<double> p = exact_.progress(exact_key())) {
        ImGui::ProgressBar(static_cast<float>(*p), ImVec2(-1, 0), "exact Gaussian");
      } else if (!exact_.error().empty()) {
        wrapped(kErrorColour, exact_.error());
      }
    }
  }
  if (ImGui::Button("swap A and B")) std::swap(filter_.method_a, filter_.method_b);
  action_tooltip(ActionId::SwapSlots);
}

void ComparisonMode::filter_section() {
  if (!section("filter", true)) return;
  // Values outside the range (typed with Ctrl+click) are not clamped silently: the control says
  // why they are not applied.
  static std::string sigma_refusal, truncate_refusal;
  ImGui::SetNextItemWidth(-90.0f);
  double sigma = filter_.params.sigma;
  const double sigma_min = kMinSigma, sigma_max = kMaxSigma;
  if (ImGui::SliderScalar("\u03c3 sigma", ImGuiDataType_Double, &sigma, &sigma_min, &sigma_max, "%.4g px",
                          ImGuiSliderFlags_Logarithmic)) {
    FilterParams params = filter_.params;
    params.sigma = sigma;
    sigma_refusal = validate(params);
    if (sigma_refusal.empty()) filter_.params = params;
  }
  action_tooltip(ActionId::SigmaUpSmall);
  if (!sigma_refusal.empty()) wrapped(kErrorColour, sigma_refusal + " (not applied)");
  ImGui::SetNextItemWidth(-90.0f);
  double truncate = filter_.params.truncate;
  const double truncate_min = kMinTruncate, truncate_max = kMaxTruncate;
  if (ImGui::SliderScalar("truncate", ImGuiDataType_Double, &truncate, &truncate_min, &truncate_max, "%.2f")) {
    FilterParams params = filter_.params;
    params.truncate = truncate;
    truncate_refusal = validate(params);
    if (truncate_refusal.empty()) filter_.params = params;
  }
  tooltip("radius = floor(truncate \u00d7 \u03c3 + 0.5), as SciPy (default 4); from 0.5 to 10.");
  if (!truncate_refusal.empty()) wrapped(kErrorColour, truncate_refusal + " (not applied)");
  ImGui::TextColored(kDimColour, "radius %d (%d taps per pass)", filter_.params.radius(), filter_.params.taps());
  if (ImGui::BeginCombo("border", to_string(filter_.params.border))) {
    for (BorderMode mode : kAllBorderModes) {
      if (ImGui::Selectable(to_string(mode), filter_.params.border == mode)) filter_.params.border = mode;
      tooltip(describe(mode));
    }
    ImGui::EndCombo();
  } else {
    action_tooltip(ActionId::NextBorder);
  }
  {
    static const PoolMode kModes[] = {PoolMode::None, PoolMode::Max2x2, PoolMode::Avg2x2};
    static const char* kLabels[] = {"off", "max 2x2", "average 2x2"};
    int current = static_cast<int>(filter_.pool);
    ImGui::SetNextItemWidth(-90.0f);
    if (ImGui::Combo("pooling", &current, kLabels, 3)) set_pooling(kModes[current]);
    action_tooltip(ActionId::TogglePooling);
  }
  ImGui::Checkbox("continuous processing", &filter_.continuous);
  action_tooltip(ActionId::ToggleContinuous);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80.0f);
  if (ImGui::BeginCombo("repeat", ("x" + std::to_string(filter_.repeat)).c_str())) {
    for (int n : {1, 4, 16, 64})
      if (ImGui::Selectable(("x" + std::to_string(n)).c_str(), filter_.repeat == n)) filter_.repeat = n;
    ImGui::EndCombo();
  }
  action_tooltip(ActionId::CycleRepeat);
}

void ComparisonMode::view_section() {
  if (!section("view", true)) return;
  static const char* kModes[] = {"A", "B", "split", "difference"};
  static const ActionId kModeActions[] = {ActionId::ViewA, ActionId::ViewB, ActionId::ViewSplit, ActionId::ViewDifference};
  for (int i = 0; i < static_cast<int>(CompareMode::Count); ++i) {
    if (i > 0) ImGui::SameLine();
    if (ImGui::RadioButton(kModes[i], view_.mode == static_cast<CompareMode>(i))) view_.mode = static_cast<CompareMode>(i);
    action_tooltip(kModeActions[i]);
  }
  ImGui::Checkbox("blink: A and B swapped", &view_.blink_swapped);
  action_tooltip(ActionId::Blink);
  if (view_.mode == CompareMode::Difference) {
    ImGui::Checkbox("signed", &view_.signed_difference);
    action_tooltip(ActionId::SignedDifference);
    ImGui::SameLine();
    ImGui::Checkbox("false colour", &view_.false_colour);
    action_tooltip(ActionId::FalseColour);
    ImGui::SetNextItemWidth(-90.0f);
    float gain = static_cast<float>(view_.gain);
    if (ImGui::SliderFloat("gain", &gain, 1.0f, 65536.0f, "x%.0f", ImGuiSliderFlags_Logarithmic)) view_.gain = std::max(1.0f, gain);
    action_tooltip(ActionId::GainUp);
  }
  if (ImGui::RadioButton("linear", view_.sampling == Sampling::Linear)) view_.sampling = Sampling::Linear;
  ImGui::SameLine();
  if (ImGui::RadioButton("nearest", view_.sampling == Sampling::Nearest)) view_.sampling = Sampling::Nearest;
  action_tooltip(ActionId::ToggleSampling);
  ImGui::SameLine();
  if (ImGui::Button("fit")) view_.fit = true;
  action_tooltip(ActionId::Fit);
  ImGui::SameLine();
  if (ImGui::Button("1:1")) actions_.queue((ActionId::OneToOne));
  action_tooltip(ActionId::OneToOne);
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%.0f%%", view_.transform.zoom * 100.0);
  ImGui::Checkbox("inspector", &view_.inspector);
  action_tooltip(ActionId::ToggleInspector);
}

void ComparisonMode::numbers_section() {
  if (!section("numbers", true)) return;
  if (applied_.pool != PoolMode::None) wrapped(kDimColour, "measured before the 2x2 pooling the picture shows");
  if (too_large_to_measure()) {
    wrapped(kDimColour, too_large_note());
    return;
  }
  const std::optional<ComparisonNumbers> numbers = current_numbers();
  const std::string activity = numbers_->activity();
  const std::string a = "A (" + slot_id(applied_.method_a) + ")", b = "B (" + slot_id(applied_.method_b) + ")";
  const char* waiting = activity.empty() ? "waiting" : "measuring...";
  if (numbers && !numbers->error.empty()) wrapped(kDimColour, numbers->error);
  if (numbers && !numbers->note.empty()) wrapped(kDimColour, numbers->note);
  difference_lines((a + " vs " + b).c_str(), numbers ? numbers->a_vs_b : std::nullopt, waiting);
  if (ImGui::SmallButton("jump to the largest difference")) actions_.queue((ActionId::JumpToLargest));
  action_tooltip(ActionId::JumpToLargest);
  const std::optional<double> exact_progress = exact_.progress(exact_key());
  const char* exact_waiting = exact_progress ? "computing the exact Gaussian..." : "the exact Gaussian is not computed yet";
  if (applied_.method_a != kExactGaussian) {
    difference_lines((a + " vs exact").c_str(), numbers ? numbers->a_vs_exact : std::nullopt, exact_waiting);
    if (numbers && numbers->a_vs_exact && slot_a_.shows_method()) {
      const bool within = numbers->a_vs_exact->rounded.max_abs <= slot_a_.bound().max_error_8bit;
      ImGui::TextColored(within ? kGoodColour : kErrorColour, "  8-bit result %s its bound (%.2g levels)",
                         within ? "within" : "BEYOND", slot_a_.bound().max_error_8bit);
    }
  }
  if (applied_.method_b != kExactGaussian)
    difference_lines((b + " vs exact").c_str(), numbers ? numbers->b_vs_exact : std::nullopt, exact_waiting);
  if (exact_progress) ImGui::ProgressBar(static_cast<float>(*exact_progress), ImVec2(-1, 0), "exact Gaussian");
  if (!activity.empty()) ImGui::TextColored(kDimColour, "%s", activity.c_str());
  if (numbers)
    ImGui::TextColored(kDimColour, "reduced on the %s in %.0f ms", numbers->on_gpu ? "GPU" : "CPU", numbers->seconds * 1e3);
}

void ComparisonMode::timing_section(FrameContext& frame) {
  if (!section("timing", false)) return;
  if (frame.window) {
    bool vsync = frame.window->vsync();
    if (ImGui::Checkbox("vsync", &vsync)) actions_.queue((ActionId::ToggleVsync));
    action_tooltip(ActionId::ToggleVsync);
  }
  ImGui::TextColored(kDimColour, "last %d frames per stage (ms)", 300);
  for (const auto& [name, values] : history_.series()) {
    if (values.empty()) continue;
    std::vector<float> data(values.begin(), values.end());
    const float top = *std::max_element(data.begin(), data.end());
    char overlay_text[96];
    std::snprintf(overlay_text, sizeof overlay_text, "%s  %.3f (max %.3f)", name.c_str(), data.back(), top);
    ImGui::PlotLines(("##" + name).c_str(), data.data(), static_cast<int>(data.size()), 0, overlay_text, 0.0f,
                     top * 1.1f + 1e-6f, ImVec2(ImGui::GetContentRegionAvail().x, 36));
  }
}

void ComparisonMode::machine_section() {
  if (!section("machine", false)) return;
  ImGui::Text("path: %s", to_string(pipeline_->path()));
  wrapped(kDimColour, pipeline_->path_reason());
  ImGui::TextWrapped("OpenGL: %s (%s)", surface_.info().renderer.c_str(), surface_.info().version.c_str());
  ImGui::TextWrapped("context: %s", surface_.info().platform.c_str());
  ImGui::TextWrapped("CUDA: %s", cuda_description_.c_str());
  ImGui::Separator();
  ImGui::TextWrapped("saving to: %s", save_folder_.empty() ? "the working folder" : save_folder_.c_str());
  if (ImGui::Button("choose folder...")) actions_.queue((ActionId::ChooseFolder));
  action_tooltip(ActionId::ChooseFolder);
  if (ImGui::Button("save A")) actions_.queue((ActionId::SaveA));
  action_tooltip(ActionId::SaveA);
  ImGui::SameLine();
  if (ImGui::Button("save B")) actions_.queue((ActionId::SaveB));
  action_tooltip(ActionId::SaveB);
  ImGui::SameLine();
  if (ImGui::Button("save difference")) actions_.queue((ActionId::SaveDifference));
  action_tooltip(ActionId::SaveDifference);
  ImGui::SameLine();
  if (ImGui::Button("save view")) actions_.queue((ActionId::SaveView));
  action_tooltip(ActionId::SaveView);
}

void ComparisonMode::overlay(FrameContext& /*frame*/) {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(10.0f, menu_height_ + 10.0f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.72f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav;
  if (!ImGui::Begin("##timings", nullptr, flags)) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  (void)io;
  const Rgba8 badge = path_badge_colour(pipeline_->path());
  const ImVec2 corner = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(
      corner, ImVec2(corner.x + kPathBadgeSide, corner.y + kPathBadgeSide), IM_COL32(badge.r, badge.g, badge.b, 255));
  ImGui::Dummy(ImVec2(static_cast<float>(kPathBadgeSide), static_cast<float>(kPathBadgeSide)));
  ImGui::SameLine();
  ImGui::Text("%s path  (drag to move, T hides)", to_string(pipeline_->path()));
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
  ImGui::TextColored(kDimColour, "GL: %s", surface_.info().renderer.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Text("%d x %d  \u03c3 %.4g  radius %d  %s", pipeline_->width(), pipeline_->height(), applied_.params.sigma,
              applied_.params.radius(), to_string(applied_.params.border));
  ImGui::Text("A: %s   B: %s   view %s%s", slot_id(applied_.method_a).c_str(), slot_id(applied_.method_b).c_str(),
              to_string(view_.mode), applied_.pool == PoolMode::None ? "" : (std::string("  pooled ") + to_string(applied_.pool)).c_str());
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
    rows(overlay_timings_.a, "A ");
    rows(overlay_timings_.b, "B ");
    rows(overlay_timings_.gl, "");
    ImGui::EndTable();
  }
  if (overlay_timings_.frame_ms > 0)
    ImGui::Text("frame %.2f ms (%.0f fps)%s%s", overlay_timings_.frame_ms, 1000.0 / overlay_timings_.frame_ms,
                filter_.continuous || options_.frames > 0 ? "" : ", processing on change",
                filter_.repeat > 1 ? (", repeat x" + std::to_string(filter_.repeat)).c_str() : "");
  if (overlay_timings_.method_ms > 0)
    ImGui::Text("method A %.1f Mpixel/s", static_cast<double>(pipeline_->width()) * pipeline_->height() /
                                              (overlay_timings_.method_ms * 1e3));
  const std::optional<ComparisonNumbers> numbers = current_numbers();
  if (numbers && numbers->a_vs_exact)
    ImGui::Text("A vs exact: max %s levels, PSNR %s dB", figure(numbers->a_vs_exact->unrounded.max_abs).c_str(),
                figure(numbers->a_vs_exact->unrounded.psnr_db, "%.1f").c_str());
  if (numbers && numbers->a_vs_b)
    ImGui::Text("A vs B: max %s levels, mean %s", figure(numbers->a_vs_b->unrounded.max_abs).c_str(),
                figure(numbers->a_vs_b->unrounded.mean_abs).c_str());
  if (const std::string busy = progress(); !busy.empty()) ImGui::TextColored(kDimColour, "%s", busy.c_str());
  if (!status_.text.empty() && std::chrono::steady_clock::now() < status_.until) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextColored(status_.error ? kErrorColour : kGoodColour, "%s", status_.text.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
}

void ComparisonMode::compare_all_window(FrameContext& /*frame*/) {
  if (!compare_all_open_) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(20.0f, menu_height_ + 40.0f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(std::min(900.0f, io.DisplaySize.x - 40.0f), 320.0f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(1.0f);
  if (!ImGui::Begin("compare all methods", &compare_all_open_, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  const std::optional<CompareAllTable> table = compare_all_->table();
  if (const std::string p = compare_all_->progress(); !p.empty()) ImGui::TextColored(kDimColour, "running %s", p.c_str());
  if (ImGui::Button("run again")) actions_.queue((ActionId::CompareAll));
  action_tooltip(ActionId::CompareAll);
  ImGui::SameLine();
  if (ImGui::Button("export CSV")) actions_.queue((ActionId::ExportCompareAll));
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
      ImGui::Text("%s", row->id.c_str());
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

void ComparisonMode::folder_window() {
  if (!folder_open_) return;
  ImGui::SetNextWindowSize(ImVec2(460, 360), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("save folder", &folder_open_, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  keep_on_screen();
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path current = fs::absolute(folder_browse_.empty() ? "." : folder_browse_, error).lexically_normal();
  ImGui::TextWrapped("%s", current.string().c_str());
  if (ImGui::Button("up")) folder_browse_ = current.parent_path().string();
  ImGui::SameLine();
  if (ImGui::Button("use this folder")) {
    save_folder_ = current.string();
    const std::string problem = remember_save_folder(save_folder_);
    say(problem.empty() ? "saving to " + save_folder_ : "saving to " + save_folder_ + " (not remembered: " + problem + ")",
        !problem.empty());
    folder_open_ = false;
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
    if (ImGui::Selectable((name + "/").c_str())) folder_browse_ = (current / name).string();
  ImGui::EndChild();
  ImGui::End();
}

void ComparisonMode::picture_labels() {
  if (area_.width <= 0) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const int first = view_.blink_swapped ? 1 : 0;
  const int methods[2] = {first == 0 ? applied_.method_a : applied_.method_b, first == 0 ? applied_.method_b : applied_.method_a};
  const char* names[2] = {first == 0 ? "A" : "B", first == 0 ? "B" : "A"};
  const auto label = [&](float x, float y, const std::string& text, bool right) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float left = right ? x - size.x - 12 : x;
    draw->AddRectFilled(ImVec2(left, y), ImVec2(left + size.x + 12, y + size.y + 6), IM_COL32(0, 0, 0, 170), 4.0f);
    draw->AddText(ImVec2(left + 6, y + 3), IM_COL32(255, 235, 120, 255), text.c_str());
  };
  const float top = (area_.y + area_.height) / scale - 34.0f;  // the bottom edge: the overlay is at the top
  const float width = area_.width / scale;
  switch (view_.mode) {
    case CompareMode::A:
    case CompareMode::B: {
      const int shown = view_.mode == CompareMode::A ? 0 : 1;
      label(width * 0.5f - 60.0f, top, std::string(names[shown]) + ": " + slot_label(methods[shown]), false);
      break;
    }
    case CompareMode::Split: {
      const float divider = static_cast<float>(view_.split_fraction) * width;
      label(divider - 8.0f, top, std::string(names[0]) + ": " + slot_label(methods[0]), true);
      label(divider + 8.0f, top, std::string(names[1]) + ": " + slot_label(methods[1]), false);
      break;
    }
    case CompareMode::Difference:
      label(width * 0.5f - 100.0f, top,
            std::string(view_.signed_difference ? "" : "|") + names[0] + " - " + names[1] + (view_.signed_difference ? "" : "|") +
                ": " + slot_id(methods[0]) + " - " + slot_id(methods[1]) + "  x" + figure(view_.gain, "%.0f"),
            false);
      break;
    default: break;
  }
}

void ComparisonMode::difference_legend() {
  if (view_.mode != CompareMode::Difference || area_.width <= 0) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float bar_width = std::min(260.0f, area_.width / scale - 40.0f), bar_height = 14.0f;
  const ImVec2 origin(16.0f, (area_.y + area_.height) / scale - 58.0f);
  draw->AddRectFilled(ImVec2(origin.x - 8, origin.y - 22), ImVec2(origin.x + bar_width + 8, origin.y + bar_height + 24),
                      IM_COL32(0, 0, 0, 180), 4.0f);
  // The bar: the same mapping as difference_colour() (and the shader), from no difference at the
  // left (or the middle, signed) to 255 / gain levels and beyond at the right.
  const int steps = 96;
  const double full = 255.0 / view_.gain;  // the difference, in levels, that reaches the end of the map
  for (int i = 0; i < steps; ++i) {
    const double t = (i + 0.5) / steps;
    const double x = view_.signed_difference ? 2 * t - 1 : t;  // difference * gain / 255
    std::array<float, 3> c{};
    if (view_.false_colour) {
      c = colour_map(x, view_.signed_difference);
    } else {
      const float grey = static_cast<float>(view_.signed_difference ? 0.5 + 0.5 * x : x);
      c = {grey, grey, grey};
    }
    const float x0 = origin.x + bar_width * i / steps, x1 = origin.x + bar_width * (i + 1) / steps;
    draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1 + 0.5f, origin.y + bar_height),
                        IM_COL32(static_cast<int>(c[0] * 255 + 0.5f), static_cast<int>(c[1] * 255 + 0.5f),
                                 static_cast<int>(c[2] * 255 + 0.5f), 255));
  }
  const ImU32 text = IM_COL32(235, 235, 235, 255);
  draw->AddText(ImVec2(origin.x, origin.y - 19),
                text, (std::string(view_.signed_difference ? "A - B" : "|A - B|") + " in 8-bit levels, gain x" +
                       figure(view_.gain, "%.0f") + (view_.false_colour ? " (largest channel)" : " (per channel)")).c_str());
  const std::string low = view_.signed_difference ? "-" + figure(full, "%.3g") : "0";
  const std::string high = (view_.signed_difference ? "+" : "") + figure(full, "%.3g") + " or more";
  draw->AddText(ImVec2(origin.x, origin.y + bar_height + 3), text, low.c_str());
  if (view_.signed_difference)
    draw->AddText(ImVec2(origin.x + bar_width * 0.5f - 4, origin.y + bar_height + 3), text, "0");
  draw->AddText(ImVec2(origin.x + bar_width - ImGui::CalcTextSize(high.c_str()).x, origin.y + bar_height + 3), text, high.c_str());
}

void ComparisonMode::inspector() {
  if (!view_.inspector || area_.width <= 0) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
  const std::optional<ComparisonNumbers> numbers = current_numbers();
  const SlotValues* values[2] = {numbers && numbers->values_a ? numbers->values_a.get() : nullptr,
                                 numbers && numbers->values_b ? numbers->values_b.get() : nullptr};
  const int first = view_.blink_swapped ? 1 : 0;
  const int w = pipeline_->width(), h = pipeline_->height();
  // Values on the pixels, when a pixel is large enough for three lines of text.
  const double zoom = view_.transform.zoom;
  const float line = ImGui::GetFontSize();
  if (zoom / scale >= 3.4 * line && applied_.pool == PoolMode::None) {
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const Vec2 top_left = screen_to_image(view_.transform, {0, 0}, area_.width, area_.height);
    const Vec2 bottom_right = screen_to_image(view_.transform, {static_cast<double>(area_.width), static_cast<double>(area_.height)},
                                              area_.width, area_.height);
    const int x0 = std::max(0, static_cast<int>(std::floor(top_left.x))), y0 = std::max(0, static_cast<int>(std::floor(top_left.y)));
    const int x1 = std::min(w - 1, static_cast<int>(bottom_right.x)), y1 = std::min(h - 1, static_cast<int>(bottom_right.y));
    const double split_x = view_.split_fraction * area_.width;
    for (int y = y0; y <= y1 && (y1 - y0) < 200; ++y)
      for (int x = x0; x <= x1 && (x1 - x0) < 200; ++x) {
        const Vec2 centre = image_to_screen(view_.transform, {x + 0.5, y + 0.5}, area_.width, area_.height);
        if (centre.x < 0 || centre.y < 0 || centre.x >= area_.width || centre.y >= area_.height) continue;
        int shown = view_.mode == CompareMode::B ? 1 : 0;
        if (view_.mode == CompareMode::Split && centre.x >= split_x) shown = 1;
        const SlotValues* va = values[shown == 0 ? first : 1 - first];
        const SlotValues* vb = values[1 - (shown == 0 ? first : 1 - first)];
        char text[96];
        if (view_.mode == CompareMode::Difference) {
          if (!values[first] || !values[1 - first]) continue;
          std::snprintf(text, sizeof text, "%+.3g\n%+.3g\n%+.3g", values[first]->value(x, y, 0) - values[1 - first]->value(x, y, 0),
                        values[first]->value(x, y, 1) - values[1 - first]->value(x, y, 1),
                        values[first]->value(x, y, 2) - values[1 - first]->value(x, y, 2));
        } else {
          (void)vb;
          if (!va) continue;
          std::snprintf(text, sizeof text, "%.2f\n%.2f\n%.2f", va->value(x, y, 0), va->value(x, y, 1), va->value(x, y, 2));
        }
        const ImVec2 size = ImGui::CalcTextSize(text);
        const ImVec2 at(static_cast<float>((area_.x + centre.x) / scale) - size.x * 0.5f,
                        static_cast<float>((area_.y + centre.y) / scale) - size.y * 0.5f);
        draw->AddText(ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 220), text);
        draw->AddText(at, IM_COL32(255, 255, 255, 255), text);
      }
  }
  // Under the cursor.
  if (io.WantCaptureMouse) return;
  const Vec2 mouse = mouse_in_picture(area_);
  if (mouse.x < 0 || mouse.y < 0 || mouse.x >= area_.width || mouse.y >= area_.height) return;
  const Vec2 p = screen_to_image(view_.transform, mouse, area_.width, area_.height);
  const int x = static_cast<int>(std::floor(p.x)), y = static_cast<int>(std::floor(p.y));
  if (x < 0 || y < 0 || x >= w || y >= h) return;
  ImGui::BeginTooltip();
  ImGui::Text("x %d  y %d", x, y);
  const char* names[2] = {"A", "B"};
  for (int i = 0; i < 2; ++i) {
    if (values[i])
      ImGui::Text("%s  %8.3f %8.3f %8.3f %8.3f", names[i], values[i]->value(x, y, 0), values[i]->value(x, y, 1),
                  values[i]->value(x, y, 2), values[i]->value(x, y, 3));
    else
      ImGui::TextColored(kDimColour, "%s  (values on their way)", names[i]);
  }
  if (values[0] && values[1])
    ImGui::Text("A-B %+8.3f %+8.3f %+8.3f %+8.3f", values[0]->value(x, y, 0) - values[1]->value(x, y, 0),
                values[0]->value(x, y, 1) - values[1]->value(x, y, 1), values[0]->value(x, y, 2) - values[1]->value(x, y, 2),
                values[0]->value(x, y, 3) - values[1]->value(x, y, 3));
  ImGui::TextColored(kDimColour, "unrounded, in 8-bit levels (r g b a)");
  ImGui::EndTooltip();
}

}  // namespace gausslab
