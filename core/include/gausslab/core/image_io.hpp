#pragma once
// Loading images through stb_image and saving them through stb_image_write.
#include <stdexcept>
#include <string>

#include "gausslab/core/image.hpp"

namespace gausslab {

// A file could not be read as an image; what() names the file, the problem and what to do.
class ImageLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An image could not be written; what() names the file and the problem.
class ImageSaveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadedImage {
  ImageRgba8 image;         // grey → (v, v, v, 255); grey+alpha → (v, v, v, a); RGB → alpha 255
  int source_channels = 4;  // 1 grey, 2 grey+alpha, 3 RGB (palette without transparency), 4 RGBA
};

// Loads PNG, JPEG, BMP, TGA, PGM/PPM, GIF (first frame), PSD, HDR (tone-clamped), PIC into RGBA8.
// Throws ImageLoadError for a missing, empty, unreadable, truncated or unsupported file.
LoadedImage load_image(const std::string& path);
// The same from bytes in memory; `name` is used in messages.
LoadedImage load_image_from_memory(const void* bytes, std::size_t size, const std::string& name);

// "PNG, JPEG, BMP, TGA, PGM/PPM, GIF, PSD, HDR, PIC"
const char* supported_input_formats();

enum class Overwrite { Never, Allowed };

// Saves an RGBA8 image as PNG or BMP (chosen by the extension, case-insensitive), writing
// `channels` of them: 1 grey (the red channel), 2 grey + alpha (PNG; a BMP cannot hold it and gets
// RGBA, so the alpha is kept), 3 RGB, 4 RGBA. The file is written
// to a temporary name beside it and moved into place, so a failure never leaves a partial file;
// with Overwrite::Never an existing file is never replaced (ImageSaveError instead).
void save_image(const std::string& path, const ImageRgba8& image, int channels,
                Overwrite overwrite = Overwrite::Never);

// Empty if `path` names a file save_image can write (a .png or .bmp extension, an existing
// folder); otherwise the reason.
std::string check_output_path(const std::string& path, Overwrite overwrite);

// `path` if no file has that name; otherwise the first of stem-2.ext, stem-3.ext, ... that is free.
std::string first_free_path(const std::string& path);

}  // namespace gausslab
