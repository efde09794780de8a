// JPEG through libjpeg-turbo's libjpeg API (Debian's libjpeg62-turbo, the library PIL uses, so
// the pixels are the ones PIL gives: islow DCT, fancy upsampling, libjpeg's colour conversion).
//
// Bounded before decoding: the size against the limits; a Huffman-coded file must hold at least
// one bit per 8×8 block (every block codes its DC value), so a tiny file declaring a huge image is
// refused before allocation; a progressive file's coefficients (2 bytes per sample) count as
// working memory and libjpeg's own allocator is capped at what the limit leaves; more than 1000
// scans is refused (a known way to make a small progressive file take minutes).
// libjpeg repairs damaged data with a warning and goes on (grey blocks, a fake end of file): here
// those warnings are errors, so a truncated or corrupt file never becomes a picture. Harmless
// warnings (extra bytes between markers, an unknown JFIF version or Adobe transform, a bad ICC
// marker) are ignored.
//
// Writes baseline JPEG at the given quality with libjpeg's defaults (4:2:0 chroma, islow DCT);
// grey images as one-component JPEG. JPEG has no alpha.
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <vector>

#include "codecs.hpp"

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
#include <jerror.h>

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "JPEG";
constexpr int kMaxScans = 1000;

struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 128];
};

[[noreturn]] void jump_with(j_common_ptr info, const char* prefix) {
  auto* errors = reinterpret_cast<ErrorManager*>(info->err);
  char text[JMSG_LENGTH_MAX];
  info->err->format_message(info, text);
  std::snprintf(errors->message, sizeof errors->message, "%s%s", prefix, text);
  std::longjmp(errors->jump, 1);
}

void on_error_exit(j_common_ptr info) {
  if (info->err->msg_code == JERR_NO_BACKING_STORE) {  // the cap of max_memory_to_use was reached
    auto* errors = reinterpret_cast<ErrorManager*>(info->err);
    std::snprintf(errors->message, sizeof errors->message,
                  "decoding it needs more working memory than the limit on decoded bytes allows");
    std::longjmp(errors->jump, 1);
  }
  jump_with(info, "");
}

void on_message(j_common_ptr info, int level) {
  if (level >= 0) return;  // trace messages
  switch (info->err->msg_code) {
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
      return;  // the pixels are not affected
    case JWRN_JPEG_EOF:
      jump_with(info, "the file is truncated (");
    default:
      jump_with(info, "the data is corrupt (");
  }
}

void on_output_message(j_common_ptr) {}

void on_progress(j_common_ptr info) {
  auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
  if (decompress->input_scan_number > kMaxScans) {
    auto* errors = reinterpret_cast<ErrorManager*>(info->err);
    std::snprintf(errors->message, sizeof errors->message,
                  "it has more than %d scans (a valid progressive JPEG has about 10)", kMaxScans);
    std::longjmp(errors->jump, 1);
  }
}

void close_message(std::string& message) {
  if (message.find('(') != std::string::npos && message.back() != ')') message += ")";
}

struct Decompressor {
  jpeg_decompress_struct info{};
  bool created = false;
  ~Decompressor() {
    if (created) jpeg_destroy_decompress(&info);
  }
};

// Everything the decoder changes between setjmp and a possible longjmp lives here, in the caller's
// frame, so that nothing read after the longjmp (the message, the destructors) is an automatic
// variable of the frame that called setjmp.
struct JpegReadState {
  ErrorManager errors{};
  jpeg_progress_mgr progress{};
  Decompressor d;
  LoadedImage loaded;
  std::vector<unsigned char> cmyk_row;
};

