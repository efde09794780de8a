// PNM (Netpbm), our own decoder and encoder.
//
// Reads P1/P4 (bitmap), P2/P5 (grey) and P3/P6 (RGB), plain (ASCII) and raw, maxval 1..65535
// (raw samples of two bytes, big-endian, above 255). Values become 8-bit as
// round(v * 255 / maxval), the value PIL gives at 8 bits (PIL keeps 16 bits for grey, as
// round(v * 65535 / maxval); reduced to 8 bits that is the same number). The first image of a
// multi-image file.
//
// Checked before allocation: the raster the header declares must fit in the rest of the file (raw:
// its exact size; plain: one character per bitmap pixel, two per grey or RGB sample). A sample
// above maxval is an error (it has no meaning), as is a raster that ends early.
//
// Writes raw P5 (grey, grey+alpha without its alpha) and P6 (RGB, RGBA without its alpha), maxval 255.
#include <string>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "PNM";

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class Tokens {
 public:
  Tokens(const DecodeInput& in, std::size_t at) : in_(in), pos_(at) {}
  std::size_t position() const { return pos_; }

  // Skips whitespace and '#' comments.
  void skip_space() {
    while (pos_ < in_.size) {
      if (in_.data[pos_] == '#') {
        while (pos_ < in_.size && in_.data[pos_] != '\n' && in_.data[pos_] != '\r') ++pos_;
      } else if (is_space(in_.data[pos_])) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  // A decimal number of at most `max`; `what` names it in messages.
  std::uint32_t number(const char* what, std::uint32_t max) {
    skip_space();
    if (pos_ >= in_.size) fail(in_, kFormat, std::string("the file is truncated (it ends before the ") + what + ")");
    if (in_.data[pos_] < '0' || in_.data[pos_] > '9')
      fail(in_, kFormat, std::string("expected a number for the ") + what + ", found '" +
                             static_cast<char>(in_.data[pos_]) + "'");
    std::uint64_t value = 0;
    while (pos_ < in_.size && in_.data[pos_] >= '0' && in_.data[pos_] <= '9') {
      value = value * 10 + static_cast<std::uint64_t>(in_.data[pos_++] - '0');
      if (value > max)
        fail(in_, kFormat, std::string("the ") + what + " is larger than " + std::to_string(max));
    }
    return static_cast<std::uint32_t>(value);
  }

  // One '0' or '1' of a plain bitmap (they need not be separated).
  int bit() {
    skip_space();
    if (pos_ >= in_.size) fail(in_, kFormat, "the file is truncated (the bitmap ends before its last pixel)");
    const unsigned char c = in_.data[pos_++];
    if (c != '0' && c != '1') fail(in_, kFormat, std::string("a plain bitmap holds '0' and '1' only, found '") +
                                                     static_cast<char>(c) + "'");
    return c - '0';
  }

 private:
  const DecodeInput& in_;
  std::size_t pos_;
};

}  // namespace

LoadedImage decode_pnm(const DecodeInput& in) {
  const int kind = in.size >= 2 ? in.data[1] - '0' : 0;
  if (in.size < 3 || in.data[0] != 'P' || kind < 1 || kind > 6) fail(in, kFormat, "unknown PNM signature");
  const bool bitmap = kind == 1 || kind == 4;
  const bool plain = kind <= 3;
  const int samples_per_pixel = kind == 3 || kind == 6 ? 3 : 1;

  Tokens tokens(in, 2);
  const std::uint32_t width = tokens.number("width", 1U << 31);
  const std::uint32_t height = tokens.number("height", 1U << 31);
  const std::uint32_t maxval = bitmap ? 1 : tokens.number("maximum value", 65535);
  if (maxval == 0) fail(in, kFormat, "the maximum value is 0 (it must be 1 to 65535)");
  check_size(in, kFormat, width, height);

  std::size_t raster = tokens.position();
  if (!plain) {  // exactly one whitespace character ends the header of a raw file
    if (raster >= in.size || !is_space(in.data[raster])) fail(in, kFormat, "the header does not end in whitespace");
    ++raster;
  }
  const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
  const std::uint64_t samples = pixels * static_cast<std::uint64_t>(samples_per_pixel);
  const std::uint64_t sample_bytes = maxval > 255 ? 2 : 1;
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) + 7) / 8;
  const std::uint64_t needed = kind == 4 ? row_bytes * height
                               : kind == 1 ? pixels
                               : plain     ? 2 * samples - 1
                                           : samples * sample_bytes;
  const std::uint64_t available = raster <= in.size ? in.size - raster : 0;
  if (needed > available) fail_too_short(in, kFormat, width, height, needed, available);

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.source_channels = samples_per_pixel;
  loaded.image = allocate_image(in, kFormat, width, height);
  Rgba8* out = loaded.image.data();
  if (maxval > 255)
    loaded.note = "16-bit samples (maxval " + std::to_string(maxval) + ") reduced to 8 bits (rounded: round(v * 255 / " +
                  std::to_string(maxval) + "))";
  else if (maxval != 255 && !bitmap)
    loaded.note = "samples scaled from maxval " + std::to_string(maxval) + " to 8 bits (rounded)";

  if (bitmap) {  // 1 is black
    for (std::uint64_t y = 0; y < height; ++y)
      for (std::uint64_t x = 0; x < width; ++x) {
        const int bit = kind == 1 ? tokens.bit() : (in.data[raster + y * row_bytes + x / 8] >> (7 - x % 8)) & 1;
        const std::uint8_t v = bit ? 0 : 255;
        out[y * width + x] = {v, v, v, 255};
      }
    return loaded;
  }

  const unsigned char* raw = in.data + raster;
  auto sample = [&](std::uint64_t i) -> std::uint8_t {
    std::uint32_t v;
    if (plain)
      v = tokens.number("sample", 65535);
    else
      v = sample_bytes == 1 ? raw[i] : static_cast<std::uint32_t>((raw[2 * i] << 8) | raw[2 * i + 1]);
    if (v > maxval)
      fail(in, kFormat, "sample " + std::to_string(i) + " is " + std::to_string(v) + ", above the maximum value " +
                            std::to_string(maxval));
    return maxval == 255 ? static_cast<std::uint8_t>(v) : scale_to_8bit(v, maxval);
  };
  for (std::uint64_t p = 0; p < pixels; ++p) {
    if (samples_per_pixel == 1) {
      const std::uint8_t v = sample(p);
      out[p] = {v, v, v, 255};
    } else {
      const std::uint8_t r = sample(3 * p), g = sample(3 * p + 1), b = sample(3 * p + 2);
      out[p] = {r, g, b, 255};
    }
  }
  return loaded;
}

void encode_pnm(const ImageRgba8& image, int channels, ByteSink& out) {
  const bool grey = channels <= 2;
  const std::string header = std::string(grey ? "P5" : "P6") + "\n" + std::to_string(image.width()) + " " +
                             std::to_string(image.height()) + "\n255\n";
  out.write(header.data(), header.size());
  std::vector<unsigned char> row(static_cast<std::size_t>(image.width()) * (grey ? 1 : 3));
  for (int y = 0; y < image.height(); ++y) {
    unsigned char* dst = row.data();
    for (int x = 0; x < image.width(); ++x) {
      const Rgba8& p = image.at(x, y);
      *dst++ = p.r;
      if (!grey) {
        *dst++ = p.g;
        *dst++ = p.b;
      }
    }
    out.write(row.data(), row.size());
  }
}

}  // namespace gausslab::codec
