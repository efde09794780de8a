// BMP, our own decoder and encoder (the format of the original batch system).
//
// Reads the Windows headers (BITMAPCOREHEADER 12 bytes, BITMAPINFOHEADER 40, V2/V3 52/56, V4 108,
// V5 124): 1/2/4/8-bit palette images, 16-bit (5-5-5 or BI_BITFIELDS), 24-bit, 32-bit (BI_RGB or
// BI_BITFIELDS/BI_ALPHABITFIELDS with contiguous masks), bottom-up and top-down. Refused with the
// reason: RLE4/RLE8 and embedded JPEG/PNG (rare today; convert such files to PNG), OS/2 2.x
// headers, CMYK variants.
//
// Checked before allocation: the pixel rows the header promises must lie inside the file. A
// palette index beyond the palette is an error. In a 32-bit BI_RGB file the fourth byte is alpha
// only if some pixel has it non-zero (many writers leave it 0, which would make the picture
// invisible otherwise).
//
// Writes grey as 8-bit indices into a ramp of the 256 greys (read back as grey), 24-bit BI_RGB (RGB)
// and 32-bit BI_BITFIELDS with a V4 header and an alpha mask (grey+alpha and RGBA), bottom-up, rows
// padded to 4 bytes.
#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "BMP";

enum Compression : std::uint32_t {
  kRgb = 0, kRle8 = 1, kRle4 = 2, kBitfields = 3, kJpeg = 4, kPng = 5, kAlphaBitfields = 6,
};

// One channel of a BI_BITFIELDS pixel: (pixel & mask) >> shift is a `bits`-bit value.
struct Channel {
  std::uint32_t mask = 0;
  int shift = 0;
  int bits = 0;
  std::uint8_t extract(std::uint32_t pixel) const {
    if (bits == 0) return 0;
    const std::uint32_t value = (pixel & mask) >> shift;
    return bits == 8 ? static_cast<std::uint8_t>(value) : scale_to_8bit(value, (1U << bits) - 1);
  }
};

Channel describe_mask(const DecodeInput& in, std::uint32_t mask, int bits_per_pixel) {
  Channel channel;
  channel.mask = mask;
  if (mask == 0) return channel;
  if (bits_per_pixel < 32 && (mask >> bits_per_pixel) != 0)
    fail(in, kFormat, "a colour mask has bits beyond the " + std::to_string(bits_per_pixel) + "-bit pixel");
  while (((mask >> channel.shift) & 1U) == 0) ++channel.shift;
  std::uint32_t rest = mask >> channel.shift;
  while (rest & 1U) {
    ++channel.bits;
    rest >>= 1;
  }
  if (rest != 0) fail(in, kFormat, "a colour mask is not one run of bits");
  if (channel.bits > 16) fail(in, kFormat, "a colour mask is wider than 16 bits");
  return channel;
}

struct Header {
  std::uint32_t pixel_offset = 0;
  std::uint32_t header_size = 0;
  std::int64_t width = 0;
  std::int64_t height = 0;  // negative: top-down
  int bits = 0;
  std::uint32_t compression = kRgb;
  std::uint32_t colours_used = 0;
  std::array<std::uint32_t, 4> masks{};  // R, G, B, A
  bool has_masks = false;
};

Header read_header(const DecodeInput& in, ByteReader& r) {
  Header h;
  r.skip(10, "file header");
  h.pixel_offset = r.u32le("file header");
  h.header_size = r.u32le("bitmap header");
  if (h.header_size == 12) {  // BITMAPCOREHEADER
    h.width = r.u16le("bitmap header");
    h.height = r.u16le("bitmap header");
    if (r.u16le("bitmap header") != 1) fail(in, kFormat, "the plane count is not 1");
    h.bits = r.u16le("bitmap header");
    return h;
  }
  if (h.header_size == 16 || h.header_size == 64)
    fail(in, kFormat, "OS/2 2.x bitmaps are not supported; convert the file to PNG");
  if (h.header_size != 40 && h.header_size != 52 && h.header_size != 56 && h.header_size != 108 &&
      h.header_size != 124)
    fail(in, kFormat, "unknown bitmap header size " + std::to_string(h.header_size));
  h.width = r.s32le("bitmap header");
  h.height = r.s32le("bitmap header");
  if (r.u16le("bitmap header") != 1) fail(in, kFormat, "the plane count is not 1");
  h.bits = r.u16le("bitmap header");
  h.compression = r.u32le("bitmap header");
  r.skip(12, "bitmap header");  // image size, resolution
  h.colours_used = r.u32le("bitmap header");
  r.skip(4, "bitmap header");  // important colours
  if (h.compression == kBitfields || h.compression == kAlphaBitfields) {
    // In a 40-byte header the masks follow it; larger headers hold them (and an alpha mask).
    const int count = h.header_size >= 56 || h.compression == kAlphaBitfields ? 4 : 3;
    for (int i = 0; i < count; ++i) h.masks[static_cast<std::size_t>(i)] = r.u32le("colour masks");
    h.has_masks = true;
  } else if (h.header_size >= 56) {
    r.skip(12, "colour masks");
    h.masks[3] = r.u32le("colour masks");  // an alpha mask is meaningful with BI_RGB too (V4/V5)
  }
  r.seek(14 + h.header_size + (h.header_size == 40 && h.has_masks ? (h.compression == kAlphaBitfields ? 16 : 12) : 0),
         "bitmap header");
  return h;
}

