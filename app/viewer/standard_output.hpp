#pragma once
// `--screenshot -` and `--screenshot-view -`: the picture goes to standard output (a pipe or a
// redirection: gausslab IMG --offscreen --frames 4 --screenshot - | convert - ...), and nothing else
// does: once reserved, what the viewer prints on stdout (the summary line, the script's report) goes
// to stderr. Formats written as their encoder goes (PNG, PNM, BMP, TGA, JPEG, PFM, NPY: no seeking
// back) stream there; TIFF, OpenEXR and FITS, whose libraries seek back while they write, are refused
// with the formats that stream named.
#include <string>

#include "gausslab/core/image.hpp"
#include "gausslab/core/image_io.hpp"

namespace gausslab {

inline constexpr const char* kStandardOutputName = "-";

// "" when `format` can be written to standard output; otherwise why not and what to use instead
// (inline: the options' parser, fuzzed on its own, links nothing of this file).
inline std::string standard_output_refusal(ImageFormat format) {
  if (format != ImageFormat::Tiff && format != ImageFormat::Exr && format != ImageFormat::Fits) return {};
  return std::string(to_string(format)) +
         " cannot be written to standard output: its library seeks back in the file while it writes; use png, "
         "pnm, bmp, tga, jpg, pfm or npy there, or give a file name";
}

// The picture's file descriptor is taken aside and standard output (fd 1) points at stderr from now
// on. Call once, before anything is printed. Throws std::runtime_error when stdout is a terminal (a
// picture there is noise: redirect it) or cannot be duplicated.
void reserve_standard_output();

// `channels` of `image` as `format` to the reserved standard output, piece by piece as encoded.
// Throws std::runtime_error (the reader closed the pipe early, a full disk behind a redirection).
void write_standard_output(const ImageRgba8& image, int channels, ImageFormat format);

}  // namespace gausslab
