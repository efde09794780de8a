// Image files: reading a file safely, recognising its format by its signature, refusing the
// formats we cannot decode safely, and writing through AtomicFile. The codecs are in codecs/.
#include "gausslab/core/image_io.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <new>
#include <vector>

#include "codecs/codecs.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/regular_file.hpp"

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

// ---- formats ----------------------------------------------------------------------------------

enum class Detected { Png, Jpeg, Tiff, Gif, Bmp, Pnm, Pfm, Exr, Fits, Npy, Tga, Unknown };

// The first bytes read before anything else: every signature and every raw format's header fits.
constexpr std::size_t kPrefixBytes = 64 << 10;

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
  if (n >= 3 && d[0] == 'P' && (d[1] == 'F' || d[1] == 'f') && std::strchr(" \t\r\n", d[2]) && d[2] != '\0')
    return Detected::Pfm;
  if (starts_with(d, n, "v/1\x01"sv)) return Detected::Exr;
  if (starts_with(d, n, "SIMPLE  =                    T"sv)) return Detected::Fits;
  if (starts_with(d, n, "\x93NUMPY"sv)) return Detected::Npy;
  if (codec::looks_like_tga(d, n) || lower_extension(name) == ".tga") return Detected::Tga;
  return Detected::Unknown;
}

// Why a recognised but unread format is refused, and what to do; empty if not recognised.
std::string refusal(const unsigned char* d, std::size_t n) {
  const std::string convert = "; convert it first, e.g. to PNG or TIFF";
  if (starts_with(d, n, "#?RADIANCE"sv) || starts_with(d, n, "#?RGBE"sv))
    return "is a Radiance HDR file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) loops forever on some damaged files; convert it first, e.g. to OpenEXR or TIFF";
  if (starts_with(d, n, "8BPS"sv))
    return "is a Photoshop (PSD) file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) accepts truncated files" + convert;
  if (starts_with(d, n, "\x53\x80\xf6\x34"sv) && starts_with(d, n, "PICT"sv, 88))
    return "is a Softimage PIC file, which gausslab does not read: the only decoder Debian 12 has for it "
           "(stb_image 2.27) is not safe on damaged files" + convert;
  if (starts_with(d, n, "RIFF"sv) && starts_with(d, n, "WEBP"sv, 8)) return "is a WebP file, which gausslab does not read" + convert;
  if (starts_with(d, n, "\0\0\0\x0cjP  "sv) || starts_with(d, n, "\xff\x4f\xff\x51"sv))
    return "is a JPEG 2000 file, which gausslab does not read" + convert;
  if (starts_with(d, n, "\xff\x0a"sv) || starts_with(d, n, "\0\0\0\x0cJXL "sv))
    return "is a JPEG XL file, which gausslab does not read" + convert;
  if (starts_with(d, n, "ftyp"sv, 4)) return "is a HEIF/AVIF (or MP4) file, which gausslab does not read" + convert;
  if (starts_with(d, n, "qoif"sv)) return "is a QOI file, which gausslab does not read" + convert;
  if (starts_with(d, n, "P7"sv)) return "is a PAM file, which gausslab does not read; convert it to PNM (P5/P6) or PNG";
  if (starts_with(d, n, "SIMPLE  ="sv))
    return "is a FITS file that says it does not conform to the standard (SIMPLE is not T), which gausslab does "
           "not read";
  if (starts_with(d, n, "%PDF"sv)) return "is a PDF document, not an image; export its pages as PNG first";
  return {};
}

[[noreturn]] void refuse_unknown(const unsigned char* d, std::size_t n, const std::string& name) {
  if (std::string why = refusal(d, n); !why.empty()) throw ImageLoadError(in_quotes(name) + " " + why);
  throw ImageLoadError(in_quotes(name) + " is not an image in a supported format (" + supported_input_formats() +
                       "); the file may be damaged or of another kind");
}

// How many bytes of a file of `file_size` bytes its decoder can need, from its first bytes.
std::uint64_t bytes_needed(Detected kind, const unsigned char* d, std::size_t n, std::uint64_t file_size) {
  switch (kind) {
    case Detected::Pnm: return codec::pnm_bytes_needed(d, n, file_size);
    case Detected::Pfm: return codec::pfm_bytes_needed(d, n, file_size);
    case Detected::Npy: return codec::npy_bytes_needed(d, n, file_size);
    case Detected::Fits: return codec::fits_bytes_needed(d, n, file_size);
    default: return file_size;
  }
}