void check_supported(const DecodeInput& in, const Header& h) {
  switch (h.compression) {
    case kRgb:
    case kBitfields:
    case kAlphaBitfields:
      break;
    case kRle8:
    case kRle4:
      fail(in, kFormat, "RLE-compressed bitmaps are not supported; convert the file to PNG (or an uncompressed BMP)");
    case kJpeg:
    case kPng:
      fail(in, kFormat, "bitmaps holding a JPEG or PNG stream are not supported; convert the file to PNG");
    default:
      fail(in, kFormat, "unknown compression type " + std::to_string(h.compression));
  }
  const int b = h.bits;
  if (h.compression == kRgb && b != 1 && b != 2 && b != 4 && b != 8 && b != 16 && b != 24 && b != 32)
    fail(in, kFormat, std::to_string(b) + " bits per pixel is not a valid bitmap depth");
  if (h.compression != kRgb && b != 16 && b != 32)
    fail(in, kFormat, "BI_BITFIELDS needs 16 or 32 bits per pixel, not " + std::to_string(b));
  if (h.width <= 0) fail(in, kFormat, "the width " + std::to_string(h.width) + " is not positive");
  if (h.height == 0 || h.height == INT32_MIN) fail(in, kFormat, "the height " + std::to_string(h.height) + " is invalid");
}

// 24-bit rows, the batch's format: B, G, R in the file against R, G, B, A in memory. Byte by
// byte this took 10 instructions a pixel each way (callgrind, 4096×2304), most of the decoder's
// and the encoder's work; with one byte shuffle per 4 pixels (SSSE3 on x86-64, chosen at run time;
// NEON's interleaved loads and stores on 64-bit Arm) about 2. Each vector step reads or writes 16
// bytes where 12 belong to its pixels, so it runs only where 2 more pixels follow in the row; the
// rest go byte by byte.
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("ssse3"))) int unpack_bgr_ssse3(const unsigned char* src, int width, Rgba8* dst) {
  const __m128i order = _mm_setr_epi8(2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1);
  const __m128i alpha = _mm_set1_epi32(static_cast<int>(0xFF000000U));
  int x = 0;
  for (; x + 6 <= width; x += 4) {
    const __m128i bgr = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * x));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + x), _mm_or_si128(_mm_shuffle_epi8(bgr, order), alpha));
  }
  return x;
}
__attribute__((target("ssse3"))) int pack_bgr_ssse3(const Rgba8* src, int width, unsigned char* dst) {
  const __m128i order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  int x = 0;
  for (; x + 6 <= width; x += 4) {  // the next step writes over this one's last 4 bytes
    const __m128i rgba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + x));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * x), _mm_shuffle_epi8(rgba, order));
  }
  return x;
}
// __builtin_cpu_init first: this runs among the static initialisers, maybe before the CPU model is read.
const bool kHaveSsse3 = (__builtin_cpu_init(), __builtin_cpu_supports("ssse3"));
int unpack_bgr_vector(const unsigned char* src, int width, Rgba8* dst) {
  return kHaveSsse3 ? unpack_bgr_ssse3(src, width, dst) : 0;
}
int pack_bgr_vector(const Rgba8* src, int width, unsigned char* dst) {
  return kHaveSsse3 ? pack_bgr_ssse3(src, width, dst) : 0;
}
#elif defined(__aarch64__)
int unpack_bgr_vector(const unsigned char* src, int width, Rgba8* dst) {
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    const uint8x16x3_t bgr = vld3q_u8(src + 3 * x);
    const uint8x16x4_t rgba = {{bgr.val[2], bgr.val[1], bgr.val[0], vdupq_n_u8(255)}};
    vst4q_u8(reinterpret_cast<std::uint8_t*>(dst + x), rgba);
  }
  return x;
}
int pack_bgr_vector(const Rgba8* src, int width, unsigned char* dst) {
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    const uint8x16x4_t rgba = vld4q_u8(reinterpret_cast<const std::uint8_t*>(src + x));
    const uint8x16x3_t bgr = {{rgba.val[2], rgba.val[1], rgba.val[0]}};
    vst3q_u8(dst + 3 * x, bgr);
  }
  return x;
}
#else
int unpack_bgr_vector(const unsigned char*, int, Rgba8*) { return 0; }
int pack_bgr_vector(const Rgba8*, int, unsigned char*) { return 0; }
#endif

