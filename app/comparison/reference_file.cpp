#include "comparison/reference_file.hpp"

#include <filesystem>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

namespace {

// An 8-bit file's samples as levels (picture_levels() leaves those to the 8-bit picture; the
// reference's numbers always read planes).
std::shared_ptr<const PictureLevels> eight_bit_levels(const ImageRgba8& image, int channels) {
  auto levels = std::make_shared<PictureLevels>();
  levels->width = image.width();
  levels->height = image.height();
  levels->type = "uint8, " + std::to_string(channels) + (channels == 1 ? " channel" : " channels");
  const std::size_t n = static_cast<std::size_t>(image.width()) * image.height();
  levels->planes.resize(n * 4);
  const std::uint8_t* bytes = &image.data()->r;
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 4; ++c) levels->planes[c * n + i] = bytes[i * 4 + c];
  return levels;
}

}  // namespace

ReferenceImage load_reference(const std::string& path) {
  const LoadedImage file = load_image(path);
  LoadedRgba8 reduced = reduce_to_rgba8(file);
  ReferenceImage out;
  out.path = path;
  out.name = std::filesystem::path(path).filename().string();
  out.shown = std::make_shared<const ImageRgba8>(std::move(reduced.image));
  out.levels = picture_levels(file);
  if (!out.levels) out.levels = eight_bit_levels(*out.shown, file.channels());
  out.type = out.levels->type;
  return out;
}

std::string reference_size_problem(const std::string& name, int reference_width, int reference_height, int width,
                                   int height) {
  if (reference_width == width && reference_height == height) return {};
  return "the file " + name + " is " + std::to_string(reference_width) + " x " + std::to_string(reference_height) +
         " but the picture is " + std::to_string(width) + " x " + std::to_string(height) +
         ": a reference must have the picture's size (resample one of them, or --size WxH to the file's size)";
}

std::string reference_label(const ReferenceImage& reference) {
  return "file " + reference.name + " (" + reference.type + ")";
}

}  // namespace gausslab
