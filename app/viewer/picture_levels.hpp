#pragma once
// A picture's samples as the numbers and the exact Gaussian take them when its file holds more than
// 8 bits (issue 35): four float planes, r, g, b, a, in 8-bit levels (a 16-bit sample x 255/65535, a
// half or float sample x 255: its nominal [0, 1] is levels 0..255, and values beyond stay; grey
// gives r = g = b, a picture without alpha 255). The slots' display shows the 8-bit reduction of
// the same file; the methods' values for the numbers, the exact Gaussian, the inspector and the
// difference view are computed from these, never from the 8-bit copy.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gausslab {

struct LoadedImage;

struct PictureLevels {
  int width = 0, height = 0;
  std::string type;           // the file's samples, for the panel ("uint16, 3 channels")
  double units_per_level = 1; // the file's own units in one 8-bit level (1/255 for float, 257 for 16-bit)
  std::vector<float> planes;  // 4 planes of width x height, r, g, b, a one after the other

  const float* plane(int c) const { return planes.data() + static_cast<std::size_t>(c) * width * height; }
  float sample(int x, int y, int c) const { return plane(c)[static_cast<std::size_t>(y) * width + x]; }
};

// The levels of a loaded file, or null when its samples are 8-bit (the 8-bit picture is then exact).
std::shared_ptr<const PictureLevels> picture_levels(const LoadedImage& loaded);

}  // namespace gausslab
