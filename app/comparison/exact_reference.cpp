#include "comparison/exact_reference.hpp"

#include <algorithm>
#include <chrono>

#include "comparison/background_threads.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {

ExactReference::ExactReference() : thread_([this](Job& job, const std::atomic<bool>& superseded) { compute(job, superseded); }) {}

ExactReference::~ExactReference() = default;

std::shared_ptr<const ExactResult> ExactReference::find(const ExactKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& result : cache_)
    if (result->key == key) return result;
  return nullptr;
}

void ExactReference::request(const ExactKey& key, std::shared_ptr<const ImageRgba8> picture,
                             std::shared_ptr<const PictureLevels> levels) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (computing_ == key) return;
    for (const auto& result : cache_)
      if (result->key == key) return;
    computing_ = key;
    progress_ = 0.0;
    error_.clear();
  }
  thread_.submit(Job{{key, std::move(picture)}, std::move(levels)});
}

std::optional<double> ExactReference::progress(const ExactKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (computing_ != key) return std::nullopt;
  return progress_.load();
}

std::string ExactReference::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void ExactReference::compute(Job& job, const std::atomic<bool>& superseded) {
  // The UI thread must win the cores when both want them: this thread (and the OpenMP team it
  // starts, which inherits its niceness) runs at nice 10, on fewer threads than the machine has.
  use_background_cpu_share(true);
  const auto start = std::chrono::steady_clock::now();
  const ImageRgba8& picture = *job.picture;
  const int width = picture.width(), height = picture.height();
  auto result = std::make_shared<ExactResult>();
  result->key = job.key;
  result->width = width;
  result->height = height;
  try {
    result->values.resize(static_cast<std::size_t>(width) * height * 4);
    // Bands of rows: each band's row pass also covers its radius of rows above and below, so bands
    // of at least 4 radii keep that extra work under half.
    const int band = std::clamp(4 * job.key.params.radius(), 128, std::max(128, height));
    for (int y = 0; y < height; y += band) {
      if (superseded) return;  // a newer setting: this one is of no use
      const Rect rows{0, y, width, std::min(band, height - y)};
      double* into = result->values.data() + static_cast<std::ptrdiff_t>(y) * width * 4;
      if (const PictureLevels* levels = job.levels.get()) {  // the file's own samples, plane by plane
        for (int c = 0; c < 4; ++c) {
          const ConstImageView plane{levels->plane(c), width, height, sizeof(float) * static_cast<std::size_t>(width),
                                     PixelFormat::F32};
          const std::vector<double> part = reference_gaussian_region(plane, job.key.params, rows);
          for (std::size_t i = 0; i < part.size(); ++i) into[i * 4 + c] = part[i];
        }
      } else {
        const std::vector<double> part = reference_gaussian_region(picture.view(), job.key.params, rows);
        std::copy(part.begin(), part.end(), into);
      }
      progress_ = static_cast<double>(y + rows.height) / height;
    }
    result->rounded = ImageRgba8(width, height);
    std::uint8_t* out = &result->rounded.data()->r;
    for (std::size_t i = 0; i < result->values.size(); ++i) {
      const double v = std::clamp(result->values[i], 0.0, 255.0);
      out[i] = static_cast<std::uint8_t>(v + 0.5);
    }
  } catch (const std::exception& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (computing_ == job.key) computing_.reset();
    error_ = std::string("the exact Gaussian could not be computed: ") + error.what();
    return;
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.insert(cache_.begin(), std::move(result));
  if (cache_.size() > 2) cache_.resize(2);
  if (computing_ == job.key) computing_.reset();
}

}  // namespace gausslab