void unpack_bgr(const unsigned char* src, int width, Rgba8* dst) {
  for (int x = unpack_bgr_vector(src, width, dst); x < width; ++x) dst[x] = {src[3 * x + 2], src[3 * x + 1], src[3 * x], 255};
}

void pack_bgr(const Rgba8* src, int width, unsigned char* dst) {
  for (int x = pack_bgr_vector(src, width, dst); x < width; ++x) {
    dst[3 * x] = src[x].b;
    dst[3 * x + 1] = src[x].g;
    dst[3 * x + 2] = src[x].r;
  }
}

struct Palette {
  std::vector<Rgba8> colours;
  bool grey = true;
  bool identity = true;  // entry i is grey level i: the indices are the grey levels themselves
};

Palette read_palette(const DecodeInput& in, const Header& h, ByteReader& r) {
  Palette palette;
  if (h.bits > 8) return palette;
  const std::uint32_t full = 1U << h.bits;
  const std::uint32_t count = h.colours_used == 0 || h.colours_used > full ? full : h.colours_used;
  const std::size_t entry = h.header_size == 12 ? 3 : 4;
  if (r.position() + count * entry > h.pixel_offset && h.colours_used == 0 && h.pixel_offset >= r.position()) {
    // Some writers store fewer entries than 2^bits without saying so: read what fits before the pixels.
    const std::size_t fits = (h.pixel_offset - r.position()) / entry;
    if (fits == 0) fail(in, kFormat, "the palette is missing");
    palette.colours.resize(std::min<std::size_t>(fits, count));
  } else {
    palette.colours.resize(count);
  }
  for (Rgba8& c : palette.colours) {
    const unsigned char* bgr = r.take(entry, "palette");
    c = {bgr[2], bgr[1], bgr[0], 255};
    palette.grey = palette.grey && c.r == c.g && c.g == c.b;
    palette.identity = palette.identity && c.r == &c - palette.colours.data() && c.r == c.g && c.g == c.b;
  }
  palette.identity = palette.identity && h.bits == 8;
  return palette;
}

}  // namespace

