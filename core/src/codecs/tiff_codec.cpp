// TIFF through libtiff (Debian's libtiff 4.5, fuzzed upstream by OSS-Fuzz).
//
// The first image of the file. Grey (min-is-black or min-is-white) and RGB, with or without an
// alpha sample, of 8- or 16-bit unsigned integer or 16-, 32-bit float samples, strips or tiles,
// contiguous or separate planes, any compression libtiff has, are read sample by sample here and
// kept as they are (u8, u16, f16, f32). Also read here, into f32 with a note: signed 8/16-bit
// integers (exactly), 32-bit integers and 64-bit floats (the note counts the samples float32
// cannot hold exactly). Min-is-white is inverted (max − v; 1 − v for floats), associated
// (premultiplied) alpha is un-premultiplied (round(v × max / a); v / a for floats; 0 where a is
// 0), extra samples that are not alpha are dropped, each with a note.
//
// Everything else (palette, 1/2/4-bit, YCbCr, CMYK, Lab, JPEG-in-TIFF as YCbCr...) goes through
// libtiff's RGBA reader into 8-bit RGB(A); that reader premultiplies alpha, so its alpha is
// un-premultiplied too. In both readers an error or a warning that libtiff reports while it
// decodes pixels is an error: its fax and JPEG decoders report lost data ("Premature EOF", "Bad
// code word", a corrupt JPEG strip) and go on with blank or grey rows.
//
// Bounded: the size against the limits before allocation; libtiff's own allocations are capped at
// the decoded-bytes limit (TIFFOpenOptionsSetMaxSingleMemAlloc); the strips' or tiles' byte counts
// must be able to hold the raster at the compression's best ratio (best_ratio; fax codes at least
// one bit a row, JPEG one bit an 8×8 block), else the header contradicts the file and it is refused
// before allocation. A strip or tile that decodes to fewer bytes than its rows need is an error.
//
// Written: strips of about 64 KiB, contiguous, Deflate (horizontal differencing for integers) or
// uncompressed; u8, u16, f16 (SAMPLEFORMAT_IEEEFP, 16
// bits) and f32, 1-4 channels (grey, grey + unassociated alpha, RGB, RGBA).
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "codecs.hpp"
#include "gausslab/core/half.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "TIFF";

// The file as libtiff sees it: our bytes when reading, a growing buffer when writing.
struct MemoryFile {
  const DecodeInput* in = nullptr;
  std::vector<unsigned char>* out = nullptr;
  std::uint64_t position = 0;
  bool decoding = false;  // once the header is read: from then on a warning means lost pixels
  bool bogus_byte_counts = false;  // libtiff ignored a strip byte count too small for the raster
  char error[512] = {};
  char error_module[64] = {};  // the first problem's libtiff function ("TIFFFetchDirectory")
  char error_text[400] = {};   // and its text alone
};

std::uint64_t file_size(const MemoryFile& file) { return file.in ? file.in->size : file.out->size(); }

tmsize_t read_proc(thandle_t handle, void* buffer, tmsize_t size) {
  auto* file = static_cast<MemoryFile*>(handle);
  if (!file->in || size <= 0 || file->position >= file->in->size) return 0;
  const std::uint64_t count = std::min<std::uint64_t>(static_cast<std::uint64_t>(size), file->in->size - file->position);
  std::memcpy(buffer, file->in->data + file->position, count);
  file->position += count;
  return static_cast<tmsize_t>(count);
}

tmsize_t write_proc(thandle_t handle, void* buffer, tmsize_t size) {
  auto* file = static_cast<MemoryFile*>(handle);
  if (!file->out || size < 0) return 0;
  const std::uint64_t end = file->position + static_cast<std::uint64_t>(size);
  if (end > file->out->size()) file->out->resize(end);
  std::memcpy(file->out->data() + file->position, buffer, static_cast<std::size_t>(size));
  file->position = end;
  return size;
}

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  auto* file = static_cast<MemoryFile*>(handle);
  std::uint64_t base = 0;
  if (whence == SEEK_CUR) base = file->position;
  if (whence == SEEK_END) base = file_size(*file);
  if (offset > UINT64_MAX - base) return static_cast<toff_t>(-1);
  file->position = base + offset;
  return file->position;
}

