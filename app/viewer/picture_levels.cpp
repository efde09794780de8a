#include "viewer/picture_levels.hpp"

#include <string>

#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"

namespace gausslab {

std::shared_ptr<const PictureLevels> picture_levels(const LoadedImage& loaded) {
  const HostImage& image = loaded.image;
  const SampleType type = sample_type(image.format());
  if (type == SampleType::U8) return nullptr;  // the 8-bit picture holds the file's samples
  // The 8-bit reduction's scale (reduce_to_rgba8): 16-bit levels (up to a PNM's maxval when its
  // samples run up to it) to 0..255, floats' nominal [0, 1] to 0..255.
  const double full = type == SampleType::U16 ? (loaded.maxval ? loaded.maxval : 65535.0) : 1.0;
  const double scale = 255.0 / full;
  const int w = image.width(), h = image.height(), channels = image.channels();
  auto levels = std::make_shared<PictureLevels>();
  levels->width = w;
  levels->height = h;
  levels->type = loaded.source_type + ", " + std::to_string(channels) + (channels == 1 ? " channel" : " channels");
  levels->units_per_level = full / 255.0;
  const std::size_t n = static_cast<std::size_t>(w) * h;
  levels->planes.resize(n * 4);
  const bool colour = channels >= 3, alpha = channels == 2 || channels == 4;
  std::vector<float> row(static_cast<std::size_t>(w) * channels);
  for (int y = 0; y < h; ++y) {
    load_row_samples(image.view(), y, row.data());
    for (int x = 0; x < w; ++x) {
      const float* s = row.data() + static_cast<std::size_t>(x) * channels;
      const std::size_t i = static_cast<std::size_t>(y) * w + x;
      const double rgba[4] = {s[0], colour ? s[1] : s[0], colour ? s[2] : s[0], alpha ? s[channels - 1] : full};
      for (int c = 0; c < 4; ++c) levels->planes[c * n + i] = static_cast<float>(rgba[c] * scale);
    }
  }
  return levels;
}

}  // namespace gausslab