LoadedImage decode_bmp(const DecodeInput& in) {
  ByteReader r(in, kFormat);
  const Header h = read_header(in, r);
  check_supported(in, h);
  const Palette palette = read_palette(in, h, r);

  const std::uint64_t width = static_cast<std::uint64_t>(h.width);
  const bool top_down = h.height < 0;
  const std::uint64_t height = static_cast<std::uint64_t>(top_down ? -h.height : h.height);
  check_size(in, kFormat, width, height, PixelFormat::Rgba8);
  const std::uint64_t stride = (width * static_cast<std::uint64_t>(h.bits) + 31) / 32 * 4;
  // The last row need not carry its padding; everything before it must be in the file.
  const std::uint64_t needed = stride * (height - 1) + (width * static_cast<std::uint64_t>(h.bits) + 7) / 8;
  const std::uint64_t available = h.pixel_offset <= in.size ? in.size - h.pixel_offset : 0;
  if (h.pixel_offset > in.size || needed > available) fail_too_short(in, kFormat, width, height, needed, available);

  Channel channels[4];
  bool alpha_mask = false;
  if (h.bits == 16 || h.bits == 32) {
    std::array<std::uint32_t, 4> masks = h.masks;
    if (!h.has_masks) {  // BI_RGB: 5-5-5 or 8-8-8 (+ the alpha mask of a V4/V5 header, if any)
      masks = h.bits == 16 ? std::array<std::uint32_t, 4>{0x7C00, 0x03E0, 0x001F, 0}
                           : std::array<std::uint32_t, 4>{0xFF0000, 0xFF00, 0xFF, h.masks[3]};
    }
    for (int c = 0; c < 4; ++c) channels[c] = describe_mask(in, masks[static_cast<std::size_t>(c)], h.bits);
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 4; ++b)
        if (masks[static_cast<std::size_t>(a)] & masks[static_cast<std::size_t>(b)])
          fail(in, kFormat, "two colour masks overlap");
    alpha_mask = masks[3] != 0;
  }
  // 32-bit BI_RGB without an alpha mask: the fourth byte may be alpha (see the header comment).
  const bool maybe_alpha_byte = h.bits == 32 && !h.has_masks && !alpha_mask;
  if (maybe_alpha_byte) channels[3] = describe_mask(in, 0xFF000000, 32);

  LoadedImage loaded;
  loaded.format = kFormat;
  // Every pixel is written below (each row whole, in every branch): the image is not zero-filled
  // first, and the caller's memory (a PixelTarget, the batch's pinned buffer) serves as well as
  // an image of our own.
  const int w = static_cast<int>(width);
  ImageView pixels = in.target && in.rgba8_channels ? (*in.target)(w, static_cast<int>(height), PixelFormat::Rgba8) : ImageView{};
  if (!pixels.empty()) {
    if (pixels.width != w || pixels.height != static_cast<int>(height) || pixels.format != PixelFormat::Rgba8)
      throw std::logic_error("decode_bmp: the pixel target's view is not the image's size and format");
    loaded.decoded_into = pixels;
  } else {
    loaded.image = HostImage::uninitialized(w, static_cast<int>(height), PixelFormat::Rgba8);  // check_size above
    pixels = loaded.image.view();
  }
  bool any_alpha = false;
  for (std::uint64_t row = 0; row < height; ++row) {
    const unsigned char* src = in.data + h.pixel_offset + row * stride;
    const int y = static_cast<int>(top_down ? row : height - 1 - row);
    Rgba8* dst = pixels.row<Rgba8>(y);
    if (h.bits <= 8) {
      const int per_byte = 8 / h.bits;
      const unsigned mask = (1U << h.bits) - 1;
      for (int x = 0; x < w; ++x) {
        const int shift = 8 - h.bits * (x % per_byte + 1);
        const unsigned index = (src[x / per_byte] >> shift) & mask;
        if (index >= palette.colours.size())
          fail(in, kFormat,
               "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") uses palette entry " +
                   std::to_string(index) + " but the palette has " + std::to_string(palette.colours.size()) +
                   " entries");
        dst[x] = palette.colours[index];
      }
    } else if (h.bits == 24) {
      unpack_bgr(src, w, dst);
    } else {
      const int bytes = h.bits / 8;
      for (int x = 0; x < w; ++x) {
        std::uint32_t pixel = 0;
        for (int b = 0; b < bytes; ++b) pixel |= static_cast<std::uint32_t>(src[bytes * x + b]) << (8 * b);
        const std::uint8_t alpha = channels[3].extract(pixel);
        any_alpha = any_alpha || alpha != 0;
        dst[x] = {channels[0].extract(pixel), channels[1].extract(pixel), channels[2].extract(pixel),
                  channels[3].bits ? alpha : std::uint8_t{255}};
      }
    }
  }
  const bool use_alpha = alpha_mask || (maybe_alpha_byte && any_alpha);
  if (maybe_alpha_byte && !any_alpha)
    for (int y = 0; y < pixels.height; ++y)
      for (int x = 0; x < w; ++x) pixels.row<Rgba8>(y)[x].a = 255;
  if (h.bits <= 8 && !palette.identity)  // an 8-bit grey ramp (as gausslab writes grey) needs no word
    loaded.note = palette.grey ? "palette of greys expanded to 8-bit grey" : "palette colours expanded to 8-bit RGB";
  if (h.bits == 16) loaded.note = "5- and 6-bit colour channels widened to 8 bits (round(v × 255 / max))";
  finish_rgba8(in, loaded, use_alpha ? 4 : (h.bits <= 8 && palette.grey ? 1 : 3));
  return loaded;
}