int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t handle) { return file_size(*static_cast<MemoryFile*>(handle)); }
// No mapping: libtiff may rewrite mapped bytes in place (bit-order reversal), and ours are const.
int map_proc(thandle_t, void**, toff_t*) { return 0; }
void unmap_proc(thandle_t, void*, toff_t) {}

void remember(MemoryFile& file, const char* prefix, const char* module, const char* format, va_list args) {
  if (file.error[0] != '\0') return;  // the first problem is the cause; later ones follow from it
  char text[400];
  std::vsnprintf(text, sizeof text, format, args);
  std::snprintf(file.error, sizeof file.error, "%s%s%s%s", prefix, module ? module : "", module ? ": " : "", text);
  std::snprintf(file.error_module, sizeof file.error_module, "%s", module ? module : "");
  std::snprintf(file.error_text, sizeof file.error_text, "%s", text);
}

int on_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
  remember(*static_cast<MemoryFile*>(user), "", module, format, args);
  return 1;  // handled: libtiff prints nothing
}

// The warnings libtiff gives when it starts decoding a valid file in an old variant of its
// compression (old-style JPEG, old-style LZW codes): about the file's kind, not lost data; the
// pixels decode whole (OutsideCorpora: the ojpeg_* and quad-lzw-compat files equal PIL's).
bool announces_old_variant(const char* module) {
  if (!module) return false;
  for (const char* old : {"OJPEGSetupDecode", "LZWPreDecode"})
    if (std::strcmp(module, old) == 0) return true;
  return false;
}

// While the directory is read, warnings are about tags (unknown, badly typed, unsorted) and the
// pixels are not affected; while pixels are decoded, a warning means data was lost or made up
// (but those of announces_old_variant).
int on_warning(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* file = static_cast<MemoryFile*>(user);
  if (file->decoding && !announces_old_variant(module)) remember(*file, "", module, format, args);
  // "Bogus "StripByteCounts" field, ignoring and calculating from imagelength": the one
  // uncompressed strip declares fewer bytes than its rows need; libtiff would read on past them.
  if (!file->decoding && format) {
    char text[256];
    std::vsnprintf(text, sizeof text, format, args);
    if (std::strstr(text, "Bogus") && std::strstr(text, "ByteCounts")) file->bogus_byte_counts = true;
  }
  return 1;
}

struct Handle {
  TIFF* tif = nullptr;
  TIFFOpenOptions* options = nullptr;
  ~Handle() {
    if (tif) TIFFClose(tif);
    if (options) TIFFOpenOptionsFree(options);
  }
};

std::string libtiff_error(const MemoryFile& file, const char* otherwise) {
  return file.error[0] ? std::string(file.error) : std::string(otherwise);
}

// Why the file could not be opened. A directory (the table of tags that describes an image) that
// libtiff cannot read is said in our words: it is cut short, or where the header points there is no
// directory (libtiff's own words, "TIFFFetchDirectory: NAME: Can not read TIFF directory count",
// follow without the function and the file's name).
std::string open_problem(const DecodeInput& in, const MemoryFile& file) {
  const std::string module = file.error_module;
  if (module != "TIFFFetchDirectory" && module != "TIFFReadDirectory")
    return libtiff_error(file, "libtiff could not read its header");
  std::string detail = file.error_text;
  if (const std::string name = in.name + ": "; detail.compare(0, name.size(), name) == 0) detail.erase(0, name.size());
  std::string where;
  const unsigned char* d = in.data;
  if (in.size >= 8 && ((d[0] == 'I' && d[1] == 'I') || (d[0] == 'M' && d[1] == 'M')) && d[2] + d[3] == 42) {
    const bool little = d[0] == 'I';
    const std::uint64_t offset = little ? d[4] | d[5] << 8 | d[6] << 16 | std::uint64_t{d[7]} << 24
                                        : std::uint64_t{d[4]} << 24 | d[5] << 16 | d[6] << 8 | d[7];
    where = offset >= in.size ? " (the header puts it at byte " + std::to_string(offset) + ", beyond the file's " +
                                    std::to_string(in.size) + " bytes)"
                              : " (at byte " + std::to_string(offset) + " of the file's " + std::to_string(in.size) +
                                    ")";
  }
  return "its image directory, the table of tags that describes the image" + where +
         ", cannot be read whole: the file is truncated or damaged (libtiff: " + detail + ")";
}

