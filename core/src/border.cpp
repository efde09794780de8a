#include "gausslab/core/border.hpp"

namespace gausslab {

const char* to_string(BorderMode mode) {
  switch (mode) {
    case BorderMode::Reflect: return "reflect";
    case BorderMode::Mirror: return "mirror";
    case BorderMode::Nearest: return "nearest";
    case BorderMode::Constant: return "constant";
    case BorderMode::Wrap: return "wrap";
    default: return "?";
  }
}

std::optional<BorderMode> border_mode_from_string(std::string_view name) {
  for (BorderMode mode : kAllBorderModes)
    if (name == to_string(mode)) return mode;
  return std::nullopt;
}

std::string border_mode_list() {
  std::string list;
  for (BorderMode mode : kAllBorderModes) {
    if (!list.empty()) list += ", ";
    list += to_string(mode);
  }
  return list;
}

const char* describe(BorderMode mode) {
  switch (mode) {
    case BorderMode::Reflect:
      return "d c b a | a b c d | d c b a: half-sample symmetric, keeps flat fields flat "
             "(SciPy 'reflect', OpenCV BORDER_REFLECT)";
    case BorderMode::Mirror:
      return "d c b | a b c d | c b a: whole-sample symmetric (SciPy 'mirror', OpenCV BORDER_REFLECT_101)";
    case BorderMode::Nearest:
      return "a a a | a b c d | d d d: repeats the edge pixel (SciPy 'nearest', OpenCV BORDER_REPLICATE)";
    case BorderMode::Constant:
      return "0 0 0 | a b c d | 0 0 0: zero outside, darkens the edges (SciPy 'constant', cval 0)";
    case BorderMode::Wrap:
      return "a b c d | a b c d | a b c d: periodic (SciPy 'wrap', OpenCV BORDER_WRAP)";
    default:
      return "";
  }
}

}  // namespace gausslab
