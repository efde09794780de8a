// Image files through Debian's stb (libstb: stb_image and stb_image_write are compiled there).
#include "gausslab/core/image_io.hpp"

#include <fcntl.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace gausslab {

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool starts_with(const std::vector<unsigned char>& bytes, std::initializer_list<unsigned char> prefix) {
  return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

// stb decodes some damaged files without complaint; these checks catch what it lets through.
std::string structural_problem(const std::vector<unsigned char>& bytes) {
  if (starts_with(bytes, {0xFF, 0xD8})) {  // JPEG must end with the EOI marker (FF D9)
    auto end = bytes.end();
    while (end != bytes.begin() && (*(end - 1) == 0x00 || *(end - 1) == 0x0A || *(end - 1) == 0x0D)) --end;
    if (end - bytes.begin() < 4 || *(end - 2) != 0xFF || *(end - 1) != 0xD9)
      return "the JPEG data is truncated (no end-of-image marker)";
  }
  if (starts_with(bytes, {0x89, 'P', 'N', 'G'})) {  // PNG must end with an IEND chunk
    static const unsigned char iend[] = {'I', 'E', 'N', 'D'};
    if (std::search(bytes.begin(), bytes.end(), std::begin(iend), std::end(iend)) == bytes.end())
      return "the PNG data is truncated (no IEND chunk)";
  }
  return {};
}

std::string unsupported_format_hint(const std::vector<unsigned char>& bytes) {
  if (starts_with(bytes, {'I', 'I', 0x2A, 0x00}) || starts_with(bytes, {'M', 'M', 0x00, 0x2A}))
    return "TIFF files are not supported; convert it to PNG first (for example: convert in.tif out.png)";
  if (starts_with(bytes, {'R', 'I', 'F', 'F'})) return "WebP files are not supported; convert it to PNG first";
  if (starts_with(bytes, {'v', '/', '1', 0x01})) return "OpenEXR files are not supported";
  return {};
}

std::string explain_stb_failure(const std::string& name, const std::vector<unsigned char>& bytes) {
  if (std::string hint = unsupported_format_hint(bytes); !hint.empty()) return quoted(name) + ": " + hint;
  const char* reason = stbi_failure_reason();
  const std::string why = reason ? reason : "unknown reason";
  if (why == "unknown image type")
    return quoted(name) + " is not an image in a supported format (" + supported_input_formats() +
           "); the file may be damaged or of another kind";
  return quoted(name) + " could not be decoded (" + why + "); the file is damaged or uses an unsupported variant";
}

std::vector<unsigned char> read_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw ImageLoadError("cannot open " + quoted(path) + ": no such file; check the path");
  if (fs::is_directory(status)) throw ImageLoadError(quoted(path) + " is a folder, not an image file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ImageLoadError("cannot open " + quoted(path) + ": " + std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw ImageLoadError("cannot read " + quoted(path) + ": " + std::strerror(errno));
  return bytes;
}

}  // namespace

const char* supported_input_formats() { return "PNG, JPEG, BMP, TGA, PGM/PPM, GIF, PSD, HDR, PIC"; }

LoadedImage load_image_from_memory(const void* data, std::size_t size, const std::string& name) {
  const auto* begin = static_cast<const unsigned char*>(data);
  const std::vector<unsigned char> bytes(begin, begin + size);
  if (bytes.empty()) throw ImageLoadError(quoted(name) + " is empty (0 bytes); it holds no image");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ImageLoadError(quoted(name) + " is larger than 2 GiB; gausslab reads image files up to 2 GiB");
  if (std::string problem = structural_problem(bytes); !problem.empty())
    throw ImageLoadError(quoted(name) + " could not be decoded: " + problem);

  int width = 0, height = 0, channels = 0;
  const int length = static_cast<int>(bytes.size());
  if (!stbi_info_from_memory(bytes.data(), length, &width, &height, &channels))
    throw ImageLoadError(explain_stb_failure(name, bytes));
  if (static_cast<long long>(width) * height > (1LL << 30))
    throw ImageLoadError(quoted(name) + " is " + std::to_string(width) + "×" + std::to_string(height) +
                         " pixels, more than the 2^30 gausslab supports");
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), length, &width, &height, &channels, 4);
  if (!pixels) throw ImageLoadError(explain_stb_failure(name, bytes));

  LoadedImage loaded;
  loaded.source_channels = channels;
  loaded.image = ImageRgba8(width, height);
  std::memcpy(loaded.image.data(), pixels, static_cast<std::size_t>(width) * height * 4);
  stbi_image_free(pixels);
  return loaded;
}