LoadedImage decode(const codec::DecodeInput& in) {
  switch (detect(in.data, in.size, in.name)) {
    case Detected::Png: return codec::decode_png(in);
    case Detected::Jpeg: return codec::decode_jpeg(in);
    case Detected::Tiff: return codec::decode_tiff(in);
    case Detected::Gif: return codec::decode_gif(in);
    case Detected::Bmp: return codec::decode_bmp(in);
    case Detected::Pnm: return codec::decode_pnm(in);
    case Detected::Pfm: return codec::decode_pfm(in);
    case Detected::Exr: return codec::decode_exr(in);
    case Detected::Fits: return codec::decode_fits(in);
    case Detected::Npy: return codec::decode_npy(in);
    case Detected::Tga: return codec::decode_tga(in);
    case Detected::Unknown: break;
  }
  refuse_unknown(in.data, in.size, in.name);
}

// Reads up to `count` more bytes of `fd` onto the end of `bytes`; stops early where the file ends
// (it shrank while we read it: a decoder will say truncated).
void read_more(int fd, UninitializedBytes& bytes, std::uint64_t count, const std::string& path) {
  const std::size_t start = bytes.size();
  try {
    bytes.resize(start + count);
  } catch (const std::bad_alloc&) {
    throw ImageLoadError("cannot read " + in_quotes(path) + ": not enough memory for its " +
                         std::to_string(start + count) + " bytes");
  }
  std::size_t done = start;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ImageLoadError("cannot read " + in_quotes(path) + ": " + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
}

}  // namespace

// The first bytes, then what the format can need: at most the size the file had when opened and
// at most the limit. Opened by core's rule (open_regular_file: regular files only, never blocking).
UninitializedBytes read_image_bytes(const std::string& path, const ImageLimits& limits) {
  UninitializedBytes bytes;
  read_image_bytes(path, bytes, limits);
  return bytes;
}

void read_image_bytes(const std::string& path, UninitializedBytes& bytes, const ImageLimits& limits) {
  bytes.clear();  // keeps its memory
  RegularFile file;
  try {
    file = open_regular_file(path, "images");
  } catch (const InputFileError& error) {
    throw ImageLoadError(error.what());
  }
  const std::uint64_t size = file.size_bytes();
  if (size == 0) throw ImageLoadError(in_quotes(path) + " is empty (0 bytes); it holds no image");
  read_more(file.fd(), bytes, std::min<std::uint64_t>({size, kPrefixBytes, limits.max_file_bytes}), path);
  const Detected kind = detect(bytes.data(), bytes.size(), path);
  if (kind == Detected::Unknown) refuse_unknown(bytes.data(), bytes.size(), path);
  const std::uint64_t needed = bytes_needed(kind, bytes.data(), bytes.size(), size);
  if (needed > limits.max_file_bytes)
    throw ImageLoadError(in_quotes(path) + " is " + std::to_string(size) + " bytes, more than the limit of " +
                         std::to_string(limits.max_file_bytes) + " bytes read for an image file");
  if (needed < bytes.size())
    bytes.resize(needed);
  else if (bytes.size() == std::min<std::uint64_t>(size, kPrefixBytes) && needed > bytes.size())
    read_more(file.fd(), bytes, needed - bytes.size(), path);
}

