#pragma once
// Reading and writing image files.
//
// Reading (the format is found from the bytes, not the name):
//   PNG   libpng: 1/2/4/8/16-bit, grey, grey+alpha, RGB, RGBA, palette (an index beyond the
//         palette is an error), tRNS, interlaced
//   JPEG  libjpeg-turbo (libjpeg's pixels: islow DCT, fancy upsampling, as PIL): grey, YCbCr,
//         RGB, CMYK/YCCK; baseline, progressive, arithmetic; at most 1000 scans
//   TIFF  libtiff: 8/16-bit integer and 32-bit float grey/RGB(A) read here; everything else
//         libtiff's RGBA reader handles (palette, 1/2/4-bit, YCbCr, CMYK, JPEG/LZW/Deflate...);
//         the first image of the file
//   BMP   our decoder: 1/2/4/8-bit palette, 16/24/32-bit, BI_BITFIELDS, bottom-up and top-down;
//         RLE and embedded JPEG/PNG are refused
//   TGA   our decoder: colour-mapped, true-colour and grey, uncompressed and RLE, any origin
//   PNM   our decoder: P1-P6 (PBM/PGM/PPM), plain and raw, maxval 1..65535
//   GIF   giflib: the first frame
// Refused with the reason: Radiance HDR, PSD, Softimage PIC (Debian 12's only decoder for them
// is stb_image 2.27, which hangs or over-reads on damaged files), and WebP, OpenEXR, JPEG 2000,
// HEIF/AVIF, PAM, PFM, QOI (no decoder here).
//
// The result is always RGBA8. Samples of more than 8 bits are reduced with correct rounding,
// round(v * 255 / max), and LoadedImage::note says so; 32-bit float TIFF samples map [0, 1]
// to 0..255 (clamped, NaN to 0).
//
// Limits (ImageLimits, checked from the header BEFORE any pixel memory is allocated): width and
// height at most 1,048,576; at most 2^30 pixels (32768 × 32768); at most 4 GiB for the RGBA8
// result plus the decoder's working memory (an interlaced 16-bit PNG needs 8 more bytes per
// pixel, a progressive JPEG's coefficients count too); files up to 16 GiB. A header that
// contradicts the file size (more pixels than the data can hold), a palette index beyond the
// palette, a sample beyond maxval, and data that ends before every pixel is decoded are errors,
// never an image. Only regular files are read (not folders, FIFOs or devices such as /dev/zero),
// never blocking and never beyond the size they had when opened.
//
// Writing: PNG (libpng, 8-bit), JPEG (libjpeg-turbo, quality 1-100, 4:2:0), BMP 24/32-bit, TGA
// (uncompressed) and PNM (P5/P6), through AtomicFile: the file appears whole or not at all.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/core/atomic_file.hpp"
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

// What a load may cost; every field is checked before the memory it limits is allocated.
struct ImageLimits {
  int max_width = 1 << 20;
  int max_height = 1 << 20;
  std::uint64_t max_pixels = 1ULL << 30;         // 32768 × 32768
  std::uint64_t max_decoded_bytes = 4ULL << 30;  // the RGBA8 result + the decoder's working memory
  std::uint64_t max_file_bytes = 16ULL << 30;
};

struct LoadedImage {
  ImageRgba8 image;         // grey → (v, v, v, 255); grey+alpha → (v, v, v, a); RGB → alpha 255
  int source_channels = 4;  // 1 grey, 2 grey+alpha, 3 RGB (palette without transparency), 4 RGBA
  std::string format;       // "PNG", "JPEG", ...
  std::string note;         // how the pixels were converted when not exactly ("16-bit samples ..."), or empty
};

