#pragma once
// What the comparison says about itself in files and lines: the JSON sidecar of a saved image (the
// setting, the view, the timings, the numbers, the machine) and the automated run's summary line
// (run_report.hpp).
#include <string>

#include "comparison/comparison.hpp"
#include "viewer/run_report.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

// The sidecar of a saved `what` ("result A", "difference", "view") of width × height pixels.
std::string sidecar_json(const Comparison& comparison, const ViewState& view, const std::string& what, int width,
                         int height);

// Slot `slot`'s full-resolution result as its texture shows it (pooled when pooling is on), or
// nullopt with why there is none yet.
std::optional<ImageRgba8> shown_result(const Comparison& comparison, int slot, std::string& why);

// The automated run's summary: the applied setting, where it ran, the stage medians (B's when a view
// shows it), A against the exact Gaussian and against B (compare_given: --compare was given).
RunSummary automated_summary(const Comparison& comparison, const ViewState& view, bool compare_given, int frames,
                             double frame_ms, long long frames_drawn, const std::vector<StageTiming>& gl_stages);

}  // namespace gausslab
