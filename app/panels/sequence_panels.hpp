#pragma once
// The sequence mode's ImGui panels: in the side panel (docked as the comparison's: docked_panel.hpp)
// the controls (input, playback, whitening, pre-filter, view); the timing overlay docked at its
// bottom or floating; the shifts plotted over time; the status bar's content. Functions over plain
// state, as comparison_panels.hpp's.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "comparison/status_messages.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "panels/status_bar.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

// What the controls edit. Changing history, degree, gamma or the pre-filter starts the sequence over.
struct SequenceControls {
  bool playing = false;
  bool loop = true;
  int history = 20;
  int degree = 2;
  double gamma = 0.01;
  int prefilter = -1;  // index into SequencePanelInfo::prefilters, -1: none
  double sigma = 1.0;
  bool show_filtered = false;    // B: the pre-filtered frame instead of the whitened one
  double whitened_range = 4.0;   // B: ± this many noise deviations from black to white

  bool same_processing(const SequenceControls& o) const {
    return history == o.history && degree == o.degree && gamma == o.gamma && prefilter == o.prefilter &&
           (prefilter < 0 || sigma == o.sigma);
  }
};

// What the panels show but do not edit.
struct SequencePanelInfo {
  std::string input;        // as opened ("synthetic", a folder, a video)
  std::string description;  // the source's own description
  int width = 0, height = 0;
  int frame_index = -1, frame_count = 0;
  std::string frame_name;
  long long frames_pushed = 0;
  bool history_full = false;
  double noise = 0;  // estimated noise deviation of the frames
  const std::vector<float>* dx = nullptr;
  const std::vector<float>* dy = nullptr;
  const std::vector<std::string>* prefilters = nullptr;  // the methods that can pre-filter here
  std::string engine;  // "GPU" or "CPU (OpenMP)"
  OutputPath path = OutputPath::Cpu;
  std::string path_reason;
  const GlInfo* gl = nullptr;
  std::string cuda_device;
  std::string status;  // the latest note (a frame skipped, ...)
  std::string error;   // the latest refusal (an input that would not open, a setting refused)
  std::string warning;  // a history too long for the frames (history_warning)
};

// What the panels keep between frames.
struct SequencePanels {
  std::string open_text;          // the input field's text
  bool focus_open_field = false;  // Open (Ctrl+O): the input field takes the keys (then cleared)
  float docked_overlay_height = 0.0f;  // the docked overlay's height last frame (docked_panel.hpp)
};

struct SequenceRequests {
  std::optional<std::string> open_input;
  bool step = false;
  bool fit = false;
  bool one_to_one = false;
};

// The side panel's contents: the controls.
SequenceRequests sequence_panel(SequenceControls& controls, ViewState& view, SequencePanels& panels,
                                const SequencePanelInfo& info);

// The estimated shifts over the input frames (a window at the picture's bottom left): dx and dy,
// the current frame marked.
void shift_plot(const SequencePanelInfo& info, const ViewState& view);

// The timing overlay's readouts, refreshed a few times a second so that they can be read.
struct SequenceOverlayReadouts {
  std::vector<StageTiming> stages, gl;
  double frame_ms = 0;
  std::chrono::steady_clock::time_point refreshed{};
};

// The timing overlay's contents (docked or floating, docked_panel.hpp): path, devices, the sequence
// and the frame, stages with medians.
void sequence_overlay_contents(const SequencePanelInfo& info, const SequenceControls& controls, ViewState& view,
                               const SequenceOverlayReadouts& readouts);

// The status bar's content: the latest message, the zoom, the sampling, the display transform and
// the pixel of the width x height sequence under the cursor.
StatusBarContent sequence_status(const StatusMessages& messages, const ViewState& view, const PictureArea& area,
                                 int width, int height);

}  // namespace gausslab