// Throws ImageLoadError for a missing, empty, unreadable, truncated, corrupt, over-limit or
// unsupported file, also when memory runs out while decoding it (a batch goes on with the next).
LoadedImage load_image(const std::string& path, const ImageLimits& limits = {});
// The same from bytes in memory; `name` is used in messages (and its extension tells a TGA,
// the one format without a signature, where its header alone is ambiguous).
LoadedImage load_image_from_memory(const void* bytes, std::size_t size, const std::string& name,
                                   const ImageLimits& limits = {});

// The bytes of an image file, read with bounded effort: only a regular file (a folder, FIFO, device
// such as /dev/zero or socket is refused, and opening never blocks), never more than its size when
// opened, at most limits.max_file_bytes. Throws ImageLoadError naming the file and the problem.
// load_image is read_image_bytes + load_image_from_memory.
std::vector<unsigned char> read_image_bytes(const std::string& path, const ImageLimits& limits = {});

// "PNG, JPEG, TIFF, BMP, TGA, PNM (PBM/PGM/PPM), GIF"
const char* supported_input_formats();
// "Radiance HDR, PSD, Softimage PIC, ..." with the reason, for help texts.
const char* refused_input_formats();

// ---- writing ------------------------------------------------------------------------------

enum class ImageFormat : int { Png, Jpeg, Bmp, Tga, Pnm, Count };

// "png", "jpg", "bmp", "tga", "pnm"
const char* to_string(ImageFormat format);
// Accepts those names and "jpeg"; nullopt otherwise.
std::optional<ImageFormat> image_format_from_string(std::string_view name);
// "png, jpg, bmp, tga, pnm"
std::string image_format_list();
// ".png", ".jpg", ".bmp", ".tga", ".pnm": the extension of files written in that format.
const char* file_extension(ImageFormat format);
// From the extension (case-insensitive): .png, .jpg/.jpeg, .bmp, .tga, .pnm/.pgm/.ppm.
std::optional<ImageFormat> image_format_from_path(const std::string& path);
// False for JPEG and PNM: an alpha channel is dropped when writing them.
bool format_keeps_alpha(ImageFormat format);

struct SaveOptions {
  std::optional<ImageFormat> format;  // empty: from the extension
  int jpeg_quality = 90;              // 1..100 (libjpeg's scale; 90 is visually lossless for most photos)
  Overwrite overwrite = Overwrite::Never;
};

// Saves an RGBA8 image writing `channels` of it: 1 grey (the red channel), 2 grey + alpha, 3 RGB,
// 4 RGBA. A format without that layout gets the nearest one: BMP writes grey as 24-bit and grey +
// alpha as 32-bit RGBA; JPEG and PNM drop the alpha. Written through AtomicFile (a temporary
// file beside it, moved into place when complete); with Overwrite::Never an existing file is never
// replaced. Throws ImageSaveError naming the file and the problem.
void save_image(const std::string& path, const ImageRgba8& image, int channels, const SaveOptions& options);
void save_image(const std::string& path, const ImageRgba8& image, int channels,
                Overwrite overwrite = Overwrite::Never);

// The file save_image would write, in memory: for timing encoders apart from the disk, and for
// callers that send the bytes elsewhere. Throws ImageSaveError.
std::vector<unsigned char> encode_image(const ImageRgba8& image, int channels, ImageFormat format,
                                        int jpeg_quality = 90);
// The same bytes handed to `write` piece by piece as the encoder makes them (a BMP row, a PNG
// chunk), never the whole file in memory: for a writer that times the encoder apart from the disk
// without holding a copy of the file (the batch writes each piece into its AtomicFile). Throws
// ImageSaveError, or what `write` throws.
void encode_image_to(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write);

// Empty if `path` names a file save_image can write (a known extension, or any name with an
// explicit format; an existing folder; no existing file unless overwriting); otherwise the reason.
std::string check_output_path(const std::string& path, const SaveOptions& options);
std::string check_output_path(const std::string& path, Overwrite overwrite);

// `path` if no file has that name; otherwise the first of stem-2.ext, stem-3.ext, ... that is free.
std::string first_free_path(const std::string& path);

}  // namespace gausslab
