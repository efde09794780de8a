// gausslab_image_tool: the image loader and writer as a command, so that Python tests can compare
// them with PIL, OpenCV, tifffile, astropy and OpenEXR's tools.
//   gausslab_image_tool load FILE            one JSON line (width, height, channels, format,
//                                            note), then the RGBA8 pixels (reduce_to_rgba8), row by
//                                            row, on stdout
//   gausslab_image_tool samples FILE         one JSON line (width, height, channels, type: u8, u16,
//                                            f16 or f32, source_type, maxval, format, note), then
//                                            the samples as loaded, interleaved, little-endian
//   gausslab_image_tool convert IN OUT [--format F] [--jpeg-quality Q] [--float64] [--maxval M]
//                                      [--uncompressed] [--overwrite]
//                                            IN as loaded (its own type and channels), written to OUT
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
  const gausslab::LoadedRgba8 loaded = gausslab::load_image_rgba8(path);
  std::cout << "{\"width\": " << loaded.image.width() << ", \"height\": " << loaded.image.height()
            << ", \"channels\": " << loaded.source_channels << ", \"format\": " << json_string(loaded.format)
            << ", \"note\": " << json_string(loaded.note) << "}\n";
  std::cout.write(reinterpret_cast<const char*>(loaded.image.data()),
                  static_cast<std::streamsize>(loaded.image.pixel_count() * 4));
  return std::cout.good() ? 0 : 1;
}

int samples(const std::string& path) {
  const gausslab::LoadedImage loaded = gausslab::load_image(path);
  std::cout << "{\"width\": " << loaded.image.width() << ", \"height\": " << loaded.image.height()
            << ", \"channels\": " << loaded.channels() << ", \"type\": "
            << json_string(gausslab::to_string(gausslab::sample_type(loaded.image.format())))
            << ", \"source_type\": " << json_string(loaded.source_type) << ", \"maxval\": " << loaded.maxval
            << ", \"format\": " << json_string(loaded.format) << ", \"note\": " << json_string(loaded.note) << "}\n";
  std::cout.write(reinterpret_cast<const char*>(loaded.image.data()), static_cast<std::streamsize>(loaded.image.size_bytes()));
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
    else if (std::strcmp(argv[i], "--maxval") == 0 && i + 1 < argc)
      options.pnm_maxval = static_cast<std::uint32_t>(std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--float64") == 0)
      options.float64 = true;
    else if (std::strcmp(argv[i], "--uncompressed") == 0)
      options.compress = false;
    else if (std::strcmp(argv[i], "--overwrite") == 0)
      options.overwrite = gausslab::Overwrite::Allowed;
  }
  gausslab::save_image(argv[3], loaded.image.view(), options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "load") == 0) return load(argv[2]);
    if (argc == 3 && std::strcmp(argv[1], "samples") == 0) return samples(argv[2]);
    if (argc >= 4 && std::strcmp(argv[1], "convert") == 0) return convert(argc, argv);
    std::cerr << "usage: gausslab_image_tool load FILE | samples FILE | convert IN OUT [--format F] "
                 "[--jpeg-quality Q] [--float64] [--maxval M] [--uncompressed] [--overwrite]\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    return 1;
  }
}
