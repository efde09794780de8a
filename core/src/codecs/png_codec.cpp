// PNG through libpng (Debian's libpng16: maintained, fuzzed upstream and by OSS-Fuzz).
//
// Before libpng sees the file, a walk over its chunks reads IHDR and adds up the IDAT lengths:
// the size is checked against the limits, and a file whose compressed data cannot hold the
// declared pixels even at zlib's best ratio (1032:1) is refused at once, before any allocation.
//
// Grey, grey+alpha, RGB and RGBA of 8 or 16 bits are read by libpng straight into the result, as
// they are (16-bit samples byte-swapped to host order), interlaced or not; grey of 1, 2 or 4 bits
// becomes 8-bit (v × 255 / max, exact) and a tRNS colour key an alpha channel, both with a note.
// Palette images are read as indices and mapped here to RGB or RGBA 8-bit, so that an index beyond
// the palette is an error (libpng would give black; stb_image 2.27 gave uninitialised memory).
// Written 8- or 16-bit, 1-4 channels, at zlib level 2 (see encode_png).
//
// libpng's errors arrive through longjmp, which never crosses a C++ destructor: every C++ object
// lives outside the setjmp region's inner frames, and the C++ exceptions of the output sink are
// carried across libpng as an exception_ptr.
#include <png.h>

#include <csetjmp>
#include <cstring>
#include <exception>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "PNG";
constexpr std::uint64_t kBestDeflateRatio = 1032;

std::uint32_t be32(const unsigned char* p) {
  return (static_cast<std::uint32_t>(p[0]) << 24) | (static_cast<std::uint32_t>(p[1]) << 16) |
         (static_cast<std::uint32_t>(p[2]) << 8) | p[3];
}

int bits_per_pixel(int colour_type, int bit_depth) {
  const int samples = colour_type == PNG_COLOR_TYPE_GRAY          ? 1
                      : colour_type == PNG_COLOR_TYPE_GRAY_ALPHA  ? 2
                      : colour_type == PNG_COLOR_TYPE_RGB         ? 3
                      : colour_type == PNG_COLOR_TYPE_RGB_ALPHA   ? 4
                                                                   : 1;
  return samples * bit_depth;
}

// IHDR's size against the limits, and the IDAT bytes against the raster they must produce.
void check_before_decoding(const DecodeInput& in) {
  std::uint64_t idat_bytes = 0;
  bool have_header = false;
  std::uint64_t width = 0, height = 0, raster_bytes = 0;
  for (std::size_t at = 8; at + 8 <= in.size;) {
    const std::uint64_t length = be32(in.data + at);
    const unsigned char* type = in.data + at + 4;
    if (!have_header) {
      if (std::memcmp(type, "IHDR", 4) != 0 || length < 13 || at + 8 + 13 > in.size) return;  // libpng will say
      const unsigned char* ihdr = in.data + at + 8;
      width = be32(ihdr);
      height = be32(ihdr + 4);
      check_size(in, kFormat, width, height, PixelFormat::Grey8);
      const std::uint64_t row_bytes = (width * static_cast<std::uint64_t>(bits_per_pixel(ihdr[9], ihdr[8])) + 7) / 8;
      raster_bytes = height * (row_bytes + 1);  // a filter byte per row (interlacing adds a little more)
      have_header = true;
    }
    if (std::memcmp(type, "IDAT", 4) == 0) idat_bytes += length;
    if (std::memcmp(type, "IEND", 4) == 0) break;
    at += 12 + length;
  }
  if (have_header && idat_bytes == 0) fail(in, kFormat, "the file holds no image data (no IDAT chunk)");
  if (have_header && idat_bytes * kBestDeflateRatio + 1024 < raster_bytes)
    fail(in, kFormat,
         "the header declares " + std::to_string(width) + "×" + std::to_string(height) + " pixels (" +
             std::to_string(raster_bytes) + " bytes uncompressed), but the file holds only " +
             std::to_string(idat_bytes) +
             " bytes of compressed image data, too few even at zlib's best ratio of 1032:1 (the file is "
             "truncated or its header is damaged)");
}