void read_jpeg(const DecodeInput& in, JpegReadState& st) {
  Decompressor& d = st.d;
  LoadedImage& loaded = st.loaded;
  d.info.err = jpeg_std_error(&st.errors.base);
  st.errors.base.error_exit = on_error_exit;
  st.errors.base.emit_message = on_message;
  st.errors.base.output_message = on_output_message;
  if (setjmp(st.errors.jump)) {
    std::string message = st.errors.message;
    close_message(message);
    fail(in, kFormat, message);
  }
  jpeg_create_decompress(&d.info);
  d.created = true;
  st.progress.progress_monitor = on_progress;
  d.info.progress = &st.progress;
  jpeg_mem_src(&d.info, in.data, static_cast<unsigned long>(in.size));
  jpeg_read_header(&d.info, TRUE);

  const std::uint64_t width = d.info.image_width, height = d.info.image_height;
  std::uint64_t blocks = 0;
  for (int c = 0; c < d.info.num_components; ++c)
    blocks += static_cast<std::uint64_t>(d.info.comp_info[c].width_in_blocks) * d.info.comp_info[c].height_in_blocks;
  const std::uint64_t coefficient_bytes = d.info.progressive_mode ? blocks * 64 * sizeof(JCOEF) : 0;
  const J_COLOR_SPACE space = d.info.jpeg_color_space;
  const bool cmyk = space == JCS_CMYK || space == JCS_YCCK;
  const PixelFormat result = space == JCS_GRAYSCALE ? PixelFormat::Grey8 : PixelFormat::Rgb8;
  check_size(in, kFormat, width, height, result, coefficient_bytes);
  if (!d.info.arith_code && in.size * 8 < blocks)
    fail_too_short(in, kFormat, width, height, (blocks + 7) / 8, in.size);
  d.info.mem->max_memory_to_use = static_cast<long>(in.limits.max_decoded_bytes -
                                                    width * height * bytes_per_pixel(result));  // check_size: not negative

  if (space == JCS_GRAYSCALE || space == JCS_YCbCr || space == JCS_RGB) {
    d.info.out_color_space = space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
  } else if (cmyk) {
    d.info.out_color_space = JCS_CMYK;
    loaded.note = "CMYK converted to RGB without a colour profile";
  } else {
    fail(in, kFormat, "its colour space (" + std::to_string(d.info.num_components) +
                          " components, not grey, YCbCr, RGB or CMYK) is not supported");
  }

  loaded.image = allocate_image(in, kFormat, width, height, result, coefficient_bytes);
  loaded.source_type = "uint8";
  jpeg_start_decompress(&d.info);
  std::vector<unsigned char>& cmyk_row = st.cmyk_row;
  if (cmyk) cmyk_row.resize(width * 4);
  while (d.info.output_scanline < d.info.output_height) {
    const int y = static_cast<int>(d.info.output_scanline);
    unsigned char* dst = loaded.image.row<unsigned char>(y);
    JSAMPROW row = cmyk ? cmyk_row.data() : dst;
    if (jpeg_read_scanlines(&d.info, &row, 1) != 1) fail(in, kFormat, "the decoder returned no data");
    if (!cmyk) continue;
    // Adobe writes CMYK inverted (as most JPEG CMYK files are): the stored value is 255 - ink.
    const bool inverted = d.info.saw_Adobe_marker;
    for (std::uint64_t x = 0; x < width; ++x) {
      const unsigned char* p = cmyk_row.data() + 4 * x;
      const unsigned c = inverted ? p[0] : 255 - p[0], m = inverted ? p[1] : 255 - p[1];
      const unsigned yy = inverted ? p[2] : 255 - p[2], k = inverted ? p[3] : 255 - p[3];
      dst[3 * x] = static_cast<std::uint8_t>((c * k + 127) / 255);
      dst[3 * x + 1] = static_cast<std::uint8_t>((m * k + 127) / 255);
      dst[3 * x + 2] = static_cast<std::uint8_t>((yy * k + 127) / 255);
    }
  }
  jpeg_finish_decompress(&d.info);  // reads up to the end-of-image marker (a missing one is truncation)
}

}  // namespace

LoadedImage decode_jpeg(const DecodeInput& in) {
  JpegReadState state;
  state.loaded.format = kFormat;
  read_jpeg(in, state);
  return std::move(state.loaded);
}


