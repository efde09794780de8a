// TIFF through libtiff (Debian's libtiff 4.5, fuzzed upstream by OSS-Fuzz).
//
// The first image of the file. Grey (min-is-black or min-is-white) and RGB, with or without an
// alpha sample, of 8- or 16-bit integer or 32-bit float samples, strips or tiles, contiguous or
// planar, any compression libtiff has, are read sample by sample here: 16 bits become 8 with
// correct rounding, round(v * 255 / 65535) (libtiff's RGBA reader would truncate), floats map [0,
// 1] to 0..255. Everything else (palette, 1/2/4-bit, YCbCr, CMYK, Lab...) goes through libtiff's
// RGBA reader, written straight into the result.
//
// Bounded: the size against the limits before allocation; libtiff's own allocations are capped at
// the decoded-bytes limit (TIFFOpenOptionsSetMaxSingleMemAlloc); for uncompressed, PackBits, LZW
// and Deflate data the strips' byte counts must be able to hold the raster at that compression's
// best ratio, else the header contradicts the file and it is refused before allocation. A strip
// or tile that decodes to fewer bytes than its rows need is an error.
#include <tiffio.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "TIFF";

struct MemoryFile {
  const DecodeInput* in;
  std::uint64_t position;
  char error[512];
};

tmsize_t read_proc(thandle_t handle, void* buffer, tmsize_t size) {
  auto* file = static_cast<MemoryFile*>(handle);
  if (size <= 0 || file->position >= file->in->size) return 0;
  const std::uint64_t count = std::min<std::uint64_t>(static_cast<std::uint64_t>(size), file->in->size - file->position);
  std::memcpy(buffer, file->in->data + file->position, count);
  file->position += count;
  return static_cast<tmsize_t>(count);
}

tmsize_t write_proc(thandle_t, void*, tmsize_t) { return 0; }

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  auto* file = static_cast<MemoryFile*>(handle);
  std::uint64_t base = 0;
  if (whence == SEEK_CUR) base = file->position;
  if (whence == SEEK_END) base = file->in->size;
  if (offset > UINT64_MAX - base) return static_cast<toff_t>(-1);
  file->position = base + offset;
  return file->position;
}

int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t handle) { return static_cast<MemoryFile*>(handle)->in->size; }
// No mapping: libtiff may rewrite mapped bytes in place (bit-order reversal), and ours are const.
int map_proc(thandle_t, void**, toff_t*) { return 0; }
void unmap_proc(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* file = static_cast<MemoryFile*>(user);
  if (file->error[0] == '\0') {  // the first error is the cause; later ones follow from it
    char text[400];
    std::vsnprintf(text, sizeof text, format, args);
    std::snprintf(file->error, sizeof file->error, "%s%s%s", module ? module : "", module ? ": " : "", text);
  }
  return 1;  // handled: libtiff prints nothing
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

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

// The best ratio of raster bytes to compressed bytes that a compression can reach; 0: unknown.
std::uint64_t best_ratio(int compression) {
  switch (compression) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64;       // 2 bytes repeat one byte 128 times
    case COMPRESSION_LZW: return 3641;          // a 9-bit code stands for at most 4096 bytes
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return 1032;      // zlib's limit
    default: return 0;
  }
}

struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 1, sample_format = SAMPLEFORMAT_UINT, photometric = 0, planar = PLANARCONFIG_CONTIG;
  int colour_samples = 0;  // 1 grey, 3 RGB
  int alpha_sample = -1;   // index of the alpha sample, or -1
  bool inverted = false;   // min-is-white
};

// True when the sample-by-sample reader below handles this layout.
bool read_here(Layout& l, TIFF* tif) {
  const bool integer = l.sample_format == SAMPLEFORMAT_UINT && (l.bits == 8 || l.bits == 16);
  const bool floating = l.sample_format == SAMPLEFORMAT_IEEEFP && l.bits == 32;
  if (!integer && !floating) return false;
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
      extra_count > 0 && (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA))
    l.alpha_sample = l.colour_samples;
  return true;
}