struct ReadContext {
  const DecodeInput* in;
  std::size_t position;
  char message[256];
};

void on_error(png_structp png, png_const_charp message) {
  auto* context = static_cast<ReadContext*>(png_get_error_ptr(png));
  std::snprintf(context->message, sizeof context->message, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep out, png_size_t count) {
  auto* context = static_cast<ReadContext*>(png_get_io_ptr(png));
  if (count > context->in->size - context->position) png_error(png, "the file is truncated");
  std::memcpy(out, context->in->data + context->position, count);
  context->position += count;
}

struct ReadStruct {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~ReadStruct() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

// Maps one row of palette indices to RGB or RGBA 8-bit.
void map_palette_row(const DecodeInput& in, const unsigned char* src, unsigned char* dst, int width, int channels,
                     const std::vector<Rgba8>& palette, int y) {
  for (int x = 0; x < width; ++x) {
    if (src[x] >= palette.size())
      fail(in, kFormat,
           "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") uses palette entry " +
               std::to_string(src[x]) + " but the palette has " + std::to_string(palette.size()) + " entries");
    const Rgba8& c = palette[src[x]];
    unsigned char* q = dst + static_cast<std::size_t>(x) * channels;
    q[0] = c.r, q[1] = c.g, q[2] = c.b;
    if (channels == 4) q[3] = c.a;
  }
}

// Everything the decoder changes between setjmp and a possible longjmp lives here, in the caller's
// frame, so that nothing read after the longjmp (the error message, the objects' destructors) is
// an automatic variable of the frame that called setjmp.
struct PngReadState {
  ReadContext context{};
  ReadStruct s;
  LoadedImage loaded;
  std::vector<Rgba8> palette;
  std::vector<unsigned char> raster;  // 16-bit or palette rows (all of them when interlaced)
  std::vector<png_bytep> rows;
};

void read_png(const DecodeInput& in, PngReadState& st) {
  ReadStruct& s = st.s;
  LoadedImage& loaded = st.loaded;
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st.context, on_error, on_warning);
  if (!s.png) throw std::bad_alloc();
  s.info = png_create_info_struct(s.png);
  if (!s.info) throw std::bad_alloc();
  if (setjmp(png_jmpbuf(s.png))) fail(in, kFormat, st.context.message);

  png_set_read_fn(s.png, &st.context, read_bytes);
  png_set_user_limits(s.png, static_cast<png_uint_32>(in.limits.max_width), static_cast<png_uint_32>(in.limits.max_height));
  png_set_chunk_malloc_max(s.png, 16u << 20);  // iCCP, zTXt, ...: a decompression bomb in metadata stops here
  png_set_chunk_cache_max(s.png, 1000);
  png_read_info(s.png, s.info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, colour_type = 0, interlace = 0;
  png_get_IHDR(s.png, s.info, &width, &height, &bit_depth, &colour_type, &interlace, nullptr, nullptr);
  const bool transparency = png_get_valid(s.png, s.info, PNG_INFO_tRNS) != 0;
  const bool is_palette = colour_type == PNG_COLOR_TYPE_PALETTE;
  const bool grey = (colour_type & PNG_COLOR_MASK_COLOR) == 0;
  loaded.source_type = bit_depth < 8 ? std::to_string(bit_depth) + "-bit" : bit_depth == 16 ? "uint16" : "uint8";

  if (is_palette) {
    png_colorp entries = nullptr;
    int count = 0;
    if (!png_get_PLTE(s.png, s.info, &entries, &count) || count <= 0)
      fail(in, kFormat, "the image is colour-mapped but has no palette (PLTE chunk)");
    png_bytep alpha = nullptr;
    int alpha_count = 0;
    if (transparency) png_get_tRNS(s.png, s.info, &alpha, &alpha_count, nullptr);
    st.palette.resize(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
      st.palette[static_cast<std::size_t>(i)] = {entries[i].red, entries[i].green, entries[i].blue,
                                              i < alpha_count ? alpha[i] : std::uint8_t{255}};
    if (bit_depth < 8) png_set_packing(s.png);
    loaded.source_type = "palette";
    loaded.note = transparency ? "palette colours expanded to 8-bit RGBA" : "palette colours expanded to 8-bit RGB";
  } else {
    if (grey && bit_depth < 8) {
      png_set_expand_gray_1_2_4_to_8(s.png);
      add_note(loaded.note, std::to_string(bit_depth) + "-bit grey levels expanded to 8 bits (v × 255 / " +
                                std::to_string((1 << bit_depth) - 1) + ", exactly)");
    }
    if (transparency) {
      png_set_tRNS_to_alpha(s.png);
      add_note(loaded.note, "the tRNS transparent colour became an alpha channel");
    }
    if (bit_depth == 16) png_set_swap(s.png);  // host (little-endian) order
  }
  const int passes = png_set_interlace_handling(s.png);
  png_read_update_info(s.png, s.info);
  const int channels = is_palette ? (transparency ? 4 : 3) : png_get_channels(s.png, s.info);
  const int depth_out = png_get_bit_depth(s.png, s.info);
  const std::size_t row_bytes = png_get_rowbytes(s.png, s.info);
  const PixelFormat result = make_pixel_format(depth_out == 16 ? SampleType::U16 : SampleType::U8, channels);
  if (channels < 1 || channels > 4 || (depth_out != 8 && depth_out != 16) ||
      (!is_palette && row_bytes != width * bytes_per_pixel(result)))
    fail(in, kFormat, "unexpected layout after expansion");  // cannot happen with a valid IHDR
  const std::uint64_t raster_rows = is_palette ? (passes > 1 ? height : 1) : 0;
  loaded.image = allocate_image(in, kFormat, width, height, result,
                                raster_rows * row_bytes + static_cast<std::uint64_t>(height) * sizeof(png_bytep));

  std::vector<png_bytep>& rows = st.rows;
  std::vector<unsigned char>& raster = st.raster;
  rows.resize(height);
  if (!is_palette) {
    for (png_uint_32 y = 0; y < height; ++y) rows[y] = loaded.image.row<png_byte>(static_cast<int>(y));
    png_read_image(s.png, rows.data());
  } else if (passes > 1) {
    raster.resize(row_bytes * height);
    for (png_uint_32 y = 0; y < height; ++y) rows[y] = raster.data() + row_bytes * y;
    png_read_image(s.png, rows.data());
    for (png_uint_32 y = 0; y < height; ++y)
      map_palette_row(in, rows[y], loaded.image.row<unsigned char>(static_cast<int>(y)), static_cast<int>(width),
                      channels, st.palette, static_cast<int>(y));
  } else {
    raster.resize(row_bytes);
    for (png_uint_32 y = 0; y < height; ++y) {
      png_read_row(s.png, raster.data(), nullptr);
      map_palette_row(in, raster.data(), loaded.image.row<unsigned char>(static_cast<int>(y)), static_cast<int>(width),
                      channels, st.palette, static_cast<int>(y));
    }
  }
  png_read_end(s.png, nullptr);  // the rest of the file, up to IEND, with its checksums
}

}  // namespace

LoadedImage decode_png(const DecodeInput& in) {
  check_before_decoding(in);
  PngReadState state;
  state.context.in = &in;
  state.loaded.format = kFormat;
  read_png(in, state);
  return std::move(state.loaded);
}

namespace {

struct WriteContext {
  ByteSink* out;
  std::exception_ptr error;  // what the sink threw, carried across libpng's C frames
  char message[256];
};

void on_write_error(png_structp png, png_const_charp message) {
  auto* context = static_cast<WriteContext*>(png_get_error_ptr(png));
  std::snprintf(context->message, sizeof context->message, "%s", message);
  png_longjmp(png, 1);
}

void write_bytes(png_structp png, png_bytep data, png_size_t count) {
  auto* context = static_cast<WriteContext*>(png_get_io_ptr(png));
  try {
    context->out->write(data, count);
  } catch (...) {
    context->error = std::current_exception();
    png_error(png, "write failed");
  }
}

void flush_nothing(png_structp) {}

struct WriteStruct {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~WriteStruct() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

// As PngReadState: what changes between setjmp and a longjmp lives in the caller's frame.
struct PngWriteState {
  WriteContext context{};
  WriteStruct s;
  std::vector<png_byte> row;  // an RGBA8 row narrowed to the channels written
};

// `channels` of `image` (all of them, or fewer of an RGBA8 image: 1 grey = red, 2 grey + alpha,
// 3 RGB, narrowed row by row into st.row).
void write_png(const ConstImageView& image, int channels, PngWriteState& st) {
  WriteStruct& s = st.s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st.context, on_write_error, on_warning);
  if (!s.png) throw std::bad_alloc();
  s.info = png_create_info_struct(s.png);
  if (!s.info) throw std::bad_alloc();
  if (setjmp(png_jmpbuf(s.png))) {
    if (st.context.error) std::rethrow_exception(st.context.error);
    throw ImageSaveError(std::string("libpng could not encode the image: ") + st.context.message);
  }
  png_set_write_fn(s.png, &st.context, write_bytes, flush_nothing);
  // PNG allows 2^31 - 1 pixels a side; libpng's default check stops at 1,000,000 (our loader reads 2^20).
  png_set_user_limits(s.png, 0x7fffffffu, 0x7fffffffu);
  const bool wide = sample_type(image.format) == SampleType::U16;
  const int colour_type = channels == 1   ? PNG_COLOR_TYPE_GRAY
                          : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                          : channels == 3 ? PNG_COLOR_TYPE_RGB
                                          : PNG_COLOR_TYPE_RGB_ALPHA;
  png_set_IHDR(s.png, s.info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height),
               wide ? 16 : 8, colour_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  // zlib level 2 with libpng's adaptive filters: on one core (docs/image-io.md, 1800×1200), zlib's
  // default level 6 took 4.2 times as long (460 against 110 ms) for files 11 % (photo) to 16 %
  // (blurred photo) smaller; PNG writing is what limits a batch, so speed wins.
  png_set_compression_level(s.png, 2);
  png_write_info(s.png, s.info);
  if (wide) png_set_swap(s.png);  // the samples are in host (little-endian) order; libpng swaps its copy of each row
  const bool narrow = channels < channel_count(image.format);
  for (int y = 0; y < image.height; ++y) {
    if (!narrow) {
      png_write_row(s.png, image.row<png_byte>(y));
      continue;
    }
    const Rgba8* src = image.row<Rgba8>(y);
    png_byte* dst = st.row.data();
    for (int x = 0; x < image.width; ++x) {
      *dst++ = src[x].r;
      if (channels == 2) *dst++ = src[x].a;
      if (channels == 3) {
        *dst++ = src[x].g;
        *dst++ = src[x].b;
      }
    }
    png_write_row(s.png, st.row.data());
  }
  png_write_end(s.png, nullptr);
}

}  // namespace

void encode_png(const ConstImageView& image, ByteSink& out) {
  PngWriteState state;
  state.context.out = &out;
  write_png(image, channel_count(image.format), state);
}

void encode_png(const ConstImageView& image, int channels, ByteSink& out) {
  PngWriteState state;
  state.context.out = &out;
  state.row.resize(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(channels));
  write_png(image, channels, state);
}

}  // namespace gausslab::codec
