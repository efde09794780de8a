// gausslab_image_tool: the image loader and writer as a command, so that Python tests can compare
// them with PIL and OpenCV.
//   gausslab_image_tool load FILE            one JSON line (width, height, channels, format, note),
//                                            then the RGBA8 pixels, row by row, on stdout
//   gausslab_image_tool convert IN OUT [--format F] [--jpeg-quality Q] [--overwrite]
//                                            IN as loaded, written to OUT with its source channels
// Exit status 0, or 1 with the loader's or writer's message on stderr.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "gausslab/core/image_io.hpp"

namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int load(const std::string& path) {
  const gausslab::LoadedImage loaded = gausslab::load_image(path);
  std::cout << "{\"width\": " << loaded.image.width() << ", \"height\": " << loaded.image.height()
            << ", \"channels\": " << loaded.source_channels << ", \"format\": " << json_string(loaded.format)
            << ", \"note\": " << json_string(loaded.note) << "}\n";
  std::cout.write(reinterpret_cast<const char*>(loaded.image.data()),
                  static_cast<std::streamsize>(loaded.image.pixel_count() * 4));
  return std::cout.good() ? 0 : 1;
}

int convert(int argc, char** argv) {
  const gausslab::LoadedImage loaded = gausslab::load_image(argv[2]);
  gausslab::SaveOptions options;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--format") == 0 && i + 1 < argc)
      options.format = gausslab::image_format_from_string(argv[++i]);
    else if (std::strcmp(argv[i], "--jpeg-quality") == 0 && i + 1 < argc)
      options.jpeg_quality = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--overwrite") == 0)
      options.overwrite = gausslab::Overwrite::Allowed;
  }
  gausslab::save_image(argv[3], loaded.image, loaded.source_channels, options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "load") == 0) return load(argv[2]);
    if (argc >= 4 && std::strcmp(argv[1], "convert") == 0) return convert(argc, argv);
    std::cerr << "usage: gausslab_image_tool load FILE | convert IN OUT [--format F] [--jpeg-quality Q] [--overwrite]\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    return 1;
  }
}