// Fails when libtiff reported a problem while it decoded pixels, even where the call succeeded.
void check_decoded(const DecodeInput& in, const MemoryFile& file) {
  if (file.error[0])
    fail(in, kFormat, std::string(file.error) + " (the pixel data is damaged or truncated: libtiff would fill the rest)");
}

// How a compression bounds the raster its stored bytes can produce.
struct Bound {
  std::uint64_t ratio = 0;         // raster bytes per stored byte, at most
  std::uint64_t rows_per_byte = 0;  // or rows per stored byte, at most (fax: a row is at least one bit)
  std::uint64_t pixels_per_byte = 0;  // or pixels per stored byte (JPEG: a bit per 8×8 block)
};

Bound best_ratio(int compression) {
  switch (compression) {
    case COMPRESSION_NONE: return {1, 0, 0};
    case COMPRESSION_PACKBITS: return {64, 0, 0};   // 2 bytes repeat one byte 128 times
    case COMPRESSION_LZW: return {3641, 0, 0};      // a 9-bit code stands for at most 4096 bytes
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return {1032, 0, 0};  // zlib's limit
    case COMPRESSION_CCITTRLE:
    case COMPRESSION_CCITTRLEW:
    case COMPRESSION_CCITTFAX3:
    case COMPRESSION_CCITTFAX4: return {0, 8, 0};   // a row costs at least one bit (G4: a V0 code)
    case COMPRESSION_JPEG:
    case COMPRESSION_OJPEG: return {0, 0, 8 * 64};  // a Huffman-coded block costs at least one bit
    default: return {65536, 0, 0};  // LZMA, ZSTD, WebP, JBIG, PixarLog, ...: far beyond what they reach
  }
}

enum class Source { AsStored, Int8, Int16, Int32, UInt32, Float64 };

struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 1, sample_format = SAMPLEFORMAT_UINT, photometric = 0, planar = PLANARCONFIG_CONTIG;
  int colour_samples = 0;  // 1 grey, 3 RGB
  int alpha_sample = -1;   // index of the alpha sample, or -1
  bool associated = false;  // premultiplied alpha
  bool inverted = false;    // min-is-white
  Source source = Source::AsStored;
  SampleType stored = SampleType::U8;  // the result's sample type
  int channels() const { return colour_samples + (alpha_sample >= 0 ? 1 : 0); }
};

// True when the sample-by-sample reader below handles this layout.
bool read_here(Layout& l, TIFF* tif) {
  const int f = l.sample_format;
  if (f == SAMPLEFORMAT_UINT && l.bits == 8) l.stored = SampleType::U8;
  else if (f == SAMPLEFORMAT_UINT && l.bits == 16) l.stored = SampleType::U16;
  else if (f == SAMPLEFORMAT_IEEEFP && l.bits == 16) l.stored = SampleType::F16;
  else if (f == SAMPLEFORMAT_IEEEFP && l.bits == 32) l.stored = SampleType::F32;
  else if (f == SAMPLEFORMAT_IEEEFP && l.bits == 64) l.source = Source::Float64;
  else if (f == SAMPLEFORMAT_INT && l.bits == 8) l.source = Source::Int8;
  else if (f == SAMPLEFORMAT_INT && l.bits == 16) l.source = Source::Int16;
  else if (f == SAMPLEFORMAT_INT && l.bits == 32) l.source = Source::Int32;
  else if (f == SAMPLEFORMAT_UINT && l.bits == 32) l.source = Source::UInt32;
  else return false;
  if (l.source != Source::AsStored) l.stored = SampleType::F32;
  if (l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE)
    l.colour_samples = 1;
  else if (l.photometric == PHOTOMETRIC_RGB)
    l.colour_samples = 3;
  else
    return false;
  if (l.samples < l.colour_samples) return false;
  l.inverted = l.photometric == PHOTOMETRIC_MINISWHITE;
  std::uint16_t extra_count = 0;
  std::uint16_t* extra_types = nullptr;
  if (l.samples > l.colour_samples && TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) &&
      extra_count > 0 && (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA)) {
    l.alpha_sample = l.colour_samples;
    l.associated = extra_types[0] == EXTRASAMPLE_ASSOCALPHA;
  }
  return true;
}

