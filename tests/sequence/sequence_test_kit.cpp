#include "sequence_test_kit.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace gausslab::test {

SyntheticSpec accuracy_sky(int frames) {
  SyntheticSpec spec;
  spec.width = 160;
  spec.height = 120;
  spec.frames = frames;
  spec.seed = 7;
  spec.jitter = 2.0;
  spec.noise = 0.005;
  return spec;
}

namespace {
std::vector<FrameOutcome> drain(SequenceEngine& engine, std::vector<FrameOutcome> outcomes) {
  while (std::optional<FrameOutcome> o = engine.collect(true)) outcomes.push_back(std::move(*o));
  return outcomes;
}
}  // namespace

std::vector<FrameOutcome> run_engine(SequenceEngine& engine, const SyntheticSequence& sky,
                                     const SequenceSettings& settings, Method* prefilter,
                                     FilterParams prefilter_params) {
  SequenceSetup setup;
  setup.width = sky.spec().width;
  setup.height = sky.spec().height;
  setup.settings = settings;
  setup.prefilter = prefilter;
  setup.prefilter_params = prefilter_params;
  engine.begin(setup);
  std::vector<FrameOutcome> outcomes;
  for (int t = 0; t < sky.spec().frames; ++t) {
    engine.push(sky.frame(t).view(), nullptr);
    while (std::optional<FrameOutcome> o = engine.collect(false)) outcomes.push_back(std::move(*o));
  }
  return drain(engine, std::move(outcomes));
}

std::vector<FrameOutcome> run_engine(SequenceEngine& engine, const std::vector<ImageF32>& frames,
                                     const SequenceSettings& settings) {
  SequenceSetup setup;
  setup.width = frames.at(0).width();
  setup.height = frames.at(0).height();
  setup.settings = settings;
  engine.begin(setup);
  std::vector<FrameOutcome> outcomes;
  for (const ImageF32& frame : frames) {
    engine.push(frame.view(), nullptr);
    while (std::optional<FrameOutcome> o = engine.collect(false)) outcomes.push_back(std::move(*o));
  }
  return drain(engine, std::move(outcomes));
}

double robust_deviation(const ImageF32& image, int margin) {
  std::vector<double> v;
  for (int y = margin; y < image.height() - margin; ++y)
    for (int x = margin; x < image.width() - margin; ++x) v.push_back(image.at(x, y));
  if (v.empty()) throw std::invalid_argument("robust_deviation: no pixels inside the margin");
  auto median = [](std::vector<double> a) {
    std::nth_element(a.begin(), a.begin() + a.size() / 2, a.end());
    return a[a.size() / 2];
  };
  const double m = median(v);
  for (double& x : v) x = std::fabs(x - m);
  return 1.4826 * median(v);
}

std::vector<ImageF32> frames_of(const SyntheticSequence& sky) {
  std::vector<ImageF32> frames;
  for (int t = 0; t < sky.spec().frames; ++t) frames.push_back(sky.frame(t));
  return frames;
}

ImageF32 garbage_frame(int width, int height, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  ImageF32 frame(width, height);
  for (std::size_t i = 0; i < frame.pixel_count(); ++i) frame.data()[i] = u(rng);
  return frame;
}

void add_noise(ImageF32& frame, double sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, sigma);
  for (std::size_t i = 0; i < frame.pixel_count(); ++i) frame.data()[i] += static_cast<float>(n(rng));
}

double lowest_near(const ImageF32& image, double x, double y) {
  const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
  double lowest = 1e300;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int px = std::clamp(cx + dx, 0, image.width() - 1), py = std::clamp(cy + dy, 0, image.height() - 1);
      lowest = std::min(lowest, static_cast<double>(image.at(px, py)));
    }
  return lowest;
}

double psf_amplitude(const ImageF32& image, double x, double y, double sigma) {
  const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
  double fit = 0.0, norm = 0.0;
  for (int py = std::max(cy - 4, 0); py <= std::min(cy + 4, image.height() - 1); ++py)
    for (int px = std::max(cx - 4, 0); px <= std::min(cx + 4, image.width() - 1); ++px) {
      const double g = std::exp(-((px - x) * (px - x) + (py - y) * (py - y)) / (2 * sigma * sigma));
      fit += g * image.at(px, py);
      norm += g * g;
    }
  return norm > 0 ? fit / norm : 0.0;
}

double peak_near(const ImageF32& image, double x, double y) {
  const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
  double best = -1e300;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int px = std::clamp(cx + dx, 0, image.width() - 1), py = std::clamp(cy + dy, 0, image.height() - 1);
      best = std::max(best, static_cast<double>(image.at(px, py)));
    }
  return best;
}

}  // namespace gausslab::test