std::uint8_t to_8bit(const unsigned char* p, const Layout& l) {
  if (l.bits == 8) return l.inverted ? static_cast<std::uint8_t>(255 - *p) : *p;
  if (l.bits == 16) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);  // libtiff delivers samples in host byte order
    return reduce_16_to_8(l.inverted ? static_cast<std::uint16_t>(65535 - v) : v);
  }
  float f;
  std::memcpy(&f, p, 4);
  if (std::isnan(f)) f = 0;
  if (l.inverted) f = 1 - f;
  return to_unorm8(f * 255.0f);
}

void read_samples(const DecodeInput& in, TIFF* tif, MemoryFile& file, const Layout& l, ImageRgba8& image) {
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
  std::vector<unsigned char> buffer(chunk_bytes);

  if (l.alpha_sample < 0)
    for (std::size_t i = 0; i < image.pixel_count(); ++i) image.data()[i].a = 255;
  for (std::uint32_t chunk = 0; chunk < chunks; ++chunk) {
    const int plane = static_cast<int>(chunk / per_plane);
    const std::uint64_t index = chunk % per_plane;
    const std::uint64_t x0 = (index % across) * chunk_w, y0 = (index / across) * chunk_h;
    const std::uint64_t columns = std::min<std::uint64_t>(chunk_w, l.width - x0);
    const std::uint64_t rows = std::min<std::uint64_t>(chunk_h, l.height - y0);
    if (plane >= std::max(l.colour_samples, l.alpha_sample + 1)) continue;  // samples nobody shows
    const tmsize_t got = tiled ? TIFFReadEncodedTile(tif, chunk, buffer.data(), static_cast<tmsize_t>(chunk_bytes))
                               : TIFFReadEncodedStrip(tif, chunk, buffer.data(), static_cast<tmsize_t>(chunk_bytes));
    if (got < 0)
      fail(in, kFormat, libtiff_error(file, "a strip or tile could not be decoded") + " (the file is damaged or truncated)");
    const std::uint64_t needed = (rows - 1) * row_bytes + columns * chunk_samples * sample_bytes;
    if (static_cast<std::uint64_t>(got) < needed)
      fail(in, kFormat, (tiled ? "tile " : "strip ") + std::to_string(chunk) + " decodes to " + std::to_string(got) +
                            " bytes, fewer than its pixels need (" + std::to_string(needed) + ")");
    for (std::uint64_t r = 0; r < rows; ++r) {
      Rgba8* dst = &image.at(static_cast<int>(x0), static_cast<int>(y0 + r));
      const unsigned char* src = buffer.data() + r * row_bytes;
      for (std::uint64_t c = 0; c < columns; ++c) {
        for (int s = 0; s < chunk_samples; ++s) {
          const int sample = separate ? plane : s;
          const std::uint8_t v = to_8bit(src + (c * chunk_samples + s) * sample_bytes, l);
          Rgba8& p = dst[c];
          if (sample == l.alpha_sample)
            p.a = v;
          else if (l.colour_samples == 1 && sample == 0)
            p.r = p.g = p.b = v;
          else if (l.colour_samples == 3 && sample < 3)
            (sample == 0 ? p.r : sample == 1 ? p.g : p.b) = v;
        }
      }
    }
  }
}

}  // namespace