const char* source_name(const Layout& l) {
  switch (l.source) {
    case Source::Int8: return "int8";
    case Source::Int16: return "int16";
    case Source::Int32: return "int32";
    case Source::UInt32: return "uint32";
    case Source::Float64: return "float64";
    default: return source_type_name(l.stored);
  }
}

// Copies one sample from the decoded chunk to the result; returns false when float32 could not
// hold it exactly (32-bit integers beyond 2^24, most float64 values).
void copy_sample(const unsigned char* src, unsigned char* dst, const Layout& l, Float32Narrowing& narrowing) {
  switch (l.source) {
    case Source::AsStored: std::memcpy(dst, src, bytes_per_sample(l.stored)); return;
    case Source::Int8: {
      const float v = static_cast<float>(static_cast<std::int8_t>(*src));
      std::memcpy(dst, &v, 4);
      return;
    }
    case Source::Int16: {
      std::int16_t i;
      std::memcpy(&i, src, 2);
      const float v = i;
      std::memcpy(dst, &v, 4);
      return;
    }
    case Source::Int32:
    case Source::UInt32: {
      std::uint32_t u;
      std::memcpy(&u, src, 4);
      const double wide = l.source == Source::Int32 ? static_cast<double>(static_cast<std::int32_t>(u)) : u;
      const float v = narrowing.narrow(wide);
      std::memcpy(dst, &v, 4);
      return;
    }
    case Source::Float64: {
      double wide;
      std::memcpy(&wide, src, 8);
      const float v = narrowing.narrow(wide);
      std::memcpy(dst, &v, 4);
      return;
    }
  }
}