namespace {

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

struct FormatInfo {
  ImageFormat format;
  const char* name;       // to_string
  const char* extension;  // file_extension
  const char* title;      // in messages: "PNG"
  bool writes[4];         // u8, u16, f16, f32
  bool float64;
  bool alpha;
};

// Every format gausslab writes, in ImageFormat's order: the table of image_io.hpp.
constexpr FormatInfo kFormats[] = {
    {ImageFormat::Png, "png", ".png", "PNG", {true, true, false, false}, false, true},
    {ImageFormat::Jpeg, "jpg", ".jpg", "JPEG", {true, false, false, false}, false, false},
    {ImageFormat::Bmp, "bmp", ".bmp", "BMP", {true, false, false, false}, false, true},
    {ImageFormat::Tga, "tga", ".tga", "TGA", {true, false, false, false}, false, true},
    {ImageFormat::Pnm, "pnm", ".pnm", "PNM", {true, true, false, false}, false, false},
    {ImageFormat::Tiff, "tiff", ".tif", "TIFF", {true, true, true, true}, false, true},
    {ImageFormat::Pfm, "pfm", ".pfm", "PFM", {false, false, false, true}, false, false},
    {ImageFormat::Exr, "exr", ".exr", "OpenEXR", {false, false, true, true}, false, true},
    {ImageFormat::Fits, "fits", ".fits", "FITS", {true, true, false, true}, true, true},
    {ImageFormat::Npy, "npy", ".npy", "NPY", {true, true, true, true}, true, true},
};
static_assert(std::size(kFormats) == static_cast<std::size_t>(ImageFormat::Count), "one row per format");

const FormatInfo* info_of(ImageFormat format) {
  const auto i = static_cast<std::size_t>(format);
  return i < std::size(kFormats) ? &kFormats[i] : nullptr;
}

const char* sample_words(SampleType sample) {
  switch (sample) {
    case SampleType::U8: return "8-bit";
    case SampleType::U16: return "16-bit";
    case SampleType::F16: return "half-float";
    default: return "float32";
  }
}

// "8- and 16-bit samples", "float32 samples", ...: what a format holds, for messages.
std::string holds_text(const FormatInfo& info) {
  std::vector<std::string> kinds;
  for (int t = 0; t < 4; ++t)
    if (info.writes[t]) kinds.push_back(sample_words(static_cast<SampleType>(t)));
  if (info.float64) kinds.push_back("float64 (when asked)");
  std::string text;
  for (std::size_t i = 0; i < kinds.size(); ++i) text += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
  return text + " samples";
}

void encode(const ConstImageView& image, ImageFormat format, const SaveOptions& options, codec::ByteSink& sink) {
  switch (format) {
    case ImageFormat::Png: codec::encode_png(image, sink); return;
    case ImageFormat::Jpeg: codec::encode_jpeg(to_rgba8(image).view(), channel_count(image.format), options.jpeg_quality, sink); return;
    case ImageFormat::Bmp: codec::encode_bmp(to_rgba8(image).view(), channel_count(image.format), sink); return;
    case ImageFormat::Tga: codec::encode_tga(to_rgba8(image).view(), channel_count(image.format), sink); return;
    case ImageFormat::Pnm: codec::encode_pnm(image, options.pnm_maxval, sink); return;
    case ImageFormat::Tiff: codec::encode_tiff(image, options.compress, sink); return;
    case ImageFormat::Pfm: codec::encode_pfm(image, sink); return;
    case ImageFormat::Exr: codec::encode_exr(image, options.compress, sink); return;
    case ImageFormat::Fits: codec::encode_fits(image, options.float64, sink); return;
    case ImageFormat::Npy: codec::encode_npy(image, options.float64, sink); return;
    case ImageFormat::Count: break;
  }
  throw ImageSaveError("unknown output format");
}

// `channels` of an RGBA8 image: PNG, JPEG, BMP and TGA take it as it is (narrowing row by row),
// and so does every format when all 4 channels are written; the others get a copy with `channels`.
void encode_rgba8(const ConstImageView& image, int channels, ImageFormat format, const SaveOptions& options,
                  codec::ByteSink& sink) {
  switch (format) {
    case ImageFormat::Png: codec::encode_png(image, channels, sink); return;
    case ImageFormat::Jpeg: codec::encode_jpeg(image, channels, options.jpeg_quality, sink); return;
    case ImageFormat::Bmp: codec::encode_bmp(image, channels, sink); return;
    case ImageFormat::Tga: codec::encode_tga(image, channels, sink); return;
    default: break;
  }
  if (channels == 4) {
    encode(image, format, options, sink);
  } else {
    const HostImage narrowed = rgba8_channels(image, channels);
    encode(narrowed.view(), format, options, sink);
  }
}

void check_encode_arguments(const ConstImageView& image, ImageFormat format, const SaveOptions& options) {
  if (image.empty()) throw ImageSaveError("save_image: the image is empty");
  if (!is_valid(image.format)) throw ImageSaveError("save_image: unknown pixel format");
  if (options.jpeg_quality < 1 || options.jpeg_quality > 100)
    throw ImageSaveError("save_image: the JPEG quality must be 1 to 100, not " + std::to_string(options.jpeg_quality));
  if (std::string problem = check_output_type(format, image.format, options); !problem.empty())
    throw ImageSaveError(problem);
}

}  // namespace