namespace {

constexpr std::size_t kOutputChunk = 1 << 16;

struct Destination {
  jpeg_destination_mgr base;
  ByteSink* out;
  std::vector<JOCTET> buffer;
  std::exception_ptr error;  // what the sink threw, carried across libjpeg's C frames
  ErrorManager* errors;
};

void send(j_compress_ptr info, std::size_t count) {
  auto* dest = reinterpret_cast<Destination*>(info->dest);
  try {
    dest->out->write(dest->buffer.data(), count);
  } catch (...) {
    dest->error = std::current_exception();
    std::longjmp(dest->errors->jump, 1);
  }
}

void init_destination(j_compress_ptr info) {
  auto* dest = reinterpret_cast<Destination*>(info->dest);
  dest->base.next_output_byte = dest->buffer.data();
  dest->base.free_in_buffer = dest->buffer.size();
}

boolean empty_output_buffer(j_compress_ptr info) {
  auto* dest = reinterpret_cast<Destination*>(info->dest);
  send(info, dest->buffer.size());
  init_destination(info);
  return TRUE;
}

void term_destination(j_compress_ptr info) {
  auto* dest = reinterpret_cast<Destination*>(info->dest);
  send(info, dest->buffer.size() - dest->base.free_in_buffer);
}

struct Compressor {
  jpeg_compress_struct info{};
  bool created = false;
  ~Compressor() {
    if (created) jpeg_destroy_compress(&info);
  }
};

// As JpegReadState: what changes between setjmp and a longjmp lives in the caller's frame.
struct JpegWriteState {
  ErrorManager errors{};
  Destination dest{};
  Compressor c;
  std::vector<unsigned char> grey_row;
};

void write_jpeg(const ConstImageView& image, int channels, int quality, JpegWriteState& st) {
  Compressor& c = st.c;
  c.info.err = jpeg_std_error(&st.errors.base);
  st.errors.base.error_exit = on_error_exit;
  st.errors.base.output_message = on_output_message;
  if (setjmp(st.errors.jump)) {
    if (st.dest.error) std::rethrow_exception(st.dest.error);
    throw ImageSaveError(std::string("libjpeg could not encode the image: ") + st.errors.message);
  }
  jpeg_create_compress(&c.info);
  c.created = true;
  c.info.dest = &st.dest.base;
  const bool grey = channels <= 2;
  c.info.image_width = static_cast<JDIMENSION>(image.width);
  c.info.image_height = static_cast<JDIMENSION>(image.height);
  c.info.input_components = grey ? 1 : 4;
  c.info.in_color_space = grey ? JCS_GRAYSCALE : JCS_EXT_RGBX;  // RGBA rows go in as they are
  jpeg_set_defaults(&c.info);
  jpeg_set_quality(&c.info, quality, TRUE);
  jpeg_start_compress(&c.info, TRUE);
  while (c.info.next_scanline < c.info.image_height) {
    const Rgba8* src = image.row<Rgba8>(static_cast<int>(c.info.next_scanline));
    JSAMPROW row;
    if (grey) {
      for (int x = 0; x < image.width; ++x) st.grey_row[static_cast<std::size_t>(x)] = src[x].r;
      row = st.grey_row.data();
    } else {
      row = const_cast<JSAMPROW>(reinterpret_cast<const JSAMPLE*>(src));  // libjpeg does not write to it
    }
    jpeg_write_scanlines(&c.info, &row, 1);
  }
  jpeg_finish_compress(&c.info);
}

}  // namespace

void encode_jpeg(const ConstImageView& image, int channels, int quality, ByteSink& out) {
  if (image.width > JPEG_MAX_DIMENSION || image.height > JPEG_MAX_DIMENSION)
    throw ImageSaveError("the image is too large for JPEG (at most " + std::to_string(JPEG_MAX_DIMENSION) +
                         " pixels a side): use PNG");
  JpegWriteState state;
  state.grey_row.resize(static_cast<std::size_t>(image.width));
  state.dest.buffer.resize(kOutputChunk);
  state.dest.out = &out;
  state.dest.errors = &state.errors;
  state.dest.base.init_destination = init_destination;
  state.dest.base.empty_output_buffer = empty_output_buffer;
  state.dest.base.term_destination = term_destination;
  write_jpeg(image, channels, quality, state);
}

}  // namespace gausslab::codec
