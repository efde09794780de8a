#include "gausslab/batch/codec.hpp"

#include <chrono>
#include <string_view>

#include "gausslab/core/atomic_file.hpp"

namespace gausslab {

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

std::vector<unsigned char> read_image_file(const std::string& path) { return read_image_bytes(path); }

LoadedRgba8 decode_image(const std::vector<unsigned char>& bytes, const std::string& name) {
  if (bytes.empty()) throw ImageLoadError(quoted(name) + " is empty (0 bytes); it holds no image");
  return reduce_to_rgba8(load_image_from_memory(bytes.data(), bytes.size(), name));
}

WriteTimes encode_and_write(const std::string& path, const ImageRgba8& image, int channels,
                            const OutputSettings& settings) {
  const std::optional<ImageFormat> format = settings.format ? settings.format : image_format_from_path(path);
  if (!format)
    throw ImageSaveError(quoted(path) + ": no image format for this extension; use " + image_format_list());
  using Clock = std::chrono::steady_clock;
  WriteTimes times;
  const auto start = Clock::now();
  const std::vector<unsigned char> bytes = encode_image(image, channels, *format, settings.jpeg_quality);
  const auto encoded = Clock::now();
  write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                        settings.overwrite);
  times.encode_ms = std::chrono::duration<double, std::milli>(encoded - start).count();
  times.write_ms = std::chrono::duration<double, std::milli>(Clock::now() - encoded).count();
  return times;
}

// The filter writes 8-bit images until it keeps types: the formats that hold them, but .npy (the
// filter's 1D signals).
bool is_output_format(const std::string& format) {
  const std::optional<ImageFormat> f = image_format_from_string(format);
  return f && *f != ImageFormat::Npy && format_writes(*f, SampleType::U8);
}

std::string output_format_list() {
  std::string list;
  for (int f = 0; f < static_cast<int>(ImageFormat::Count); ++f)
    if (is_output_format(to_string(static_cast<ImageFormat>(f))))
      list += (list.empty() ? "" : ", ") + std::string(to_string(static_cast<ImageFormat>(f)));
  return list;
}

}  // namespace gausslab
