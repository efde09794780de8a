#pragma once
// Border modes, named and defined as SciPy's ndimage names them, so tests compare with it directly.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "gausslab/core/host_device.hpp"

namespace gausslab {

enum class BorderMode : int {
  Reflect,   // d c b a | a b c d | d c b a   half-sample symmetric (SciPy default, keeps the mean)
  Mirror,    //   d c b | a b c d | c b a     whole-sample symmetric (OpenCV's REFLECT_101)
  Nearest,   // a a a a | a b c d | d d d d   clamp to the edge
  Constant,  // 0 0 0 0 | a b c d | 0 0 0 0   zero outside (as in the published GPU kernels)
  Wrap,      // a b c d | a b c d | a b c d   periodic
  Count
};

inline constexpr std::array<BorderMode, 5> kAllBorderModes = {
    BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Constant,
    BorderMode::Wrap};

// "reflect", "mirror", "nearest", "constant", "wrap".
const char* to_string(BorderMode mode);
// Inverse of to_string; nullopt for an unknown name.
std::optional<BorderMode> border_mode_from_string(std::string_view name);
// "reflect, mirror, nearest, constant, wrap": for help texts and error messages.
std::string border_mode_list();
// One line for tooltips: the extension pattern and its SciPy/OpenCV names.
const char* describe(BorderMode mode);

// Maps sample index i of a line of n samples onto [0, n) as the border mode extends the line;
// returns -1 where 'constant' supplies a zero. Exact for any i, also when |i| exceeds n many times
// (a radius larger than the image side), as SciPy does.
GAUSSLAB_HD int border_index(int i, int n, BorderMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case BorderMode::Reflect: {
      const int period = 2 * n;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - 1 - m;
    }
    case BorderMode::Mirror: {
      if (n == 1) return 0;
      const int period = 2 * n - 2;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    case BorderMode::Nearest:
      return i < 0 ? 0 : n - 1;
    case BorderMode::Wrap: {
      const int m = i % n;
      return m < 0 ? m + n : m;
    }
    default:  // Constant
      return -1;
  }
}

}  // namespace gausslab