LoadedImage load_image(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file(path);
  return load_image_from_memory(bytes.data(), bytes.size(), path);
}

std::string check_output_path(const std::string& path, Overwrite overwrite) {
  if (path.empty()) return "the output file name is empty";
  const std::string ext = lower_extension(path);
  if (ext != ".png" && ext != ".bmp")
    return quoted(path) + ": unsupported output type '" + ext + "'; use a .png or .bmp file name";
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return quoted(path) + ": the folder " + quoted(parent.string()) + " does not exist";
  if (fs::is_directory(path, ec)) return quoted(path) + " is a folder; give a file name";
  if (overwrite == Overwrite::Never && fs::exists(path, ec))
    return quoted(path) + " already exists; gausslab never overwrites files, so choose another name"
                          " (or pass --overwrite)";
  return {};
}

std::string first_free_path(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return path;
  const fs::path p(path);
  const std::string stem = (p.parent_path() / p.stem()).string();
  const std::string ext = p.extension().string();
  for (int n = 2;; ++n) {
    std::string candidate = stem + "-" + std::to_string(n) + ext;
    if (!fs::exists(candidate, ec)) return candidate;
  }
}

void save_image(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite) {
  if (std::string problem = check_output_path(path, overwrite); !problem.empty()) throw ImageSaveError(problem);
  if (channels < 1 || channels > 4) throw ImageSaveError("save_image: channels must be 1 to 4");
  if (image.empty()) throw ImageSaveError("save_image: the image is empty");
  // BMP has no grey+alpha layout (stb would drop the alpha): such an image is saved as RGBA.
  const bool grey_alpha_as_rgba = channels == 2 && lower_extension(path) == ".bmp";
  if (grey_alpha_as_rgba) channels = 4;

  // Pack the channels the file keeps: 1 = grey (red), 2 = grey + alpha, 3 = RGB, 4 = RGBA.
  std::vector<unsigned char> packed(image.pixel_count() * channels);
  for (std::size_t i = 0; i < image.pixel_count(); ++i) {
    const Rgba8& p = image.data()[i];
    const unsigned char all[4] = {p.r, grey_alpha_as_rgba ? p.r : p.g, grey_alpha_as_rgba ? p.r : p.b, p.a};
    const unsigned char grey_alpha[2] = {p.r, p.a};
    for (int c = 0; c < channels; ++c) packed[i * channels + c] = channels == 2 ? grey_alpha[c] : all[c];
  }

  std::vector<unsigned char> encoded;
  auto append = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    out->insert(out->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
  };
  const bool png = lower_extension(path) == ".png";
  const int ok = png ? stbi_write_png_to_func(append, &encoded, image.width(), image.height(), channels,
                                              packed.data(), image.width() * channels)
                     : stbi_write_bmp_to_func(append, &encoded, image.width(), image.height(), channels,
                                              packed.data());
  if (!ok || encoded.empty()) throw ImageSaveError("could not encode " + quoted(path));

  // Write beside the target, then move into place: no partial file, and no overwrite unless allowed.
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw ImageSaveError("cannot write " + quoted(path) + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < encoded.size()) {
    const ssize_t n = ::write(fd, encoded.data() + written, encoded.size() - written);
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw ImageSaveError("cannot write " + quoted(path) + ": " + std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  ::close(fd);
  const int moved = overwrite == Overwrite::Never ? ::link(temp.c_str(), path.c_str())
                                                   : ::rename(temp.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (moved != 0) {
    if (error == EEXIST)
      throw ImageSaveError(quoted(path) + " already exists; gausslab never overwrites files, so choose another name");
    throw ImageSaveError("cannot write " + quoted(path) + ": " + std::strerror(error));
  }
}

}  // namespace gausslab