const char* supported_input_formats() {
  return "PNG, JPEG, TIFF, OpenEXR, FITS, NPY, PFM, BMP, TGA, PNM (PBM/PGM/PPM), GIF";
}

const char* refused_input_formats() {
  return "Radiance HDR, PSD and Softimage PIC are refused (Debian 12's only decoder for them, stb_image 2.27, "
         "is not safe on damaged files); WebP, JPEG 2000, JPEG XL, HEIF/AVIF, QOI and PAM have no decoder here. "
         "Convert such files to PNG, TIFF or OpenEXR first.";
}

namespace {

LoadedImage decode_checked(const void* data, std::size_t size, const std::string& name, const ImageLimits& limits,
                           int* rgba8_channels, const PixelTarget* target = nullptr) {
  if (size == 0 || data == nullptr) throw ImageLoadError(in_quotes(name) + " is empty (0 bytes); it holds no image");
  if (size > limits.max_file_bytes)
    throw ImageLoadError(in_quotes(name) + " is " + std::to_string(size) + " bytes, more than the limit of " +
                         std::to_string(limits.max_file_bytes) + " bytes read for an image file");
  const codec::DecodeInput in{static_cast<const unsigned char*>(data), size, name, limits, rgba8_channels, target};
  try {
    return decode(in);
  } catch (const std::bad_alloc&) {
    throw ImageLoadError(in_quotes(name) + ": not enough memory to decode it; close other programs, or shrink the "
                                        "picture with another tool first");
  } catch (const std::length_error&) {
    throw ImageLoadError(in_quotes(name) + ": not enough memory to decode it");
  }
}

}  // namespace

LoadedImage load_image_from_memory(const void* data, std::size_t size, const std::string& name,
                                   const ImageLimits& limits) {
  return decode_checked(data, size, name, limits, nullptr);
}

LoadedImage load_image_from_memory(const void* data, std::size_t size, const std::string& name,
                                   const ImageLimits& limits, int& rgba8_channels) {
  rgba8_channels = 0;
  return decode_checked(data, size, name, limits, &rgba8_channels);
}

LoadedImage load_image_from_memory(const void* data, std::size_t size, const std::string& name,
                                   const ImageLimits& limits, int& rgba8_channels, const PixelTarget& target) {
  rgba8_channels = 0;
  return decode_checked(data, size, name, limits, &rgba8_channels, target ? &target : nullptr);
}

LoadedImage load_image(const std::string& path, const ImageLimits& limits) {
  const UninitializedBytes bytes = read_image_bytes(path, limits);
  return load_image_from_memory(bytes.data(), bytes.size(), path, limits);
}

// ---- 8-bit consumers ----------------------------------------------------------------------------

LoadedRgba8 reduce_to_rgba8(const LoadedImage& loaded) {
  LoadedRgba8 out;
  out.source_channels = loaded.channels();
  out.format = loaded.format;
  out.note = loaded.note;
  const ConstImageView view = loaded.image.view();
  const SampleType type = sample_type(view.format);
  std::string reduced;
  if (type == SampleType::U16 && loaded.maxval != 0 && loaded.maxval != 65535) {
    // PNM with a maxval of its own: round(v × 255 / maxval), exactly (integer arithmetic).
    const int channels = out.source_channels;
    out.image = ImageRgba8(view.width, view.height);
    for (int y = 0; y < view.height; ++y) {
      const std::uint16_t* row = view.row<std::uint16_t>(y);
      for (int x = 0; x < view.width; ++x) {
        std::uint8_t v[4] = {0, 0, 0, 255};
        for (int c = 0; c < channels; ++c) v[c] = codec::scale_to_8bit(std::min<std::uint32_t>(row[x * channels + c], loaded.maxval), loaded.maxval);
        Rgba8& q = out.image.at(x, y);
        q = channels <= 2 ? Rgba8{v[0], v[0], v[0], channels == 2 ? v[1] : std::uint8_t{255}} : Rgba8{v[0], v[1], v[2], channels == 4 ? v[3] : std::uint8_t{255}};
      }
    }
    reduced = "16-bit samples (maxval " + std::to_string(loaded.maxval) + ") reduced to 8 bits (rounded: round(v * 255 / " +
              std::to_string(loaded.maxval) + "))";
  } else {
    out.image = to_rgba8(view);
    if (type == SampleType::U16) reduced = "16-bit samples reduced to 8 bits (rounded: round(v * 255 / 65535))";
    if (type == SampleType::F16) reduced = "half-float samples mapped from [0, 1] to 0..255 (rounded; clamped; NaN as 0)";
    if (type == SampleType::F32) reduced = "32-bit float samples mapped from [0, 1] to 0..255 (rounded; clamped; NaN as 0)";
  }
  codec::add_note(out.note, reduced);
  return out;
}

