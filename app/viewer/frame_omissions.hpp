#pragma once
// GAUSSLAB_FRAME_OMIT=gl_timer,stage_timer,ui,image leaves parts of every frame out, to measure what
// each costs the frame (docs/viewer.md, "What a frame costs"): the GL timer queries, the CUDA stage
// events, the ImGui overlay's drawing, or the image's. A measuring aid, not a way to run: what is
// left out is not timed or not drawn, and the run's summary says so (omitted=).
#include <string>

namespace gausslab {

struct FrameOmissions {
  bool gl_timer = false, stage_timer = false, ui = false, image = false;
  std::string names;  // as given, comma-separated; empty when nothing is left out
};

// Throws std::invalid_argument naming an unknown part and the known ones.
FrameOmissions parse_frame_omissions(const std::string& text);

// This process's, read once from the environment (an invalid value is parsed again, and throws, on
// every call: startup checks it first).
const FrameOmissions& frame_omissions();

}  // namespace gausslab
