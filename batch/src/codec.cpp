#include "gausslab/batch/codec.hpp"

namespace gausslab {

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

std::vector<unsigned char> read_image_file(const std::string& path) { return read_image_bytes(path); }

LoadedImage decode_image(const std::vector<unsigned char>& bytes, const std::string& name) {
  if (bytes.empty()) throw ImageLoadError(quoted(name) + " is empty (0 bytes); it holds no image");
  return load_image_from_memory(bytes.data(), bytes.size(), name);
}

double encode_and_write(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite) {
  save_image(path, image, channels, overwrite);
  return 0;
}

std::string output_format_list() { return image_format_list(); }

bool is_output_format(const std::string& format) { return image_format_from_string(format).has_value(); }

}  // namespace gausslab