LoadedRgba8 load_image_rgba8_from_memory(const void* data, std::size_t size, const std::string& name,
                                         const ImageLimits& limits) {
  int rgba8_channels = 0;
  const LoadedImage loaded = decode_checked(data, size, name, limits, &rgba8_channels);
  if (rgba8_channels == 0) return reduce_to_rgba8(loaded);
  // Decoded into RGBA8 and left so (BMP, TGA, GIF, libtiff's RGBA reader): the pixels as they are.
  LoadedRgba8 out;
  out.source_channels = rgba8_channels;
  out.format = loaded.format;
  out.note = loaded.note;
  out.image = ImageRgba8(loaded.image.width(), loaded.image.height());
  std::memcpy(out.image.data(), loaded.image.data(), loaded.image.size_bytes());
  return out;
}

LoadedRgba8 load_image_rgba8(const std::string& path, const ImageLimits& limits) {
  const UninitializedBytes bytes = read_image_bytes(path, limits);
  return load_image_rgba8_from_memory(bytes.data(), bytes.size(), path, limits);
}

// ---- the format table ---------------------------------------------------------------------------

const char* to_string(ImageFormat format) {
  const FormatInfo* info = info_of(format);
  return info ? info->name : "?";
}

std::optional<ImageFormat> image_format_from_string(std::string_view name) {
  if (name == "jpeg") return ImageFormat::Jpeg;
  if (name == "tif") return ImageFormat::Tiff;
  if (name == "fit") return ImageFormat::Fits;
  for (const FormatInfo& info : kFormats)
    if (name == info.name) return info.format;
  return std::nullopt;
}

std::string image_format_list() {
  std::string list;
  for (const FormatInfo& info : kFormats) list += (list.empty() ? "" : ", ") + std::string(info.name);
  return list;
}

const char* file_extension(ImageFormat format) {
  const FormatInfo* info = info_of(format);
  return info ? info->extension : "";
}

std::optional<ImageFormat> image_format_from_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png") return ImageFormat::Png;
  if (ext == ".jpg" || ext == ".jpeg") return ImageFormat::Jpeg;
  if (ext == ".bmp") return ImageFormat::Bmp;
  if (ext == ".tga") return ImageFormat::Tga;
  if (ext == ".pnm" || ext == ".pgm" || ext == ".ppm") return ImageFormat::Pnm;
  if (ext == ".tif" || ext == ".tiff") return ImageFormat::Tiff;
  if (ext == ".pfm") return ImageFormat::Pfm;
  if (ext == ".exr") return ImageFormat::Exr;
  if (ext == ".fits" || ext == ".fit" || ext == ".fts") return ImageFormat::Fits;
  if (ext == ".npy") return ImageFormat::Npy;
  return std::nullopt;
}

bool format_keeps_alpha(ImageFormat format) {
  const FormatInfo* info = info_of(format);
  return info && info->alpha;
}

bool format_writes(ImageFormat format, SampleType sample) {
  const FormatInfo* info = info_of(format);
  return info && static_cast<int>(sample) < 4 && info->writes[static_cast<int>(sample)];
}

bool format_writes_float64(ImageFormat format) {
  const FormatInfo* info = info_of(format);
  return info && info->float64;
}

std::string formats_writing(SampleType sample) {
  std::vector<std::string> names;
  for (const FormatInfo& info : kFormats)
    if (format_writes(info.format, sample)) names.push_back(info.name);
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return list;
}

