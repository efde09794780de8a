#pragma once
// A deterministic synthetic sky: a star field on a smooth background, seen through a camera that
// jitters by sub-pixel amounts from frame to frame, a faint target moving in a straight line, and
// sensor noise. It also gives the truth: each frame's shift and the target's position.
//
// Values are fractions of full scale (as a loaded image's): background 0.2, noise 0.5 % of it.
// Frame t shows the sky moved by its shift d_t (frame 0: d = 0): a feature at (x, y) in frame 0
// is at (x + dx, y + dy) in frame t. Stars and the target are Gaussians integrated over each
// pixel, so sub-pixel shifts are rendered exactly. The same spec gives the same frames.
#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/core/image.hpp"

namespace gausslab {

struct SyntheticSpec {
  int width = 512;
  int height = 512;
  int frames = 64;
  std::uint64_t seed = 1;
  double background = 0.2;        // mean background level (fraction of full scale)
  double noise = 0.005;           // noise standard deviation as a fraction of the background level
  double jitter = 2.0;            // each shift uniform in [-jitter, jitter]² px
  double target_brightness = 4.0; // the target's peak above the background, in noise deviations
  double target_speed = 1.5;      // px per frame
  double star_density = 1.0 / 300.0;  // stars per px²
  double psf_sigma = 1.3;         // px
};

// Empty when the spec is valid; otherwise what is wrong and the allowed range.
std::string validate(const SyntheticSpec& spec);

struct ShiftXY {
  double dx = 0, dy = 0;
};
struct TargetPoint {
  double x = 0, y = 0;  // pixel coordinates in the frame (the centre of pixel (i, j) is (i, j))
  double peak = 0;      // peak above the background (fraction of full scale)
  bool inside = false;  // at least 3 px inside the frame
};

class SyntheticSequence {
 public:
  // Throws std::invalid_argument with validate()'s message.
  explicit SyntheticSequence(const SyntheticSpec& spec);

  const SyntheticSpec& spec() const { return spec_; }
  ImageF32 frame(int t) const;
  // Frame t without noise (tests measure against it).
  ImageF32 clean_frame(int t) const;
  ShiftXY true_shift(int t) const;
  TargetPoint target(int t) const;
  double noise_sigma() const { return spec_.noise * spec_.background; }

 private:
  struct Star {
    double x, y, peak;
  };
  struct Wave {
    double kx, ky, phase, amplitude;
  };
  ImageF32 render(int t, bool with_noise) const;
  void add_source(ImageF32& image, double cx, double cy, double peak) const;

  SyntheticSpec spec_;
  std::vector<Star> stars_;
  std::vector<Wave> waves_;
  std::vector<ShiftXY> shifts_;
  double target_x0_ = 0, target_y0_ = 0, target_vx_ = 0, target_vy_ = 0;
};

}  // namespace gausslab
