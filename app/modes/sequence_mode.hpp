#pragma once
// The sequence mode (gausslab --sequence INPUT): an image sequence played frame by frame through
// the whitening engine (sequence/), A = the frame, B = the whitened frame (or the pre-filtered one),
// the comparison views and the timing overlay of the picture mode, the shifts plotted over time; the
// menu, the keys and the help from the viewer's action table (the actions this mode offers), the
// side panel with the overlay docked at its bottom and the status bar, as in the comparison mode.
//   update: actions (keys, menu, script) and mouse → panels → settings changes (start over) → the
//           next frame when playing
//           [SequencePlayer: upload, pre-filter, shifts, coefficients, whitening on its stream]
//           → both displays through the ResultPipeline (interop: CUDA copies into GL's textures)
//   draw:   the two results through ImageRenderer (A, B, split, difference)
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actions/action_dispatcher.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "gausslab/sequence/sequence_player.hpp"
#include "panels/sequence_panels.hpp"
#include "panels/view_input.hpp"
#include "viewer/viewer_mode.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class ImageRenderer;
class ResultPipeline;

class SequenceMode final : public ViewerMode {
 public:
  // Throws what opening the input throws (SequenceInputError) and CUDA/GL errors.
  SequenceMode(const ViewerOptions& options, GlSurface& surface);
  ~SequenceMode() override;

  void update(FrameContext& frame) override;
  void draw(FrameContext& frame) override;
  // The picture area: draw() fills it (the frame clears only the panels' bands).
  std::optional<PictureArea> opaque_area() const override { return filled_picture_area(area_); }
  void open_file(const std::string& path) override;
  std::string window_title() const override;
  bool failed() const override { return run_failure_.has_value(); }
  bool wants_frames() const override {
    return controls_.playing || needs_display_ || step_requested_ || messages_.current();  // a message dims in time
  }
  std::string run_command(const std::string& command, const std::string& argument) override;
  int finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) override;
  void shut_down() override;

 private:
  // What this mode makes of each action of the table (play/pause is "continuous", Space).
  ActionOffer offer(const Action& action) const;
  void perform(const Action& action);
  void apply_settings(FrameContext& frame);
  void open_input(const std::string& input);
  void show(FrameContext& frame, bool advance);
  SequencePanelInfo panel_info() const;
  PlayerSettings settings_from(const SequenceControls& controls) const;

  ViewerOptions options_;
  GlSurface& surface_;
  std::unique_ptr<ResultPipeline> pipeline_;
  std::unique_ptr<ImageRenderer> renderer_;
  std::unique_ptr<SequencePlayer> player_;
  StageTimer timer_;
  std::vector<std::string> prefilters_;  // the registry's methods that run where the player runs

  ActionDispatcher actions_;
  SequenceControls controls_, applied_;
  ViewState view_;
  MouseDrag drag_ = MouseDrag::None;
  PictureArea area_;  // beside the side panel, between the menu and status bars (docked_panel.hpp)
  SequencePanels panels_;
  StatusMessages messages_;  // the status bar's
  std::string input_, error_;  // error_: the panel's latest refusal, until a setting is taken
  bool needs_display_ = true;  // the displays must run again (new frame, new mapping)
  bool step_requested_ = false;  // a script's "step", the Step button or '.'

  SequenceOverlayReadouts overlay_;
  std::optional<std::string> run_failure_;  // a failed run's reason
};

}  // namespace gausslab