std::string check_output_type(ImageFormat file_format, PixelFormat format, const SaveOptions& options) {
  const FormatInfo* info = info_of(file_format);
  if (!info) return "unknown output format";
  if (!is_valid(format)) return "unknown pixel format";
  const SampleType sample = sample_type(format);
  if (!format_writes(file_format, sample))
    return std::string(info->title) + " holds " + holds_text(*info) + ", not " + sample_words(sample) + " (" +
           describe(format) + "); write " + sample_words(sample) + " as " + formats_writing(sample) +
           ", or convert the image first";
  if (options.float64 && !(info->float64 && sample == SampleType::F32))
    return info->float64 ? std::string("float64 samples are written from float32 images only, and this one is ") + describe(format)
                         : std::string(info->title) + " has no float64 samples; write float64 as fits or npy";
  if (options.pnm_maxval > 65535) return "the PNM maxval must be 1 to 65535, not " + std::to_string(options.pnm_maxval);
  if (options.pnm_maxval != 0 && file_format == ImageFormat::Pnm && sample == SampleType::U8 && options.pnm_maxval > 255)
    return "an 8-bit image is written with a maxval of at most 255, not " + std::to_string(options.pnm_maxval);
  return {};
}

std::string check_output_path(const std::string& path, const SaveOptions& options) {
  if (path.empty()) return "the output file name is empty";
  const std::optional<ImageFormat> by_name = image_format_from_path(path);
  const std::string ext = lower_extension(path);
  if (!options.format && !by_name)
    return in_quotes(path) + ": unknown output type '" + ext +
           "'; use a .png, .jpg, .bmp, .tga, .pnm (.pgm/.ppm), .tif, .pfm, .exr, .fits or .npy file name";
  if (options.format && by_name && *options.format != *by_name)
    return in_quotes(path) + ": the name says " + to_string(*by_name) + " but the format asked for is " +
           to_string(*options.format) + "; give the file a " + file_extension(*options.format) + " name";
  if (std::string problem = output_folder_problem(path); !problem.empty()) return problem;
  // The file itself by AtomicFile's rule: a name too long, a folder, device or FIFO, an existing
  // file or a link to nothing.
  return output_file_problem(path, options.overwrite);
}

std::string check_output_path(const std::string& path, Overwrite overwrite) {
  SaveOptions options;
  options.overwrite = overwrite;
  return check_output_path(path, options);
}

std::string check_output_path(const std::string& path, const SaveOptions& options, PixelFormat format) {
  if (std::string problem = check_output_path(path, options); !problem.empty()) return problem;
  const ImageFormat file_format = options.format ? *options.format : *image_format_from_path(path);
  if (std::string problem = check_output_type(file_format, format, options); !problem.empty())
    return in_quotes(path) + ": " + problem;
  const std::string ext = lower_extension(path);
  if (ext == ".pgm" && channel_count(format) >= 3)
    return in_quotes(path) + ": a .pgm file holds grey images and this one is in colour; use .ppm or .pnm";
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

// ---- saving -------------------------------------------------------------------------------------

namespace {

// The file through AtomicFile, `encode_into` handing the encoder's pieces to it as they come.
void write_through_atomic_file(const std::string& path, Overwrite overwrite,
                               const std::function<void(codec::ByteSink&)>& encode_into) {
  try {
    AtomicFile file(path, overwrite);
    FileSink sink(file);
    encode_into(sink);
    file.commit();
  } catch (const FileWriteError& error) {
    throw ImageSaveError(error.what());
  } catch (const ImageSaveError& error) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": " + error.what());
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": not enough memory to encode it");
  }
}

}  // namespace

void save_image(const std::string& path, const ConstImageView& image, const SaveOptions& options) {
  if (std::string problem = check_output_path(path, options); !problem.empty()) throw ImageSaveError(problem);
  const ImageFormat format = options.format ? *options.format : *image_format_from_path(path);
  try {
    check_encode_arguments(image, format, options);
  } catch (const ImageSaveError& error) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": " + error.what());
  }
  const std::string ext = lower_extension(path);
  if (ext == ".pgm" && channel_count(image.format) >= 3)
    throw ImageSaveError(in_quotes(path) + ": a .pgm file holds grey images and this one is in colour; use .ppm or .pnm");
  // A .ppm holds RGB: grey is written as RGB.
  HostImage widened;
  ConstImageView source = image;
  if (ext == ".ppm" && channel_count(image.format) <= 2) {
    widened = convert_channels(image, 3);
    source = widened.view();
  }
  write_through_atomic_file(path, options.overwrite, [&](codec::ByteSink& sink) { encode(source, format, options, sink); });
}

