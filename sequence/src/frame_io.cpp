// Grey frames through libpng directly: the image loader gives 8 bits per channel, and a 16-bit
// camera frame must keep its 16 bits. Other formats go through the loader.
#include "gausslab/sequence/frame_io.hpp"

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {

namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::string lower_extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Everything the decoder changes lives here, outside the function that calls setjmp, so that
// nothing it reads after a longjmp was modified in its own frame.
struct PngState {
  std::string error;
  std::vector<unsigned char> bytes;
  std::vector<png_bytep> rows;
  png_uint_32 width = 0, height = 0;
  int channels = 0, depth = 0;
};

void on_png_error(png_structp png, png_const_charp message) {
  static_cast<PngState*>(png_get_error_ptr(png))->error = message ? message : "libpng error";
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

bool decode_png(std::FILE* file, PngState& state) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, on_png_error, on_png_warning);
  if (!png) {
    state.error = "out of memory";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    if (state.error.empty()) state.error = "out of memory";
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return false;
  }
  png_init_io(png, file);
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  state.width = png_get_image_width(png, info);
  state.height = png_get_image_height(png, info);
  state.channels = png_get_channels(png, info);
  state.depth = png_get_bit_depth(png, info);
  if (static_cast<long long>(state.width) * state.height > kMaxPixels) png_error(png, "the image is too large");
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  state.bytes.resize(row_bytes * state.height);
  state.rows.resize(state.height);
  for (png_uint_32 y = 0; y < state.height; ++y) state.rows[y] = state.bytes.data() + y * row_bytes;
  png_read_image(png, state.rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

ImageF32 load_png_grey(const std::string& path) {
  // Read like every image file (a regular file only, never blocking, bounded), then decoded from memory.
  std::vector<unsigned char> bytes = read_image_bytes(path);
  std::FILE* file = ::fmemopen(bytes.data(), bytes.size(), "rb");
  if (!file) throw ImageLoadError("cannot read " + in_quotes(path) + ": " + std::strerror(errno));
  PngState state;
  const bool ok = decode_png(file, state);
  std::fclose(file);
  if (!ok)
    throw ImageLoadError("cannot read " + in_quotes(path) + " as PNG (" + state.error +
                         "): the file is damaged or not a PNG image");
  if (state.width == 0 || state.height == 0) throw ImageLoadError(in_quotes(path) + " has no pixels");
  if (state.depth != 8 && state.depth != 16)
    throw ImageLoadError(in_quotes(path) + ": unsupported PNG sample depth " + std::to_string(state.depth));
  ImageF32 grey(static_cast<int>(state.width), static_cast<int>(state.height));
  const bool wide = state.depth == 16;
  const float scale = wide ? 65535.0f : 255.0f;
  for (png_uint_32 y = 0; y < state.height; ++y) {
    const unsigned char* row = state.rows[y];
    for (png_uint_32 x = 0; x < state.width; ++x) {
      float v[3];
      for (int c = 0; c < std::min(state.channels, 3); ++c) {
        const std::size_t i = (static_cast<std::size_t>(x) * state.channels + c) * (wide ? 2 : 1);
        v[c] = wide ? static_cast<float>((row[i] << 8) | row[i + 1]) : static_cast<float>(row[i]);
      }
      grey.at(static_cast<int>(x), static_cast<int>(y)) =
          state.channels >= 3 ? (0.2126f * v[0] + 0.7152f * v[1] + 0.0722f * v[2]) / scale : v[0] / scale;
    }
  }
  return grey;
}

struct PngWriteState {
  std::string error;
  std::vector<unsigned char> encoded;
  std::vector<unsigned char> samples;
  std::vector<png_bytep> rows;
};

void append_png_bytes(png_structp png, png_bytep data, png_size_t size) {
  auto* state = static_cast<PngWriteState*>(png_get_io_ptr(png));
  state->encoded.insert(state->encoded.end(), data, data + size);
}
void flush_png(png_structp) {}
void on_png_write_error(png_structp png, png_const_charp message) {
  static_cast<PngWriteState*>(png_get_error_ptr(png))->error = message ? message : "libpng error";
  png_longjmp(png, 1);
}

bool encode_png16(int width, int height, PngWriteState& state) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_png_write_error, on_png_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    return false;
  }
  png_set_write_fn(png, &state, append_png_bytes, flush_png);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 16, PNG_COLOR_TYPE_GRAY,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 3);
  png_write_info(png, info);
  png_write_image(png, state.rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

ImageF32 load_grey_frame(const std::string& path) {
  if (lower_extension(path) == ".png") return load_png_grey(path);
  return to_grey_f32(load_image_rgba8(path).image);
}

void save_grey_png16(const std::string& path, const ImageF32& image, Overwrite overwrite) {
  PngWriteState state;
  const int w = image.width(), h = image.height();
  state.samples.resize(static_cast<std::size_t>(w) * h * 2);
  state.rows.resize(h);
  for (int y = 0; y < h; ++y) {
    unsigned char* row = state.samples.data() + static_cast<std::size_t>(y) * w * 2;
    state.rows[y] = row;
    for (int x = 0; x < w; ++x) {
      const float v = std::clamp(image.at(x, y), 0.0f, 1.0f);
      const auto level = static_cast<unsigned>(v * 65535.0f + 0.5f);
      row[2 * x] = static_cast<unsigned char>(level >> 8);
      row[2 * x + 1] = static_cast<unsigned char>(level & 0xFF);
    }
  }
  if (!encode_png16(w, h, state)) throw ImageSaveError("could not encode " + in_quotes(path) + ": " + state.error);
  write_staged(path, std::string(state.encoded.begin(), state.encoded.end()), overwrite);
}

// ---- staged output -------------------------------------------------------------------------

namespace {

// Runs `step` with AtomicFile's errors as the sequence's ImageSaveError (same message).
template <class Step>
auto as_save_error(Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const FileWriteError& error) {
    throw ImageSaveError(error.what());
  }
}

AtomicFile open_atomic(const std::string& path, Overwrite overwrite) {
  return as_save_error([&] { return AtomicFile(path, overwrite); });
}

}  // namespace

StagedFile::StagedFile(std::string path, Overwrite overwrite) : file_(open_atomic(path, overwrite)) {}

void StagedFile::write(const void* data, std::size_t size) {
  as_save_error([&] { file_.write(data, size); });
}

void StagedFile::commit() {
  as_save_error([&] { file_.commit(); });
}

void write_staged(const std::string& path, const std::string& content, Overwrite overwrite) {
  StagedFile file(path, overwrite);
  file.write(content.data(), content.size());
  file.commit();
}

}  // namespace gausslab
