// The comparison's timing overlay (top left, movable, T hides it): the path with its badge (the UI
// tests find the badge's colour in the view's screenshot), the OpenGL renderer, the setting, each
// stage's last and median time, the frame time, A's throughput, the numbers' headline, the work in
// progress and the latest message.
#include <imgui.h>

#include <cmath>

#include "gausslab/render/result_pipeline.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/path_badge.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

void overlay_contents(const Comparison& comparison, ViewState& view, bool timed_run) {
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  const FilterState& applied = comparison.settings().applied();
  const FilterState& asked = comparison.settings().requested();
  const MethodChoices& choices = comparison.settings().choices();
  const OverlayTimings& timings = comparison.timing().overlay();
  overlay_path_line(pipeline.path(), (std::string(to_string(pipeline.path())) + " path").c_str(), view);
  ImGui::PushTextWrapPos(view.overlay_floating ? ImGui::GetFontSize() * 30.0f : 0.0f);
  ImGui::TextColored(kDimColour, "GL: %s", comparison.machine().gl.renderer.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Text("%d x %d  \u03c3 %.4g  radius %d  %s", pipeline.width(), pipeline.height(), applied.params.sigma,
              applied.params.radius(), to_string(applied.params.border));
  ImGui::Text("A: %s   B: %s   view %s%s", choices.id_with_choice(applied.method_a).c_str(), choices.id_with_choice(applied.method_b).c_str(),
              to_string(view.mode), applied.pool == PoolMode::None ? "" : (std::string("  pooled ") + to_string(applied.pool)).c_str());
  // A picture of more than 8 bits: the label names auto's choice for its samples (what the views
  // draw), the stages below are the live run's on the 8-bit copy, which may be another method.
  const std::string live_a = choices.chosen_for_slots(applied.method_a), live_b = choices.chosen_for_slots(applied.method_b);
  const bool a_other = live_a != choices.chosen(applied.method_a), b_other = live_b != choices.chosen(applied.method_b);
  if (a_other || b_other)
    ImGui::TextColored(kDimColour, "stages: the 8-bit copy's runs (%s%s%s)", a_other ? ("A " + live_a).c_str() : "",
                       a_other && b_other ? ", " : "", b_other ? ("B " + live_b).c_str() : "");
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
    rows(timings.a, "A ");
    rows(timings.b, "B ");
    rows(timings.gl, "");
    ImGui::EndTable();
  }
  if (timings.frame_ms > 0)
    ImGui::Text("frame %.2f ms (%.0f fps)%s%s", timings.frame_ms, 1000.0 / timings.frame_ms,
                asked.continuous || timed_run ? "" : ", processing on change",
                asked.repeat > 1 ? (", repeat x" + std::to_string(asked.repeat)).c_str() : "");
  if (timings.method_ms > 0)
    ImGui::Text("method A %.1f Mpixel/s", static_cast<double>(pipeline.width()) * pipeline.height() /
                                              (timings.method_ms * 1e3));
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  if (numbers && numbers->a_vs_exact)
    ImGui::Text("A vs exact: max %s levels, PSNR %s dB", figure(numbers->a_vs_exact->unrounded.max_abs).c_str(),
                figure(numbers->a_vs_exact->unrounded.psnr_db, "%.1f").c_str());
  if (numbers && numbers->a_vs_b)
    ImGui::Text("A vs B: max %s levels, mean %s", figure(numbers->a_vs_b->unrounded.max_abs).c_str(),
                figure(numbers->a_vs_b->unrounded.mean_abs).c_str());
}

void comparison_overlay(const Comparison& comparison, ViewState& view, bool timed_run) {
  floating_overlay(view, [&] { overlay_contents(comparison, view, timed_run); });
}

}  // namespace gausslab
