#pragma once
// The text and preview files gausslab-sequence writes, as pure functions (tests check them).
#include <string>
#include <vector>

#include <optional>

#include "gausslab/core/image.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "gausslab/sequence/synthetic.hpp"

namespace gausslab {

struct ShiftRow {
  double dx, dy;  // NaN where no shift was estimated
};

// "frame,dx,dy\n0,0.000000,0.000000\n1,nan,nan\n..."
std::string shifts_csv(const std::vector<ShiftRow>& rows);

// One input frame's verdict: the engine's (verdict set) or the reader's (`problem`: unreadable, other size).
struct FrameRow {
  std::string name;
  std::optional<FrameVerdict> verdict;
  seq::ShiftRecord shift;
  std::string problem;
};
// "frame,name,verdict,segment,match,residual,residual_ratio,tail\n0,frame_00000.png,reference,1,0,0,0,0\n..."
// (segments from 1; empty fields where a frame was not processed).
std::string frames_csv(const std::vector<FrameRow>& rows);

// "a, b, c" (the first five, then "...").
std::string list_of(const std::vector<std::string>& items);
// The synthetic truth: the shifts, and the target's track (frame,x,y,peak,inside).
std::string true_shifts_csv(const SyntheticSequence& sky, int frames);
std::string target_track_csv(const SyntheticSequence& sky, int frames);

// 1.4826 × the median absolute deviation from the median: the noise's standard deviation, robust
// to stars and targets.
double robust_deviation(const ImageF32& image);

// 8-bit previews: a frame stretched between its 1st and 99.5th percentiles; a whitened frame with
// zero at mid grey and ±4 robust deviations at black and white.
ImageRgba8 frame_preview(const ImageF32& frame);
ImageRgba8 whitened_preview(const ImageF32& whitened);

}  // namespace gausslab
