// Image files: reading a file safely, recognising its format by its signature, refusing the
// formats we cannot decode safely, and writing through AtomicFile. The codecs are in codecs/.
#include "gausslab/core/image_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>
#include <vector>

#include "codecs/codecs.hpp"

namespace gausslab {

namespace {

namespace fs = std::filesystem;
using namespace std::string_view_literals;

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool starts_with(const unsigned char* data, std::size_t size, std::string_view prefix, std::size_t at = 0) {
  return size >= at + prefix.size() && std::memcmp(data + at, prefix.data(), prefix.size()) == 0;
}

// ---- reading a file ---------------------------------------------------------------------------

std::string what_it_is(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder, not an image file";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe), not a regular file; gausslab reads images from regular files only";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device, not a regular file; gausslab reads images from regular files only";
  if (S_ISSOCK(mode)) return "a socket, not a regular file; gausslab reads images from regular files only";
  return "not a regular file; gausslab reads images from regular files only";
}

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The bytes of a regular file, at most the size it had when opened and at most the limit.
// O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever (it is refused after fstat).
}  // namespace

std::vector<unsigned char> read_image_bytes(const std::string& path, const ImageLimits& limits) {
  FileDescriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (file.fd < 0) {
    const int error = errno;
    if (error == ENOENT) throw ImageLoadError("cannot open " + in_quotes(path) + ": no such file; check the path");
    if (error == EACCES) throw ImageLoadError("cannot open " + in_quotes(path) + ": no permission to read it");
    throw ImageLoadError("cannot open " + in_quotes(path) + ": " + std::strerror(error));
  }
  struct stat status {};
  if (::fstat(file.fd, &status) != 0)
    throw ImageLoadError("cannot read " + in_quotes(path) + ": " + std::strerror(errno));
  if (!S_ISREG(status.st_mode)) throw ImageLoadError(in_quotes(path) + " is " + what_it_is(status.st_mode));
  const std::uint64_t size = static_cast<std::uint64_t>(status.st_size);
  if (size == 0) throw ImageLoadError(in_quotes(path) + " is empty (0 bytes); it holds no image");
  if (size > limits.max_file_bytes)
    throw ImageLoadError(in_quotes(path) + " is " + std::to_string(size) + " bytes, more than the limit of " +
                         std::to_string(limits.max_file_bytes) + " bytes for an image file");
  std::vector<unsigned char> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    throw ImageLoadError("cannot read " + in_quotes(path) + ": not enough memory for its " + std::to_string(size) + " bytes");
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ImageLoadError("cannot read " + in_quotes(path) + ": " + std::strerror(errno));
    if (n == 0) break;  // the file shrank while we read it: decode what is there (a decoder will say truncated)
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

namespace {

// ---- formats ----------------------------------------------------------------------------------

enum class Detected { Png, Jpeg, Tiff, Gif, Bmp, Pnm, Tga, Unknown };

Detected detect(const unsigned char* d, std::size_t n, const std::string& name) {
  if (starts_with(d, n, "\x89PNG\r\n\x1a\n"sv)) return Detected::Png;
  if (starts_with(d, n, "\xff\xd8\xff"sv)) return Detected::Jpeg;
  if (starts_with(d, n, "II*\0"sv) || starts_with(d, n, "MM\0*"sv) || starts_with(d, n, "II+\0"sv) ||
      starts_with(d, n, "MM\0+"sv))
    return Detected::Tiff;
  if (starts_with(d, n, "GIF87a"sv) || starts_with(d, n, "GIF89a"sv)) return Detected::Gif;
  if (starts_with(d, n, "BM"sv)) return Detected::Bmp;
  if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6' && std::strchr(" \t\r\n#", d[2]) && d[2] != '\0')
    return Detected::Pnm;
  if (codec::looks_like_tga(d, n) || lower_extension(name) == ".tga") return Detected::Tga;
  return Detected::Unknown;
}

// Why a recognised but unread format is refused, and what to do; empty if not recognised.
std::string refusal(const unsigned char* d, std::size_t n) {
  const std::string convert = "; convert it first, e.g. to PNG or TIFF";
  if (starts_with(d, n, "#?RADIANCE"sv) || starts_with(d, n, "#?RGBE"sv))
    return "is a Radiance HDR file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) loops forever on some damaged files" + convert;
  if (starts_with(d, n, "8BPS"sv))
    return "is a Photoshop (PSD) file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) accepts truncated files" + convert;
  if (starts_with(d, n, "\x53\x80\xf6\x34"sv) && starts_with(d, n, "PICT"sv, 88))
    return "is a Softimage PIC file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) is not safe on damaged files" + convert;
  if (starts_with(d, n, "RIFF"sv) && starts_with(d, n, "WEBP"sv, 8)) return "is a WebP file, which gausslab does not read" + convert;
  if (starts_with(d, n, "v/1\x01"sv)) return "is an OpenEXR file, which gausslab does not read" + convert;
  if (starts_with(d, n, "\0\0\0\x0cjP  "sv) || starts_with(d, n, "\xff\x4f\xff\x51"sv))
    return "is a JPEG 2000 file, which gausslab does not read" + convert;
  if (starts_with(d, n, "\xff\x0a"sv) || starts_with(d, n, "\0\0\0\x0cJXL "sv))
    return "is a JPEG XL file, which gausslab does not read" + convert;
  if (starts_with(d, n, "ftyp"sv, 4)) return "is a HEIF/AVIF (or MP4) file, which gausslab does not read" + convert;
  if (starts_with(d, n, "qoif"sv)) return "is a QOI file, which gausslab does not read" + convert;
  if (starts_with(d, n, "P7"sv)) return "is a PAM file, which gausslab does not read; convert it to PNM (P5/P6) or PNG";
  if (starts_with(d, n, "Pf"sv) || starts_with(d, n, "PF"sv)) return "is a PFM (float) file, which gausslab does not read" + convert;
  if (starts_with(d, n, "%PDF"sv)) return "is a PDF document, not an image; export its pages as PNG first";
  return {};
}

LoadedImage decode(const codec::DecodeInput& in) {
  switch (detect(in.data, in.size, in.name)) {
    case Detected::Png: return codec::decode_png(in);
    case Detected::Jpeg: return codec::decode_jpeg(in);
    case Detected::Tiff: return codec::decode_tiff(in);
    case Detected::Gif: return codec::decode_gif(in);
    case Detected::Bmp: return codec::decode_bmp(in);
    case Detected::Pnm: return codec::decode_pnm(in);
    case Detected::Tga: return codec::decode_tga(in);
    case Detected::Unknown: break;
  }
  if (std::string why = refusal(in.data, in.size); !why.empty()) throw ImageLoadError(in_quotes(in.name) + " " + why);
  throw ImageLoadError(in_quotes(in.name) + " is not an image in a supported format (" + supported_input_formats() +
                       "); the file may be damaged or of another kind");
}

// ---- writing ----------------------------------------------------------------------------------

class FileSink : public codec::ByteSink {
 public:
  explicit FileSink(AtomicFile& file) : file_(file) {}
  void write(const void* data, std::size_t size) override { file_.write(data, size); }

 private:
  AtomicFile& file_;
};

class CallbackSink : public codec::ByteSink {
 public:
  explicit CallbackSink(const std::function<void(const void*, std::size_t)>& write) : write_(write) {}
  void write(const void* data, std::size_t size) override { write_(data, size); }

 private:
  const std::function<void(const void*, std::size_t)>& write_;
};

class MemorySink : public codec::ByteSink {
 public:
  void write(const void* data, std::size_t size) override {
    const auto* bytes = static_cast<const unsigned char*>(data);
    bytes_.insert(bytes_.end(), bytes, bytes + size);
  }
  std::vector<unsigned char>& bytes() { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

void encode(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality, codec::ByteSink& sink) {
  switch (format) {
    case ImageFormat::Png: codec::encode_png(image, channels, sink); return;
    case ImageFormat::Jpeg: codec::encode_jpeg(image, channels, jpeg_quality, sink); return;
    case ImageFormat::Bmp: codec::encode_bmp(image, channels, sink); return;
    case ImageFormat::Tga: codec::encode_tga(image, channels, sink); return;
    case ImageFormat::Pnm: codec::encode_pnm(image, channels, sink); return;
    case ImageFormat::Count: break;
  }
  throw ImageSaveError("unknown output format");
}

void check_encode_arguments(const ImageRgba8& image, int channels, int jpeg_quality) {
  if (channels < 1 || channels > 4) throw ImageSaveError("save_image: channels must be 1 to 4");
  if (image.empty()) throw ImageSaveError("save_image: the image is empty");
  if (jpeg_quality < 1 || jpeg_quality > 100)
    throw ImageSaveError("save_image: the JPEG quality must be 1 to 100, not " + std::to_string(jpeg_quality));
}

const char* const kFormatNames[] = {"png", "jpg", "bmp", "tga", "pnm"};

}  // namespace

const char* supported_input_formats() { return "PNG, JPEG, TIFF, BMP, TGA, PNM (PBM/PGM/PPM), GIF"; }

const char* refused_input_formats() {
  return "Radiance HDR, PSD and Softimage PIC are refused (Debian 12's only decoder for them, stb_image 2.27, "
         "is not safe on damaged files); WebP, OpenEXR, JPEG 2000, JPEG XL, HEIF/AVIF, QOI, PAM and PFM have no "
         "decoder here. Convert such files to PNG or TIFF first.";
}

LoadedImage load_image_from_memory(const void* data, std::size_t size, const std::string& name,
                                   const ImageLimits& limits) {
  if (size == 0 || data == nullptr) throw ImageLoadError(in_quotes(name) + " is empty (0 bytes); it holds no image");
  if (size > limits.max_file_bytes)
    throw ImageLoadError(in_quotes(name) + " is " + std::to_string(size) + " bytes, more than the limit of " +
                         std::to_string(limits.max_file_bytes) + " bytes for an image file");
  const codec::DecodeInput in{static_cast<const unsigned char*>(data), size, name, limits};
  try {
    return decode(in);
  } catch (const std::bad_alloc&) {
    throw ImageLoadError(in_quotes(name) + ": not enough memory to decode it; close other programs, or shrink the "
                                        "picture with another tool first");
  } catch (const std::length_error&) {
    throw ImageLoadError(in_quotes(name) + ": not enough memory to decode it");
  }
}

LoadedImage load_image(const std::string& path, const ImageLimits& limits) {
  const std::vector<unsigned char> bytes = read_image_bytes(path, limits);
  return load_image_from_memory(bytes.data(), bytes.size(), path, limits);
}

const char* to_string(ImageFormat format) {
  return static_cast<std::size_t>(format) < std::size(kFormatNames) ? kFormatNames[static_cast<int>(format)] : "?";
}

std::optional<ImageFormat> image_format_from_string(std::string_view name) {
  if (name == "jpeg") return ImageFormat::Jpeg;
  for (int i = 0; i < static_cast<int>(ImageFormat::Count); ++i)
    if (name == kFormatNames[i]) return static_cast<ImageFormat>(i);
  return std::nullopt;
}

std::string image_format_list() { return "png, jpg, bmp, tga, pnm"; }

const char* file_extension(ImageFormat format) {
  static const char* const extensions[] = {".png", ".jpg", ".bmp", ".tga", ".pnm"};
  return static_cast<std::size_t>(format) < std::size(extensions) ? extensions[static_cast<int>(format)] : "";
}

std::optional<ImageFormat> image_format_from_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png") return ImageFormat::Png;
  if (ext == ".jpg" || ext == ".jpeg") return ImageFormat::Jpeg;
  if (ext == ".bmp") return ImageFormat::Bmp;
  if (ext == ".tga") return ImageFormat::Tga;
  if (ext == ".pnm" || ext == ".pgm" || ext == ".ppm") return ImageFormat::Pnm;
  return std::nullopt;
}

bool format_keeps_alpha(ImageFormat format) { return format != ImageFormat::Jpeg && format != ImageFormat::Pnm; }

std::string check_output_path(const std::string& path, const SaveOptions& options) {
  if (path.empty()) return "the output file name is empty";
  const std::optional<ImageFormat> by_name = image_format_from_path(path);
  const std::string ext = lower_extension(path);
  if (!options.format && !by_name)
    return in_quotes(path) + ": unknown output type '" + ext +
           "'; use a .png, .jpg, .bmp, .tga or .pnm (.pgm/.ppm) file name";
  if (options.format && by_name && *options.format != *by_name)
    return in_quotes(path) + ": the name says " + to_string(*by_name) + " but the format asked for is " +
           to_string(*options.format) + "; give the file a " + file_extension(*options.format) + " name";
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return in_quotes(path) + ": the folder " + in_quotes(parent.string()) + " does not exist";
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) return in_quotes(path) + " is a folder; give a file name";
  if (fs::exists(status) && !fs::is_regular_file(status))
    return in_quotes(path) + " exists and is not a regular file; choose another name";
  if (options.overwrite == Overwrite::Never && fs::exists(status))
    return in_quotes(path) + " already exists; gausslab never overwrites files, so choose another name"
                          " (or pass --overwrite)";
  return {};
}

std::string check_output_path(const std::string& path, Overwrite overwrite) {
  SaveOptions options;
  options.overwrite = overwrite;
  return check_output_path(path, options);
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

void save_image(const std::string& path, const ImageRgba8& image, int channels, const SaveOptions& options) {
  if (std::string problem = check_output_path(path, options); !problem.empty()) throw ImageSaveError(problem);
  check_encode_arguments(image, channels, options.jpeg_quality);
  const ImageFormat format = options.format ? *options.format : *image_format_from_path(path);
  const std::string ext = lower_extension(path);
  if (ext == ".pgm" && channels >= 3)
    throw ImageSaveError(in_quotes(path) + ": a .pgm file holds grey images and this one is in colour; use .ppm or .pnm");
  if (ext == ".ppm" && channels <= 2) channels = 3;  // a .ppm holds RGB: grey is written as RGB
  try {
    AtomicFile file(path, options.overwrite);
    FileSink sink(file);
    encode(image, channels, format, options.jpeg_quality, sink);
    file.commit();
  } catch (const FileWriteError& error) {
    throw ImageSaveError(error.what());
  } catch (const ImageSaveError& error) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": " + error.what());
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": not enough memory to encode it");
  }
}

std::vector<unsigned char> encode_image(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality) {
  check_encode_arguments(image, channels, jpeg_quality);
  MemorySink sink;
  try {
    encode(image, channels, format, jpeg_quality, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
  return std::move(sink.bytes());
}

void encode_image_to(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write) {
  check_encode_arguments(image, channels, jpeg_quality);
  CallbackSink sink(write);
  try {
    encode(image, channels, format, jpeg_quality, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
}

void save_image(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite) {
  SaveOptions options;
  options.overwrite = overwrite;
  save_image(path, image, channels, options);
}

}  // namespace gausslab