void save_image(const std::string& path, const ConstImageView& image, Overwrite overwrite) {
  SaveOptions options;
  options.overwrite = overwrite;
  save_image(path, image, options);
}

std::vector<unsigned char> encode_image(const ConstImageView& image, ImageFormat format, const SaveOptions& options) {
  check_encode_arguments(image, format, options);
  MemorySink sink;
  try {
    encode(image, format, options, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
  return std::move(sink.bytes());
}

void encode_image_to(const ConstImageView& image, ImageFormat format, const SaveOptions& options,
                     const std::function<void(const void* data, std::size_t size)>& write) {
  check_encode_arguments(image, format, options);
  CallbackSink sink(write);
  try {
    encode(image, format, options, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
}

HostImage rgba8_channels(const ImageRgba8& image, int channels) { return rgba8_channels(image.view(), channels); }

HostImage rgba8_channels(const ConstImageView& image, int channels) {
  if (channels < 1 || channels > 4) throw ImageSaveError("save_image: channels must be 1 to 4");
  if (image.format != PixelFormat::Rgba8) throw ImageSaveError("save_image: an RGBA8 image was expected");
  HostImage out = HostImage::copy_of(image);
  out.narrow_rgba8_in_place(channels);
  return out;
}

namespace {

// What every 8-bit helper checks: the RGBA8 image and its channels, then the 8-bit image they make
// against the format (check_encode_arguments, on a view of the same size and type).
void check_rgba8_arguments(const ConstImageView& image, int channels, ImageFormat format, const SaveOptions& options) {
  if (image.empty()) throw ImageSaveError("save_image: the image is empty");
  if (image.format != PixelFormat::Rgba8) throw ImageSaveError("save_image: an RGBA8 image was expected");
  if (channels < 1 || channels > 4) throw ImageSaveError("save_image: channels must be 1 to 4");
  const PixelFormat written = make_pixel_format(SampleType::U8, channels);
  check_encode_arguments(ConstImageView(image.data, image.width, image.height, image.pitch_bytes, written), format,
                         options);
}

}  // namespace

void encode_image_to(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write) {
  encode_rgba8_to(image.view(), channels, format, jpeg_quality, write);
}

void encode_rgba8_to(const ConstImageView& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write) {
  SaveOptions options;
  options.jpeg_quality = jpeg_quality;
  check_rgba8_arguments(image, channels, format, options);
  CallbackSink sink(write);
  try {
    encode_rgba8(image, channels, format, options, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
}

void save_image(const std::string& path, const ImageRgba8& image, int channels, const SaveOptions& options) {
  if (std::string problem = check_output_path(path, options); !problem.empty()) throw ImageSaveError(problem);
  const ImageFormat format = options.format ? *options.format : *image_format_from_path(path);
  try {
    check_rgba8_arguments(image.view(), channels, format, options);
  } catch (const ImageSaveError& error) {
    throw ImageSaveError("cannot write " + in_quotes(path) + ": " + error.what());
  }
  const std::string ext = lower_extension(path);
  if (ext == ".pgm" && channels >= 3)
    throw ImageSaveError(in_quotes(path) + ": a .pgm file holds grey images and this one is in colour; use .ppm or .pnm");
  if (ext == ".ppm" && channels <= 2) channels = 3;  // a .ppm holds RGB: grey is written as RGB
  write_through_atomic_file(path, options.overwrite,
                            [&](codec::ByteSink& sink) { encode_rgba8(image.view(), channels, format, options, sink); });
}

void save_image(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite) {
  SaveOptions options;
  options.overwrite = overwrite;
  save_image(path, image, channels, options);
}

std::vector<unsigned char> encode_image(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality) {
  SaveOptions options;
  options.jpeg_quality = jpeg_quality;
  check_rgba8_arguments(image.view(), channels, format, options);
  MemorySink sink;
  try {
    encode_rgba8(image.view(), channels, format, options, sink);
  } catch (const std::bad_alloc&) {
    throw ImageSaveError("not enough memory to encode the image");
  }
  return std::move(sink.bytes());
}

}  // namespace gausslab
