#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

const char* to_string(PixelFormat format) {
  switch (format) {
    case PixelFormat::Rgba8: return "rgba8";
    case PixelFormat::F32: return "f32";
    default: return "?";
  }
}

std::optional<PixelFormat> pixel_format_from_string(std::string_view name) {
  if (name == "rgba8") return PixelFormat::Rgba8;
  if (name == "f32") return PixelFormat::F32;
  return std::nullopt;
}

}  // namespace gausslab
