#include "gausslab/sequence/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gausslab {

namespace {

// SplitMix64: small, fast and fully specified, so the frames are the same on every platform
// (std::normal_distribution is not: each standard library draws its own way).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  Random(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
      : state_(mix(mix(seed ^ 0x9E3779B97F4A7C15ull) + mix(stream + 0xD1B54A32D192ED03ull) + index)) {}
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return mix(state_);
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Box-Muller; the second value is thrown away, which keeps each draw independent of parity.
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

enum Stream : std::uint64_t { kStars = 1, kWaves, kJitter, kTarget, kNoise };

bool finite_in(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

}  // namespace

std::string validate(const SyntheticSpec& s) {
  if (s.width < 16 || s.height < 16 || s.width > 16384 || s.height > 16384)
    return "synthetic frames must be 16..16384 px on each side (got " + std::to_string(s.width) + "x" +
           std::to_string(s.height) + ")";
  if (s.frames < 1 || s.frames > 100000) return "synthetic frame count must be 1..100000";
  if (!finite_in(s.background, 0.01, 0.9)) return "synthetic background must be in [0.01, 0.9] of full scale";
  if (!finite_in(s.noise, 0.0, 0.5)) return "synthetic noise must be in [0, 0.5] of the background";
  if (!finite_in(s.jitter, 0.0, 32.0)) return "synthetic jitter must be in [0, 32] px";
  if (!finite_in(s.target_brightness, 0.0, 1000.0)) return "target brightness must be in [0, 1000] noise deviations";
  if (!finite_in(s.target_speed, 0.0, 100.0)) return "target speed must be in [0, 100] px per frame";
  if (!finite_in(s.star_density, 0.0, 0.1)) return "star density must be in [0, 0.1] stars per px²";
  if (!finite_in(s.psf_sigma, 0.3, 10.0)) return "PSF sigma must be in [0.3, 10] px";
  return {};
}

SyntheticSequence::SyntheticSequence(const SyntheticSpec& spec) : spec_(spec) {
  if (const std::string problem = validate(spec); !problem.empty()) throw std::invalid_argument(problem);
  const double w = spec.width, h = spec.height, margin = spec.jitter + 4.0 * spec.psf_sigma;

  // Stars anywhere the jittered frames can see; peaks follow a Pareto law (many faint, few bright).
  Random stars(spec.seed, kStars, 0);
  const auto count = static_cast<long long>(spec.star_density * (w + 2 * margin) * (h + 2 * margin));
  const double bright_limit = 0.95 - 1.3 * spec.background;
  stars_.reserve(static_cast<std::size_t>(count));
  for (long long i = 0; i < count; ++i) {
    Star s;
    s.x = stars.uniform(-margin, w + margin);
    s.y = stars.uniform(-margin, h + margin);
    const double pareto = std::pow(1.0 - stars.uniform(), -1.0 / 1.2) - 1.0;
    s.peak = std::min(spec.background * (0.02 + 0.05 * pareto), bright_limit);
    stars_.push_back(s);
  }

  // A smooth background: three long waves, ±15 % together.
  Random waves(spec.seed, kWaves, 0);
  const double longest = std::max(w, h);
  for (int i = 0; i < 3; ++i) {
    const double angle = waves.uniform(0.0, 6.283185307179586);
    const double wavelength = waves.uniform(0.8, 2.0) * longest;
    const double k = 6.283185307179586 / wavelength;
    waves_.push_back({k * std::cos(angle), k * std::sin(angle), waves.uniform(0.0, 6.283185307179586), 0.05});
  }

  shifts_.resize(spec.frames);
  for (int t = 1; t < spec.frames; ++t) {
    Random jitter(spec.seed, kJitter, static_cast<std::uint64_t>(t));
    shifts_[t].dx = jitter.uniform(-spec.jitter, spec.jitter);
    shifts_[t].dy = jitter.uniform(-spec.jitter, spec.jitter);
  }

  // The target enters near the upper left and crosses the frame at 20..50 degrees.
  Random target(spec.seed, kTarget, 0);
  const double angle = target.uniform(20.0, 50.0) * 3.141592653589793 / 180.0;
  target_x0_ = w * target.uniform(0.15, 0.3);
  target_y0_ = h * target.uniform(0.15, 0.3);
  target_vx_ = spec.target_speed * std::cos(angle);
  target_vy_ = spec.target_speed * std::sin(angle);
}

ShiftXY SyntheticSequence::true_shift(int t) const { return shifts_.at(t); }

TargetPoint SyntheticSequence::target(int t) const {
  const ShiftXY d = true_shift(t);
  TargetPoint p;
  p.x = target_x0_ + target_vx_ * t + d.dx;
  p.y = target_y0_ + target_vy_ * t + d.dy;
  p.peak = spec_.target_brightness * noise_sigma();
  p.inside = p.x >= 3 && p.y >= 3 && p.x <= spec_.width - 4 && p.y <= spec_.height - 4;
  return p;
}

// A Gaussian of this peak (for a source centred on a pixel) integrated over each pixel.
void SyntheticSequence::add_source(ImageF32& image, double cx, double cy, double peak) const {
  const double s = spec_.psf_sigma * std::sqrt(2.0);
  const int reach = static_cast<int>(std::ceil(4.0 * spec_.psf_sigma));
  const int ix = static_cast<int>(std::lround(cx)), iy = static_cast<int>(std::lround(cy));
  const int x0 = std::max(ix - reach, 0), x1 = std::min(ix + reach, image.width() - 1);
  const int y0 = std::max(iy - reach, 0), y1 = std::min(iy + reach, image.height() - 1);
  if (x0 > x1 || y0 > y1) return;
  const double centred = std::erf(0.5 / s);
  const double scale = peak / (centred * centred);
  double px[128], py[128];  // reach <= 40 for psf_sigma <= 10
  for (int x = x0; x <= x1; ++x) px[x - x0] = 0.5 * (std::erf((x + 0.5 - cx) / s) - std::erf((x - 0.5 - cx) / s));
  for (int y = y0; y <= y1; ++y) py[y - y0] = 0.5 * (std::erf((y + 0.5 - cy) / s) - std::erf((y - 0.5 - cy) / s));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      image.at(x, y) += static_cast<float>(scale * px[x - x0] * py[y - y0]);
}

ImageF32 SyntheticSequence::render(int t, bool with_noise) const {
  const ShiftXY d = true_shift(t);
  ImageF32 image(spec_.width, spec_.height);
  const double level = spec_.background;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < spec_.height; ++y)
    for (int x = 0; x < spec_.width; ++x) {
      const double sx = x - d.dx, sy = y - d.dy;  // the sky point this pixel sees
      double b = 1.0;
      for (const Wave& wave : waves_) b += wave.amplitude * std::sin(wave.kx * sx + wave.ky * sy + wave.phase);
      image.at(x, y) = static_cast<float>(level * b);
    }
  for (const Star& s : stars_) add_source(image, s.x + d.dx, s.y + d.dy, s.peak);
  const TargetPoint target_point = target(t);
  add_source(image, target_point.x, target_point.y, target_point.peak);
  if (with_noise) {
    const double sigma = noise_sigma();
#pragma omp parallel for schedule(static)
    for (int y = 0; y < spec_.height; ++y) {
      Random noise(spec_.seed, kNoise, static_cast<std::uint64_t>(t) * 65536u + static_cast<std::uint64_t>(y));
      for (int x = 0; x < spec_.width; ++x) image.at(x, y) += static_cast<float>(sigma * noise.normal());
    }
  }
  float* pixels = image.data();
  for (std::size_t i = 0; i < image.pixel_count(); ++i) pixels[i] = std::clamp(pixels[i], 0.0f, 1.0f);
  return image;
}

ImageF32 SyntheticSequence::frame(int t) const { return render(t, true); }
ImageF32 SyntheticSequence::clean_frame(int t) const { return render(t, false); }

}  // namespace gausslab