namespace {

void put16(std::vector<unsigned char>& out, std::uint32_t v) {
  out.push_back(static_cast<unsigned char>(v));
  out.push_back(static_cast<unsigned char>(v >> 8));
}
void put32(std::vector<unsigned char>& out, std::uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

}  // namespace

void encode_bmp(const ConstImageView& image, int channels, ByteSink& out) {
  const bool alpha = channels == 2 || channels == 4;
  // Grey as 8 bits an index into a ramp of the 256 greys: one channel read back, as written.
  const bool grey_indices = channels == 1;
  const std::uint64_t bytes_per_pixel = grey_indices ? 1 : alpha ? 4 : 3;
  const std::uint64_t stride = (static_cast<std::uint64_t>(image.width) * bytes_per_pixel + 3) / 4 * 4;
  const std::uint32_t header_size = alpha ? 108 : 40;
  const std::uint32_t palette_bytes = grey_indices ? 256 * 4 : 0;
  const std::uint64_t pixel_offset = 14 + header_size + palette_bytes;
  const std::uint64_t file_size = pixel_offset + stride * static_cast<std::uint64_t>(image.height);
  if (file_size > 0xFFFFFFFFULL)
    throw ImageSaveError("the image is too large for a BMP file (" + std::to_string(file_size) +
                         " bytes; BMP holds at most 4 GiB): use PNG");

  std::vector<unsigned char> header;
  header.push_back('B');
  header.push_back('M');
  put32(header, static_cast<std::uint32_t>(file_size));
  put32(header, 0);
  put32(header, static_cast<std::uint32_t>(pixel_offset));
  put32(header, header_size);
  put32(header, static_cast<std::uint32_t>(image.width));
  put32(header, static_cast<std::uint32_t>(image.height));  // positive: bottom-up, as most readers expect
  put16(header, 1);
  put16(header, static_cast<std::uint32_t>(bytes_per_pixel * 8));
  put32(header, alpha ? kBitfields : kRgb);
  put32(header, static_cast<std::uint32_t>(stride * static_cast<std::uint64_t>(image.height)));
  put32(header, 2835);  // 72 dpi
  put32(header, 2835);
  put32(header, grey_indices ? 256 : 0);  // colours used
  put32(header, 0);
  if (alpha) {
    for (std::uint32_t mask : {0x00FF0000U, 0x0000FF00U, 0x000000FFU, 0xFF000000U}) put32(header, mask);
    put32(header, 0x73524742);  // 'sRGB' colour space
    header.resize(header.size() + 48, 0);  // endpoints and gamma, unused with sRGB
  }
  if (grey_indices)
    for (std::uint32_t level = 0; level < 256; ++level) put32(header, level * 0x010101U);  // B, G, R, 0
  out.write(header.data(), header.size());

  // The rows go out in pieces of at least AtomicFile::kDirectWriteBytes (each piece a whole number
  // of rows, as evenly as they divide) where the image is that large: AtomicFile writes such a
  // piece from this memory, where a row at a time was first copied into its buffer (one more
  // pass over the file). The padding bytes stay the zeros they start as: no row writes them.
  const std::uint64_t pixel_bytes = stride * static_cast<std::uint64_t>(image.height);
  const std::uint64_t pieces = std::max<std::uint64_t>(1, pixel_bytes / (AtomicFile::kDirectWriteBytes + stride));
  const auto first_row_of = [&](std::uint64_t piece) {
    return static_cast<int>(static_cast<std::uint64_t>(image.height) * piece / pieces);
  };
  std::vector<unsigned char> chunk(static_cast<std::size_t>(stride) * static_cast<std::size_t>(first_row_of(1)) +
                                       static_cast<std::size_t>(stride),
                                   0);
  int in_chunk = 0;
  std::uint64_t piece = 0;
  for (int y = image.height - 1; y >= 0; --y) {
    const Rgba8* src = image.row<Rgba8>(y);
    unsigned char* row = chunk.data() + static_cast<std::size_t>(in_chunk) * stride;
    if (channels == 3) {
      pack_bgr(src, image.width, row);
    } else if (grey_indices) {
      for (int x = 0; x < image.width; ++x) row[x] = src[x].r;
    } else {
      unsigned char* dst = row;
      for (int x = 0; x < image.width; ++x) {
        const Rgba8& p = src[x];
        const bool grey = channels <= 2;
        *dst++ = grey ? p.r : p.b;
        *dst++ = grey ? p.r : p.g;
        *dst++ = p.r;
        if (alpha) *dst++ = p.a;
      }
    }
    // Rows written so far (bottom-up) reach the end of this piece: out it goes.
    ++in_chunk;
    if (image.height - y == first_row_of(piece + 1)) {
      out.write(chunk.data(), static_cast<std::size_t>(in_chunk) * stride);
      in_chunk = 0;
      ++piece;
    }
  }
}

}  // namespace gausslab::codec
