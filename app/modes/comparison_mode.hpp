#pragma once
// The comparison mode: the comparison core (app/comparison/comparison.hpp: one picture, slots A and
// B, their runs, the numbers, compare-all) wired to the window. It owns what the window adds: the
// view (zoom, pan, which comparison view), the panels' state, the actions' dispatcher (keys, menu,
// script: comparison_commands.hpp says what each does), saving, the picture's drawing, and the
// automated run's report.
//   update: actions → menu bar and side panel (app/panels/) → the core's frame (apply, run, collect)
//           → saves → the overlay, the windows, what is drawn over the picture
//   draw:   the picture (ImageRenderer) in the area beside the side panel
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actions/action_dispatcher.hpp"
#include "comparison/comparison.hpp"
#include "comparison/comparison_saves.hpp"
#include "comparison/display_range_worker.hpp"
#include "comparison/unrounded_view.hpp"
#include "modes/comparison_commands.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/view_input.hpp"
#include "viewer/viewer_mode.hpp"

namespace gausslab {

class ImageRenderer;
struct ImageDrawParams;

class ComparisonMode final : public ViewerMode {
 public:
  ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface);
  ~ComparisonMode() override;

  void update(FrameContext& frame) override;
  void draw(FrameContext& frame) override;
  // A drop: the file goes into the slot under the cursor in the split view, else into B (the
  // reference slot); with Shift held it opens as the picture instead.
  void open_file(const std::string& path) override;
  bool poll_files() override { return comparison_.poll_files(); }
  std::string window_title() const override;
  std::optional<double> view_zoom() const override { return view_.transform.zoom; }
  // The picture area: draw() fills it, the background where no picture is included.
  std::optional<PictureArea> opaque_area() const override { return filled_picture_area(area_); }
  // A method that fails is replaced and the run goes on (its summary names the fallback; exit 3).
  bool failed() const override { return false; }
  bool busy() const override {
    return gausslab::busy(comparison_) || saves_.busy() || display_range_.pending() || unrounded_.uploading();
  }
  bool starting() const override { return gausslab::starting(comparison_); }
  bool wants_frames() const override;
  std::string progress() const override { return gausslab::progress(comparison_); }
  void settle() override { comparison_.settle(true); }
  void resume() override { comparison_.settle(false); }
  std::string run_command(const std::string& command, const std::string& argument) override {
    return commands_.run(command, argument);
  }
  int finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) override;
  void view_captured(ImageRgba8 view) override { saves_.save_view(comparison_, view_, std::move(view)); }
  std::vector<std::pair<std::string, std::string>> soak_cycle() const override { return commands_.soak_cycle(); }
  void shut_down() override;

 private:
  ImageDrawParams draw_params() const;
  // The A, B and split views' range as drawn this frame (display_range_'s, or [0, 1] meanwhile).
  DisplayRange drawn_range() const;
  // --events: "gausslab-event: numbers A=... B=... ab_max_abs=..." once per new A-vs-B result.
  void print_numbers_event();

  ViewerOptions options_;
  GlSurface& surface_;
  Comparison comparison_;
  std::unique_ptr<ImageRenderer> renderer_;
  UnroundedView unrounded_;  // A - B before rounding, for the difference view
  DisplayRangeWorker display_range_;  // the A, B and split views' min/max or percentiles
  ComparisonSaves saves_;
  ActionDispatcher actions_;
  ViewState view_;
  ComparisonPanels panels_;
  ComparisonCommands commands_;  // after what it edits
  PictureArea area_;
  MouseDrag drag_ = MouseDrag::None;
  std::array<float, 4> sigma_field_printed_{};  // --events: the sigma field's place, printed when it moves
  std::optional<NumbersKey> numbers_printed_;  // --events: the A-vs-B numbers last printed
  std::uint64_t opened_seen_ = 0;  // the picture's files opened so far (a new one is fitted to the view)
};

}  // namespace gausslab
