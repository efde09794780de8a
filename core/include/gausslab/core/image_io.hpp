#pragma once
// Reading and writing image files in every pixel type (pixel_format.hpp), without loss.
//
// Reading (the format is found from the first bytes, not the name, before the rest is read):
//   PNG   libpng: 8/16-bit grey, grey+alpha, RGB, RGBA kept as they are; 1/2/4-bit grey → u8;
//         palette → rgb8/rgba8 (an index beyond the palette is an error); tRNS → alpha; interlaced
//   TIFF  libtiff: 8/16-bit integer and 16/32-bit float grey/RGB(A), strips or tiles, contiguous or
//         separate planes, kept as they are (min-is-white inverted; associated alpha
//         un-premultiplied; 64-bit float → f32, 32-bit integers → f32 with a note); everything
//         else (palette, 1/2/4-bit, YCbCr, CMYK, JPEG-in-TIFF, ...) through libtiff's RGBA reader,
//         8-bit, where a warning that means lost data is an error; the first image of the file
//   PNM   ours: P1-P6, plain and raw; maxval ≤ 255 → u8 (scaled to 0..255 when not 255), maxval
//         > 255 → u16 with the values as they are (LoadedImage::maxval says the range)
//   PFM   ours: Pf (grey) and PF (RGB) float32, either byte order, rows bottom-to-top in the file
//   EXR   OpenEXR 3.1: half and float, Y, YA, RGB, RGBA (other channel sets refused), scanline
//         and tiled, every compression; the data window is the picture
//   FITS  cfitsio: the primary image, 8/16/32-bit integer and 32/64-bit float, 2D or 3D with
//         1-4 planes as channels; BZERO/BSCALE applied (u16 for 16-bit with BZERO 32768);
//         row 0 is the file's first row (astropy's data[0]); see docs/image-io.md
//   NPY   ours: 2D (H×W) and 3D (H×W×C, C 1-4) arrays of uint8, uint16, float16, float32 and
//         float64 (→ f32 with a note); 1D arrays are signals (npy_io.hpp), refused here
//   JPEG  libjpeg-turbo (libjpeg's pixels: islow DCT, fancy upsampling, as PIL): grey, YCbCr,
//         RGB, CMYK/YCCK; baseline, progressive, arithmetic; at most 1000 scans (8-bit)
//   BMP   ours: 1/2/4/8-bit palette, 16/24/32-bit, BI_BITFIELDS, bottom-up and top-down (8-bit)
//   TGA   ours: colour-mapped, true-colour and grey, uncompressed and RLE, any origin (8-bit)
//   GIF   giflib: the first frame (8-bit RGB or RGBA)
// Refused with the reason: Radiance HDR, PSD, Softimage PIC (Debian 12's only decoder for them
// is stb_image 2.27, which hangs or over-reads on damaged files), and WebP, JPEG 2000, JPEG XL,
// HEIF/AVIF, PAM, QOI (no decoder here).
//
// The result keeps the file's samples and channels (LoadedImage::image); LoadedImage::note says
// when anything was converted, and LoadedImage::source_type names the file's own sample type, so
// that a writer can write it back (SaveOptions::float64). reduce_to_rgba8 gives the 8-bit picture
// the loader gave before it kept types, for consumers that still work in RGBA8.
//
// Limits (ImageLimits, checked from the header BEFORE any pixel memory is allocated): width and
// height at most 1,048,576; at most 2^30 pixels (32768 × 32768); at most 4 GiB for the result
// plus the decoder's working memory; files up to 4.25 GiB, of which only what the format can need
// is read (the header and raster of PNM, PFM, NPY and FITS; the whole file for the others). A
// header that contradicts the file size (more pixels than the data can hold even at the
// compression's best ratio), a palette index beyond the palette, a sample beyond maxval, and data
// that ends before every pixel is decoded are errors, never an image. Only regular files are read
// (not folders, FIFOs or devices such as /dev/zero), never blocking and never beyond the size
// they had when opened.
//
// Writing keeps the image's type and channels, through AtomicFile (the file appears whole or not
// at all); a format that cannot hold the type is refused up front naming the formats that can:
//   u8   png, tiff, pnm, fits, npy, jpg, bmp, tga
//   u16  png, tiff, pnm, fits, npy
//   f16  tiff, exr, npy
//   f32  tiff, exr, pfm, fits, npy (and float64 samples in fits and npy when asked)
// JPEG and PNM/PFM have no alpha (it is dropped: format_keeps_alpha), BMP writes grey as RGB.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/host_image.hpp"
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
  std::uint64_t max_decoded_bytes = 4ULL << 30;  // the result + the decoder's working memory
  // The bytes read from a file: the decoded limit and a sixteenth (stored, uncompressed data frame
  // their raster with a few bytes per block), so that no file of an image within the limits is
  // refused and no larger file is read into memory.
  std::uint64_t max_file_bytes = (4ULL << 30) + (256ULL << 20);
};