// Reads every strip or tile into `image`; returns how the samples wider than float32 were narrowed.
Float32Narrowing read_samples(const DecodeInput& in, TIFF* tif, MemoryFile& file, const Layout& l, HostImage& image) {
  const bool tiled = TIFFIsTiled(tif) != 0;
  const bool separate = l.planar == PLANARCONFIG_SEPARATE;
  const std::uint64_t chunk_bytes = tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
  const std::uint32_t chunks = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
  std::uint32_t chunk_w = l.width, chunk_h = 0;
  if (tiled) {
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &chunk_w);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &chunk_h);
  } else {
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &chunk_h);
    chunk_h = std::min(chunk_h, l.height);
  }
  if (chunk_w == 0 || chunk_h == 0 || chunk_bytes == 0) fail(in, kFormat, "the strip or tile size is 0");
  const std::uint64_t across = (l.width + chunk_w - 1) / chunk_w, down = (l.height + chunk_h - 1) / chunk_h;
  const std::uint64_t per_plane = across * down;
  const int planes = separate ? l.samples : 1;
  if (static_cast<std::uint64_t>(chunks) != per_plane * static_cast<std::uint64_t>(planes))
    fail(in, kFormat, "the number of strips or tiles does not match the image size");
  const int chunk_samples = separate ? 1 : l.samples;
  const std::uint64_t sample_bytes = l.bits / 8;
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(chunk_w) * chunk_samples * sample_bytes;
  const int channels = l.channels();
  const std::size_t out_sample = bytes_per_sample(l.stored);
  std::vector<unsigned char> buffer(chunk_bytes);
  Float32Narrowing narrowing;

  for (std::uint32_t chunk = 0; chunk < chunks; ++chunk) {
    const int plane = static_cast<int>(chunk / per_plane);
    const std::uint64_t index = chunk % per_plane;
    const std::uint64_t x0 = (index % across) * chunk_w, y0 = (index / across) * chunk_h;
    const std::uint64_t columns = std::min<std::uint64_t>(chunk_w, l.width - x0);
    const std::uint64_t rows = std::min<std::uint64_t>(chunk_h, l.height - y0);
    if (plane >= channels) continue;  // extra samples that are not alpha: dropped
    const tmsize_t got = tiled ? TIFFReadEncodedTile(tif, chunk, buffer.data(), static_cast<tmsize_t>(chunk_bytes))
                               : TIFFReadEncodedStrip(tif, chunk, buffer.data(), static_cast<tmsize_t>(chunk_bytes));
    if (got < 0)
      fail(in, kFormat, libtiff_error(file, "a strip or tile could not be decoded") + " (the file is damaged or truncated)");
    check_decoded(in, file);
    const std::uint64_t needed = (rows - 1) * row_bytes + columns * chunk_samples * sample_bytes;
    if (static_cast<std::uint64_t>(got) < needed)
      fail(in, kFormat, (tiled ? "tile " : "strip ") + std::to_string(chunk) + " decodes to " + std::to_string(got) +
                            " bytes, fewer than its pixels need (" + std::to_string(needed) + ")");
    for (std::uint64_t r = 0; r < rows; ++r) {
      unsigned char* dst = image.row<unsigned char>(static_cast<int>(y0 + r)) + x0 * channels * out_sample;
      const unsigned char* src = buffer.data() + r * row_bytes;
      for (std::uint64_t c = 0; c < columns; ++c)
        for (int s = 0; s < chunk_samples; ++s) {
          const int sample = separate ? plane : s;
          if (sample >= channels) continue;
          copy_sample(src + (c * chunk_samples + s) * sample_bytes, dst + (c * channels + sample) * out_sample, l,
                      narrowing);
        }
    }
  }
  return narrowing;
}

// max − v for the colour samples of a min-is-white image (1 − v for floats).
void invert(HostImage& image, int colour_samples) {
  const int channels = image.channels();
  const SampleType type = sample_type(image.format());
  const float max = static_cast<float>(nominal_max(type));
  std::vector<float> row(static_cast<std::size_t>(image.width()) * channels);
  for (int y = 0; y < image.height(); ++y) {
    load_row_samples(image.view(), y, row.data());
    for (std::size_t i = 0; i < row.size(); ++i)
      if (static_cast<int>(i % channels) < colour_samples) row[i] = max - row[i];  // exact for integers
    store_row_samples(row.data(), image.view(), y);
  }
}

// Straight alpha from premultiplied: v × max / a rounded half up (v / a for floats), 0 where a is 0.
void unpremultiply(HostImage& image) {
  const int channels = image.channels();
  const SampleType type = sample_type(image.format());
  const double max = nominal_max(type);
  std::vector<float> row(static_cast<std::size_t>(image.width()) * channels);
  for (int y = 0; y < image.height(); ++y) {
    load_row_samples(image.view(), y, row.data());
    for (int x = 0; x < image.width(); ++x) {
      float* p = &row[static_cast<std::size_t>(x) * channels];
      const double a = p[channels - 1];
      for (int c = 0; c < channels - 1; ++c)
        p[c] = a > 0 ? static_cast<float>(is_integer(type) ? std::min(max, std::floor(p[c] * max / a + 0.5)) : p[c] / a)
                     : 0.0f;
    }
    store_row_samples(row.data(), image.view(), y);
  }
}

}  // namespace