LoadedImage decode_tiff(const DecodeInput& in) {
  static_assert(sizeof(Rgba8) == sizeof(std::uint32_t), "libtiff's RGBA raster is written into the image");
  MemoryFile file{&in, 0, {}};
  Handle h;
  h.options = TIFFOpenOptionsAlloc();
  if (!h.options) throw std::bad_alloc();
  TIFFOpenOptionsSetMaxSingleMemAlloc(h.options, static_cast<tmsize_t>(in.limits.max_decoded_bytes));
  TIFFOpenOptionsSetErrorHandlerExtR(h.options, on_error, &file);
  TIFFOpenOptionsSetWarningHandlerExtR(h.options, on_warning, &file);
  h.tif = TIFFClientOpenExt(in.name.c_str(), "rm", &file, read_proc, write_proc, seek_proc, close_proc, size_proc,
                            map_proc, unmap_proc, h.options);
  if (!h.tif) fail(in, kFormat, libtiff_error(file, "libtiff could not read its header"));

  Layout l;
  TIFFGetField(h.tif, TIFFTAG_IMAGEWIDTH, &l.width);
  TIFFGetField(h.tif, TIFFTAG_IMAGELENGTH, &l.height);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_SAMPLESPERPIXEL, &l.samples);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_BITSPERSAMPLE, &l.bits);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_SAMPLEFORMAT, &l.sample_format);
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_PLANARCONFIG, &l.planar);
  if (!TIFFGetField(h.tif, TIFFTAG_PHOTOMETRIC, &l.photometric))
    l.photometric = l.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // as libtiff's RGBA reader guesses
  const bool here = read_here(l, h.tif);
  const std::uint64_t chunk_bytes = TIFFIsTiled(h.tif) ? TIFFTileSize64(h.tif) : TIFFStripSize64(h.tif);
  check_size(in, kFormat, l.width, l.height, here ? chunk_bytes : 0);

  std::uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(h.tif, TIFFTAG_COMPRESSION, &compression);
  if (const std::uint64_t ratio = best_ratio(compression)) {
    const std::uint64_t planes = l.planar == PLANARCONFIG_SEPARATE ? l.samples : 1;
    const std::uint64_t raster = TIFFScanlineSize64(h.tif) * l.height * planes;
    std::uint64_t stored = 0;
    const std::uint32_t chunks = TIFFIsTiled(h.tif) ? TIFFNumberOfTiles(h.tif) : TIFFNumberOfStrips(h.tif);
    for (std::uint32_t i = 0; i < chunks; ++i) stored += std::min<std::uint64_t>(TIFFGetStrileByteCount(h.tif, i), in.size);
    stored = std::min<std::uint64_t>(stored, in.size);
    if (stored * ratio < raster) fail_too_short(in, kFormat, l.width, l.height, (raster + ratio - 1) / ratio, stored);
  }

  LoadedImage loaded;
  loaded.format = kFormat;
  if (here) {
    loaded.image = allocate_image(in, kFormat, l.width, l.height, chunk_bytes);
    read_samples(in, h.tif, file, l, loaded.image);
    loaded.source_channels = l.colour_samples + (l.alpha_sample >= 0 ? 1 : 0);
    if (l.bits == 16) loaded.note = reduced_note(16);
    if (l.bits == 32) loaded.note = "32-bit float samples mapped from [0, 1] to 0..255 (rounded; clamped; NaN as 0)";
    return loaded;
  }

  char why[1024] = {};
  if (!TIFFRGBAImageOK(h.tif, why))
    fail(in, kFormat, std::string("libtiff cannot convert this kind of TIFF to RGBA: ") + why);
  loaded.image = allocate_image(in, kFormat, l.width, l.height);
  if (!TIFFReadRGBAImageOriented(h.tif, l.width, l.height, reinterpret_cast<std::uint32_t*>(loaded.image.data()),
                                 ORIENTATION_TOPLEFT, 1))
    fail(in, kFormat, libtiff_error(file, "libtiff could not decode the pixels") + " (the file is damaged or truncated)");
  std::uint16_t extra_count = 0;
  std::uint16_t* extra_types = nullptr;
  const bool alpha = TIFFGetField(h.tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count > 0;
  const bool grey = l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
  loaded.source_channels = grey ? (alpha ? 2 : 1) : (alpha ? 4 : 3);
  if (l.bits > 8) loaded.note = std::to_string(l.bits) + "-bit samples reduced to 8 bits by libtiff (truncated)";
  return loaded;
}

}  // namespace gausslab::codec
