#pragma once
// The sequence mode's ImGui panels: the controls (input, playback, whitening, pre-filter, view), the
// shifts plotted over time, and the timing overlay. Functions over plain state, as
// comparison_panels.hpp's.
#include <optional>
#include <string>
#include <vector>

#include "gausslab/cuda/stage_timer.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/result_pipeline.hpp"
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

struct SequenceRequests {
  std::optional<std::string> open_input;
  bool step = false;
  bool fit = false;
  bool one_to_one = false;
};

// The control panel (top right, below the menu bar). `open_text` is the input field's text, kept
// between frames; `focus_open_field` gives it the keys (and is cleared).
SequenceRequests sequence_panel(SequenceControls& controls, ViewState& view, std::string& open_text,
                                bool& focus_open_field, const SequencePanelInfo& info);

// The estimated shifts over the input frames (bottom left): dx and dy, the current frame marked.
void shift_plot(const SequencePanelInfo& info);

// The timing overlay (top left, below the menu bar): path, devices, the sequence and the frame, stages with medians.
void sequence_overlay(const SequencePanelInfo& info, const SequenceControls& controls, const ViewState& view,
                      const std::vector<StageTiming>& stages, const std::vector<StageTiming>& gl, double frame_ms);

}  // namespace gausslab