LoadedImage decode_tiff(const DecodeInput& in) {
  MemoryFile file;
  file.in = &in;
  Handle h;
  h.options = TIFFOpenOptionsAlloc();
  if (!h.options) throw std::bad_alloc();
  TIFFOpenOptionsSetMaxSingleMemAlloc(h.options, static_cast<tmsize_t>(in.limits.max_decoded_bytes));
  TIFFOpenOptionsSetErrorHandlerExtR(h.options, on_error, &file);
  TIFFOpenOptionsSetWarningHandlerExtR(h.options, on_warning, &file);
  h.tif = TIFFClientOpenExt(in.name.c_str(), "rm", &file, read_proc, write_proc, seek_proc, close_proc, size_proc,
                            map_proc, unmap_proc, h.options);
  if (!h.tif) fail(in, kFormat, open_problem(in, file));
  // Only the first page (image file directory) is read; the load says so when there are more.
  const tdir_t pages = TIFFNumberOfDirectories(h.tif);
  const std::string pages_note =
      pages > 1 ? "page 1 of " + std::to_string(pages) +
                      " read (a multi-page TIFF: the other pages are not; split it into one file a page first, e.g. "
                      "tiffsplit)"
                : std::string();
  file.error[0] = '\0';  // what the directory's reading said was about tags; the pixels start clean

  Layout l;
  TIFFGetField(h.tif, TIFFTAG_IMAGEWIDTH, &l.width);
  TIFFGetField(h.tif, TIFFTAG_IMAGELENGTH, &l.height);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_SAMPLESPERPIXEL, &l.samples);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_BITSPERSAMPLE, &l.bits);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_SAMPLEFORMAT, &l.sample_format);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_PLANARCONFIG, &l.planar);
  if (!TIFFGetField(h.tif, TIFFTAG_PHOTOMETRIC, &l.photometric))
    l.photometric = l.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // as libtiff's RGBA reader guesses
  std::uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_COMPRESSION, &compression);
  // JPEG-in-TIFF as YCbCr goes through the RGBA reader, which has libtiff convert it to RGB.
  const bool here = read_here(l, h.tif);
  const PixelFormat result = here ? make_pixel_format(l.stored, l.channels()) : PixelFormat::Rgba8;
  const std::uint64_t chunk_bytes = TIFFIsTiled(h.tif) ? TIFFTileSize64(h.tif) : TIFFStripSize64(h.tif);
  check_size(in, kFormat, l.width, l.height, result, here ? chunk_bytes : 0);
  if (file.bogus_byte_counts)
    fail(in, kFormat,
         "its strip byte count is smaller than the uncompressed rows it must hold (the file is damaged or "
         "truncated; libtiff would ignore the count and read on)");

  {  // what the stored bytes can hold, before anything is allocated
    const Bound bound = best_ratio(compression);
    const std::uint64_t planes = l.planar == PLANARCONFIG_SEPARATE ? l.samples : 1;
    const std::uint64_t raster = TIFFScanlineSize64(h.tif) * l.height * planes;
    std::uint64_t stored = 0;
    const std::uint32_t chunks = TIFFIsTiled(h.tif) ? TIFFNumberOfTiles(h.tif) : TIFFNumberOfStrips(h.tif);
    for (std::uint32_t i = 0; i < chunks && stored < in.size; ++i)
      stored += std::min<std::uint64_t>(TIFFGetStrileByteCount(h.tif, i), in.size);
    stored = std::min<std::uint64_t>(stored, in.size);
    if (bound.ratio && stored * bound.ratio < raster)
      fail_too_short(in, kFormat, l.width, l.height, (raster + bound.ratio - 1) / bound.ratio, stored);
    if (bound.rows_per_byte && stored * bound.rows_per_byte < static_cast<std::uint64_t>(l.height) * planes)
      fail_too_short(in, kFormat, l.width, l.height, (l.height * planes + 7) / 8, stored);
    const std::uint64_t pixels = static_cast<std::uint64_t>(l.width) * l.height;
    if (bound.pixels_per_byte && stored * bound.pixels_per_byte < pixels)
      fail_too_short(in, kFormat, l.width, l.height, (pixels + bound.pixels_per_byte - 1) / bound.pixels_per_byte,
                     stored);
  }

  LoadedImage loaded;
  loaded.format = kFormat;
  if (here) {
    loaded.image = allocate_image(in, kFormat, l.width, l.height, result, chunk_bytes);
    loaded.source_type = source_name(l);
    file.decoding = true;
    const Float32Narrowing narrowing = read_samples(in, h.tif, file, l, loaded.image);
    if (l.source == Source::Int8 || l.source == Source::Int16)
      add_note(loaded.note, std::string("signed ") + std::to_string(l.bits) + "-bit integers as float32 (exactly)");
    if (l.source == Source::Int32 || l.source == Source::UInt32 || l.source == Source::Float64)
      add_note(loaded.note, std::string(l.source == Source::Float64 ? "64-bit floats" : "32-bit integers") +
                                " converted to float32 (" + narrowing.describe() + ")");
    if (l.inverted) {
      invert(loaded.image, l.colour_samples);
      add_note(loaded.note, is_float(l.stored) ? "min-is-white inverted (1 − v)" : "min-is-white inverted (max − v, exactly)");
    }
    if (l.associated) {
      unpremultiply(loaded.image);
      add_note(loaded.note, is_float(l.stored) ? "associated (premultiplied) alpha un-premultiplied (v / a)"
                                               : "associated (premultiplied) alpha un-premultiplied (round(v × " +
                                                     std::to_string(static_cast<int>(nominal_max(l.stored))) + " / a))");
    }
    if (l.samples > l.channels())
      add_note(loaded.note, std::to_string(l.samples - l.channels()) + " extra sample(s) that are not alpha dropped");
    add_note(loaded.note, pages_note);
    return loaded;
  }

  char why[1024] = {};
  if (!TIFFRGBAImageOK(h.tif, why))
    fail(in, kFormat, std::string("libtiff cannot convert this kind of TIFF to RGBA: ") + why);
  loaded.image = allocate_image(in, kFormat, l.width, l.height, PixelFormat::Rgba8);
  file.decoding = true;
  if (!TIFFReadRGBAImageOriented(h.tif, l.width, l.height, loaded.image.row<std::uint32_t>(0), ORIENTATION_TOPLEFT, 1))
    fail(in, kFormat, libtiff_error(file, "libtiff could not decode the pixels") + " (the file is damaged or truncated)");
  check_decoded(in, file);
  std::uint16_t extra_count = 0;
  std::uint16_t* extra_types = nullptr;
  const bool alpha = TIFFGetField(h.tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count > 0 &&
                     (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA);
  const bool grey = l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  loaded.source_type = l.photometric == PHOTOMETRIC_PALETTE ? "palette"
                       : l.bits < 8                         ? std::to_string(l.bits) + "-bit"
                                                            : std::to_string(l.bits) + "-bit " +
                                                                  (l.sample_format == SAMPLEFORMAT_IEEEFP ? "float" : "integer");
  if (l.bits == 8 && l.sample_format == SAMPLEFORMAT_UINT) loaded.source_type = "uint8";
  std::string how = l.photometric == PHOTOMETRIC_PALETTE  ? "palette colours expanded to 8-bit RGB"
                    : l.photometric == PHOTOMETRIC_YCBCR   ? "YCbCr converted to 8-bit RGB"
                    : l.photometric == PHOTOMETRIC_SEPARATED ? "CMYK converted to 8-bit RGB without a colour profile"
                    : grey && l.bits < 8 ? std::to_string(l.bits) + "-bit grey levels expanded to 8 bits"
                    : grey || l.photometric == PHOTOMETRIC_RGB ? std::string()
                                                               : "converted to 8-bit RGB by libtiff";
  if (l.bits > 8) how = std::to_string(l.bits) + "-bit samples reduced to 8 bits by libtiff (truncated)";
  add_note(loaded.note, how);
  if (alpha) {  // libtiff's RGBA reader premultiplies (or keeps premultiplied) alpha
    unpremultiply(loaded.image);
    add_note(loaded.note, "alpha un-premultiplied after libtiff's RGBA reader (round(v × 255 / a))");
  }
  finish_rgba8(in, loaded, grey ? (alpha ? 2 : 1) : (alpha ? 4 : 3));
  add_note(loaded.note, pages_note);
  return loaded;
}