struct LoadedImage {
  HostImage image;          // the file's own samples and channels (or the nearest, as `note` says)
  // Non-empty when the decoder wrote the pixels into a PixelTarget's memory (image is then empty).
  ImageView decoded_into;
  std::string format;       // "PNG", "JPEG", "TIFF", "OpenEXR", "FITS", "NPY", "PFM", ...
  // The file's own sample type in NumPy's words ("uint8", "uint16", "float16", "float32",
  // "float64", "int16", "int32", "uint32") or "1-bit", "2-bit", "4-bit", "palette".
  std::string source_type;
  // PNM: the file's maxval when the u16 samples run up to it rather than 65535 (0 otherwise).
  std::uint32_t maxval = 0;
  std::string note;  // what was converted ("palette colours expanded to RGB"), or empty: image holds the samples exactly
  int channels() const { return channel_count(decoded_into.empty() ? image.format() : decoded_into.format); }
  bool source_is_float64() const { return source_type == "float64"; }
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
// opened, at most limits.max_file_bytes. The first bytes are read first: a file in no format
// gausslab reads is refused before the rest is read, and for PNM, PFM, NPY and FITS only the
// header and the raster it declares are read. Throws ImageLoadError naming the file and the problem.
// load_image is read_image_bytes + load_image_from_memory. The bytes are not zero-filled before
// the file is read into them (UninitializedBytes: every byte returned was read).
UninitializedBytes read_image_bytes(const std::string& path, const ImageLimits& limits = {});
// The same into `bytes` (its contents replaced), in the memory it already holds when that is
// enough: for a reader of many files, which keeps one buffer instead of a fresh one a file (for
// the batch's 28 MB files, 7,000 page faults each, the kernel zeroing every page).
void read_image_bytes(const std::string& path, UninitializedBytes& bytes, const ImageLimits& limits = {});

// "PNG, JPEG, TIFF, OpenEXR, FITS, NPY, PFM, BMP, TGA, PNM (PBM/PGM/PPM), GIF"
const char* supported_input_formats();
// "Radiance HDR, PSD, Softimage PIC, ..." with the reason, for help texts.
const char* refused_input_formats();

// ---- 8-bit consumers ------------------------------------------------------------------------

// The picture as the loader gave it before it kept types, for consumers that still work in RGBA8
// (display, and the filter until it keeps types): grey → (v, v, v, 255); grey+alpha → (v, v, v, a);
// RGB → alpha 255; 16-bit samples as round(v × 255 / 65535) (PNM: / maxval), floats mapping [0, 1]
// to 0..255 (clamped, NaN as 0), both rounded half up.
struct LoadedRgba8 {
  ImageRgba8 image;
  int source_channels = 4;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
  std::string format;
  std::string note;  // LoadedImage::note, then how the samples were reduced to 8 bits; empty if exact
};
LoadedRgba8 reduce_to_rgba8(const LoadedImage& loaded);
// load_image_from_memory, except that the decoders that decode into RGBA8 (BMP, TGA, GIF,
// libtiff's RGBA reader) hand that RGBA8 image over as it is, with `rgba8_channels` set to the
// file's channels (1-4); 0 when the image holds the file's own layout. For a consumer that keeps
// types but filters 8-bit images as RGBA8 (the batch): no narrowing and widening back.
LoadedImage load_image_from_memory(const void* bytes, std::size_t size, const std::string& name,
                                   const ImageLimits& limits, int& rgba8_channels);
// Memory to decode into instead of an image of the decoder's own, so that the pixels land where
// they are used next (the batch's pinned buffers, which the GPU reads) instead of being copied
// there: called once the header is read, with the image's size and format, it returns a view of
// exactly that size and format, or an empty view to let the decoder allocate as usual. The BMP
// decoder uses it (the batch's format: LoadedImage::decoded_into is then the view and
// LoadedImage::image empty); the others allocate their own. If decoding fails after the call,
// the memory holds part of an image.
using PixelTarget = std::function<ImageView(int width, int height, PixelFormat format)>;
// The overload above, decoding into `target`'s memory where the decoder can.
LoadedImage load_image_from_memory(const void* bytes, std::size_t size, const std::string& name,
                                   const ImageLimits& limits, int& rgba8_channels, const PixelTarget& target);
// load_image + reduce_to_rgba8, and the same from memory, with the same pixels and notes; the
// decoders that decode into RGBA8 (BMP, TGA, GIF, libtiff's RGBA reader) skip the narrowing to the
// file's channels and the widening back (the batch's 24-bit BMP: one copy of the pixels, no pass
// over each sample).
LoadedRgba8 load_image_rgba8(const std::string& path, const ImageLimits& limits = {});
LoadedRgba8 load_image_rgba8_from_memory(const void* bytes, std::size_t size, const std::string& name,
                                         const ImageLimits& limits = {});

// ---- writing ------------------------------------------------------------------------------

enum class ImageFormat : int { Png, Jpeg, Bmp, Tga, Pnm, Tiff, Pfm, Exr, Fits, Npy, Count };

// "png", "jpg", "bmp", "tga", "pnm", "tiff", "pfm", "exr", "fits", "npy"
const char* to_string(ImageFormat format);
// Accepts those names and "jpeg", "tif", "fit"; nullopt otherwise.
std::optional<ImageFormat> image_format_from_string(std::string_view name);
// "png, jpg, bmp, tga, pnm, tiff, pfm, exr, fits, npy"
std::string image_format_list();
// ".png", ".jpg", ".bmp", ".tga", ".pnm", ".tif", ".pfm", ".exr", ".fits", ".npy".
const char* file_extension(ImageFormat format);
// From the extension (case-insensitive): .png, .jpg/.jpeg, .bmp, .tga, .pnm/.pgm/.ppm, .tif/.tiff,
// .pfm, .exr, .fits/.fit/.fts, .npy.
std::optional<ImageFormat> image_format_from_path(const std::string& path);
// False for JPEG, PNM and PFM: an alpha channel is dropped when writing them.
bool format_keeps_alpha(ImageFormat format);
// Whether `format` writes samples of `sample` type (the table above).
bool format_writes(ImageFormat format, SampleType sample);
// "png, pnm, tiff, fits or npy": the formats that write `sample`, for messages.
std::string formats_writing(SampleType sample);
// Whether `format` writes float64 samples (SaveOptions::float64): FITS and NPY.
bool format_writes_float64(ImageFormat format);

struct SaveOptions {
  std::optional<ImageFormat> format;  // empty: from the extension
  int jpeg_quality = 90;              // 1..100 (libjpeg's scale; 90 is visually lossless for most photos)
  Overwrite overwrite = Overwrite::Never;
  // An f32 image written with float64 samples (FITS, NPY): a float64 source written back in its
  // own type (each sample exactly the float32 value, widened).
  bool float64 = false;
  // PNM: the maxval written (1..65535; the samples must not exceed it), e.g. LoadedImage::maxval
  // to write a 12-bit PGM back as it came; 0: 255 for u8, 65535 for u16.
  std::uint32_t pnm_maxval = 0;
  // TIFF: Deflate (zlib level 6, horizontal differencing for integers) or uncompressed; EXR: ZIP
  // or none.
  bool compress = true;
};

// Saves `image` (any format of pixel_format.hpp) with its own type and channels. A format
// without the channel layout gets the nearest one: BMP writes grey as 24-bit and grey + alpha as
// 32-bit RGBA; JPEG, PNM and PFM drop the alpha. A format that cannot hold the sample type is
// refused (check_output_type) before anything is written. Written through AtomicFile (a temporary
// file beside it, moved into place when complete); with Overwrite::Never an existing file is
// never replaced. Throws ImageSaveError naming the file and the problem.
void save_image(const std::string& path, const ConstImageView& image, const SaveOptions& options);
void save_image(const std::string& path, const ConstImageView& image, Overwrite overwrite = Overwrite::Never);
// The file save_image would write, in memory: for timing encoders apart from the disk, and for
// callers that send the bytes elsewhere. Throws ImageSaveError.
std::vector<unsigned char> encode_image(const ConstImageView& image, ImageFormat format, const SaveOptions& options = {});

// The 8-bit helpers of before: `channels` of an RGBA8 image (1 grey = the red channel, 2 grey +
// alpha, 3 RGB, 4 RGBA), saved as above.
void save_image(const std::string& path, const ImageRgba8& image, int channels, const SaveOptions& options);
void save_image(const std::string& path, const ImageRgba8& image, int channels,
                Overwrite overwrite = Overwrite::Never);
std::vector<unsigned char> encode_image(const ImageRgba8& image, int channels, ImageFormat format,
                                        int jpeg_quality = 90);
// The same bytes handed to `write` piece by piece as the encoder makes them (a PNG, PNM, PFM or
// NPY row, a PNG chunk; BMP rows in pieces of AtomicFile::kDirectWriteBytes or more, which
// AtomicFile writes uncopied; TIFF, OpenEXR and FITS whole, as their libraries seek back while
// they write), never more of the file in memory than that: for a writer that times the encoder apart
// from the disk without holding a copy of the file (the batch writes each piece into its
// AtomicFile). Throws ImageSaveError, or what `write` throws.
void encode_image_to(const ConstImageView& image, ImageFormat format, const SaveOptions& options,
                     const std::function<void(const void* data, std::size_t size)>& write);
// The 8-bit helper: `channels` of an RGBA8 image, with no copy of the image for PNG, JPEG, BMP and
// TGA (rows are narrowed as they are written) or when all 4 channels are written.
void encode_image_to(const ImageRgba8& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write);
// The same from an RGBA8 view in any host memory (a HostImage of Rgba8, the batch's pinned buffer:
// encoded where the pixels are, never copied into an image first). Throws ImageSaveError for a
// view of another format.
void encode_rgba8_to(const ConstImageView& image, int channels, ImageFormat format, int jpeg_quality,
                     const std::function<void(const void* data, std::size_t size)>& write);
// `channels` of an RGBA8 image (or view) as an 8-bit image of that many channels (grey is the red channel).
HostImage rgba8_channels(const ImageRgba8& image, int channels);
HostImage rgba8_channels(const ConstImageView& image, int channels);

// Empty if `path` names a file save_image can write (a known extension, or any name with an
// explicit format; an existing folder; then output_file_problem: a name that fits, not a folder,
// device or FIFO, no existing file or link unless overwriting); otherwise the reason.
std::string check_output_path(const std::string& path, const SaveOptions& options);
std::string check_output_path(const std::string& path, Overwrite overwrite);
// The same, and that the format holds `format`'s sample type (and float64 when asked).
std::string check_output_path(const std::string& path, const SaveOptions& options, PixelFormat format);
// Empty if `file_format` can hold `format` as `options` ask; otherwise the reason, naming the
// formats that can ("PNG holds 8- and 16-bit samples, not float32; write float32 as tiff, pfm, exr,
// fits or npy, or convert the image first").
std::string check_output_type(ImageFormat file_format, PixelFormat format, const SaveOptions& options = {});

// `path` if no file has that name; otherwise the first of stem-2.ext, stem-3.ext, ... that is free.
std::string first_free_path(const std::string& path);

}  // namespace gausslab
