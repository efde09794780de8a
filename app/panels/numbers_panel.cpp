// The side panel's numbers section: A against B and each against the exact Gaussian over the whole
// picture, unrounded and after rounding to 8 bits (comparison_numbers.hpp), A's 8-bit result against
// its method's bound, and where the work is.
#include <imgui.h>

#include "panels/comparison_panels.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

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

void numbers_panel(const Comparison& comparison, ActionDispatcher& actions) {
  const FilterState& applied = comparison.settings().applied();
  const MethodChoices& choices = comparison.settings().choices();
  if (applied.pool != PoolMode::None) wrapped(kDimColour, "measured before the 2x2 pooling the picture shows");
  if (too_large_to_measure(comparison)) {
    wrapped(kDimColour, too_large_note(comparison));
    return;
  }
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  const std::string activity = comparison.work().numbers_worker().activity();
  const std::string a = "A (" + choices.id_with_choice(applied.method_a) + ")";
  const std::string b = "B (" + choices.id_with_choice(applied.method_b) + ")";
  const char* waiting = activity.empty() ? "waiting" : "measuring...";
  if (numbers && !numbers->error.empty()) wrapped(kDimColour, numbers->error);
  if (numbers && !numbers->note.empty()) wrapped(kDimColour, numbers->note);
  difference_lines((a + " vs " + b).c_str(), numbers ? numbers->a_vs_b : std::nullopt, waiting);
  if (ImGui::SmallButton("jump to the largest difference")) actions.queue(ActionId::JumpToLargest);
  action_tooltip(ActionId::JumpToLargest);
  const std::optional<double> exact_progress = comparison.work().exact().progress(exact_key(comparison));
  const char* exact_waiting = exact_progress ? "computing the exact Gaussian..." : "the exact Gaussian is not computed yet";
  if (applied.method_a != kExactGaussian) {
    difference_lines((a + " vs exact").c_str(), numbers ? numbers->a_vs_exact : std::nullopt, exact_waiting);
    const Slot& slot_a = comparison.runs().lane(0).slot;
    if (numbers && numbers->a_vs_exact && slot_a.shows_method()) {
      const bool within = numbers->a_vs_exact->rounded.max_abs <= slot_a.bound().max_error_8bit;
      ImGui::TextColored(within ? kGoodColour : kErrorColour, "  8-bit result %s its bound (%.2g levels)",
                         within ? "within" : "BEYOND", slot_a.bound().max_error_8bit);
    }
  }
  if (applied.method_b != kExactGaussian)
    difference_lines((b + " vs exact").c_str(), numbers ? numbers->b_vs_exact : std::nullopt, exact_waiting);
  if (exact_progress) ImGui::ProgressBar(static_cast<float>(*exact_progress), ImVec2(-1, 0), "exact Gaussian");
  if (!activity.empty()) ImGui::TextColored(kDimColour, "%s", activity.c_str());
  if (numbers)
    ImGui::TextColored(kDimColour, "reduced on the %s in %.0f ms", numbers->on_gpu ? "GPU" : "CPU", numbers->seconds * 1e3);
}

}  // namespace gausslab