// ---- writing ----------------------------------------------------------------------------------

void encode_tiff(const ConstImageView& image, bool compress, ByteSink& out) {
  std::vector<unsigned char> bytes;
  MemoryFile file;
  file.out = &bytes;
  file.decoding = true;  // every warning while writing is worth reporting
  Handle h;
  h.options = TIFFOpenOptionsAlloc();
  if (!h.options) throw std::bad_alloc();
  TIFFOpenOptionsSetErrorHandlerExtR(h.options, on_error, &file);
  TIFFOpenOptionsSetWarningHandlerExtR(h.options, on_warning, &file);
  const std::uint64_t raster = static_cast<std::uint64_t>(image.height) * image.width * bytes_per_pixel(image.format);
  // BigTIFF ("w8") only where classic TIFF's 32-bit offsets cannot reach (a little slack for the directory).
  const char* mode = raster + (raster >> 4) + (1u << 20) > 0xffffffffull ? "w8" : "w";
  h.tif = TIFFClientOpenExt("memory", mode, &file, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
                            unmap_proc, h.options);
  if (!h.tif) throw ImageSaveError("libtiff could not start the file: " + libtiff_error(file, "unknown error"));
  const int channels = channel_count(image.format);
  const SampleType type = sample_type(image.format);
  TIFF* tif = h.tif;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(image.width));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(image.height));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(channels));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(8 * bytes_per_sample(type)));
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, static_cast<std::uint16_t>(is_float(type) ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT));
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, static_cast<std::uint16_t>(channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK));
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, static_cast<std::uint16_t>(PLANARCONFIG_CONTIG));
  TIFFSetField(tif, TIFFTAG_ORIENTATION, static_cast<std::uint16_t>(ORIENTATION_TOPLEFT));
  if (channels == 2 || channels == 4) {
    const std::uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, static_cast<std::uint16_t>(1), extra);
  }
  if (compress) {
    TIFFSetField(tif, TIFFTAG_COMPRESSION, static_cast<std::uint16_t>(COMPRESSION_ADOBE_DEFLATE));
    TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 6);
    // Horizontal differencing for integers; none for floats: the floating-point predictor would
    // save 10-30 % more, but many readers lack it (tifffile without imagecodecs, PIL).
    if (is_integer(type)) TIFFSetField(tif, TIFFTAG_PREDICTOR, static_cast<std::uint16_t>(PREDICTOR_HORIZONTAL));
  } else {
    TIFFSetField(tif, TIFFTAG_COMPRESSION, static_cast<std::uint16_t>(COMPRESSION_NONE));
  }
  const std::size_t row_bytes = static_cast<std::size_t>(image.width) * bytes_per_pixel(image.format);
  const std::uint32_t rows_per_strip = static_cast<std::uint32_t>(std::max<std::size_t>(1, (64u << 10) / std::max<std::size_t>(row_bytes, 1)));
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, std::min<std::uint32_t>(rows_per_strip, static_cast<std::uint32_t>(image.height)));
  std::vector<unsigned char> row(row_bytes);  // libtiff's predictors change the row they are given
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(row.data(), image.row<unsigned char>(y), row_bytes);
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(y), 0) != 1)
      throw ImageSaveError("libtiff could not encode the image: " + libtiff_error(file, "unknown error"));
  }
  if (!TIFFWriteDirectory(tif))
    throw ImageSaveError("libtiff could not finish the file: " + libtiff_error(file, "unknown error"));
  TIFFClose(h.tif);
  h.tif = nullptr;
  if (file.error[0]) throw ImageSaveError(std::string("libtiff: ") + file.error);
  out.write(bytes.data(), bytes.size());
}

}  // namespace gausslab::codec
