#pragma once
// What the sequence tests share: running an engine over a synthetic sky, and the statistics the
// issue's accuracy criteria are stated in.
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "gausslab/sequence/synthetic.hpp"

namespace gausslab::test {

// The sky of the accuracy criteria: jitter up to ±2 px, noise 0.5 % of the background; small
// and not square, so that a mix-up of x and y shows.
SyntheticSpec accuracy_sky(int frames = 44);

// Every frame of `sky` through `engine` (begin, push, collect), the outcomes in order.
std::vector<FrameOutcome> run_engine(SequenceEngine& engine, const SyntheticSequence& sky,
                                     const SequenceSettings& settings, Method* prefilter = nullptr,
                                     FilterParams prefilter_params = {});
// The same for frames given directly.
std::vector<FrameOutcome> run_engine(SequenceEngine& engine, const std::vector<ImageF32>& frames,
                                     const SequenceSettings& settings);

// 1.4826 × median absolute deviation over the pixels at least `margin` px from the border.
double robust_deviation(const ImageF32& image, int margin = 0);

// The largest (smallest) value of the 3×3 pixels nearest (x, y).
double peak_near(const ImageF32& image, double x, double y);
double lowest_near(const ImageF32& image, double x, double y);

// The amplitude of a source of this PSF (a Gaussian of sigma px, peak 1) centred at (x, y): the
// least-squares fit over the 9×9 pixels around it. A negative ghost of a target shows here with
// the noise of a fit, not of one pixel.
double psf_amplitude(const ImageF32& image, double x, double y, double sigma);

// Every frame of the sky.
std::vector<ImageF32> frames_of(const SyntheticSequence& sky);

// A readable frame that belongs to no sequence: uniform noise in [0, 1].
ImageF32 garbage_frame(int width, int height, unsigned seed);
// Adds Gaussian noise of this deviation to a frame.
void add_noise(ImageF32& frame, double sigma, unsigned seed);

}  // namespace gausslab::test
