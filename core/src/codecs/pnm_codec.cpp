// PNM (Netpbm), our own decoder and encoder.
//
// Reads P1/P4 (bitmap), P2/P5 (grey) and P3/P6 (RGB), plain (ASCII) and raw, maxval 1..65535
// (raw samples of two bytes, big-endian, above 255); the first image of a multi-image file.
//   maxval 255 and 65535: u8 and u16, the samples as they are;
//   maxval 1..254: u8, scaled to 0..255 as round(v × 255 / maxval) (exactly invertible; the value
//                  PIL gives), with a note;
//   maxval 256..65534: u16 with the samples as they are (a 12-bit camera frame stays 0..4095),
//                  LoadedImage::maxval = maxval, and a note saying so; SaveOptions::pnm_maxval
//                  writes the same maxval back;
//   bitmaps: u8 grey, 0 (black) or 255.
//
// Checked before allocation: the raster the header declares must fit in the rest of the file (raw:
// its exact size; plain: one character per bitmap pixel, two per grey or RGB sample). A sample
// above maxval is an error (it has no meaning), as is a raster that ends early. Only the header
// and the raster of the first image are read from a file (pnm_bytes_needed).
//
// Writes raw P5 (grey, grey+alpha without its alpha) and P6 (RGB, RGBA without its alpha), maxval
// 255 (u8) or 65535 (u16), or the maxval asked for.
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

struct PnmHeader {
  int kind = 0;  // 1..6
  std::uint32_t width = 0, height = 0, maxval = 1;
  std::size_t raster = 0;  // offset of the first sample
};

PnmHeader read_header(const DecodeInput& in) {
  PnmHeader h;
  h.kind = in.size >= 2 ? in.data[1] - '0' : 0;
  if (in.size < 3 || in.data[0] != 'P' || h.kind < 1 || h.kind > 6) fail(in, kFormat, "unknown PNM signature");
  const bool bitmap = h.kind == 1 || h.kind == 4;
  Tokens tokens(in, 2);
  h.width = tokens.number("width", 1U << 31);
  h.height = tokens.number("height", 1U << 31);
  h.maxval = bitmap ? 1 : tokens.number("maximum value", 65535);
  if (h.maxval == 0) fail(in, kFormat, "the maximum value is 0 (it must be 1 to 65535)");
  h.raster = tokens.position();
  if (h.kind >= 4) {  // exactly one whitespace character ends the header of a raw file
    if (h.raster >= in.size || !is_space(in.data[h.raster])) fail(in, kFormat, "the header does not end in whitespace");
    ++h.raster;
  }
  return h;
}

std::uint64_t raw_raster_bytes(const PnmHeader& h) {
  const std::uint64_t samples = static_cast<std::uint64_t>(h.width) * h.height * (h.kind == 6 ? 3 : 1);
  return h.kind == 4 ? (static_cast<std::uint64_t>(h.width) + 7) / 8 * h.height : samples * (h.maxval > 255 ? 2 : 1);
}

}  // namespace

std::uint64_t pnm_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size) {
  const std::string name;
  const ImageLimits limits;
  const DecodeInput head{data, size, name, limits};
  try {
    const PnmHeader h = read_header(head);
    if (h.kind < 4) return file_size;  // plain: the numbers' lengths vary
    return std::min<std::uint64_t>(file_size, h.raster + raw_raster_bytes(h));
  } catch (const ImageLoadError&) {
    return file_size;  // the decoder will say what is wrong, with the file's name
  }
}

LoadedImage decode_pnm(const DecodeInput& in) {
  const PnmHeader h = read_header(in);
  const int kind = h.kind;
  const std::uint32_t width = h.width, height = h.height, maxval = h.maxval;
  const bool bitmap = kind == 1 || kind == 4;
  const bool plain = kind <= 3;
  const int samples_per_pixel = kind == 3 || kind == 6 ? 3 : 1;
  const bool wide = maxval > 255;
  const PixelFormat result = make_pixel_format(wide ? SampleType::U16 : SampleType::U8, samples_per_pixel);
  check_size(in, kFormat, width, height, result);

  const std::size_t raster = h.raster;
  const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
  const std::uint64_t samples = pixels * static_cast<std::uint64_t>(samples_per_pixel);
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) + 7) / 8;
  const std::uint64_t needed = kind == 1 ? pixels : plain ? 2 * samples - 1 : raw_raster_bytes(h);
  const std::uint64_t available = raster <= in.size ? in.size - raster : 0;
  if (needed > available) fail_too_short(in, kFormat, width, height, needed, available);

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.image = allocate_image(in, kFormat, width, height, result);
  loaded.source_type = bitmap ? "1-bit" : wide ? "uint16" : "uint8";
  if (bitmap) {
    loaded.note = "1-bit bitmap as 8-bit grey (0 black, 255 white)";
  } else if (wide && maxval != 65535) {
    loaded.maxval = maxval;
    loaded.note = "maxval " + std::to_string(maxval) + ": the samples are kept as they are (0.." +
                  std::to_string(maxval) + " in 16 bits, not scaled to 0..65535)";
  } else if (!wide && maxval != 255) {
    loaded.note = "samples scaled from maxval " + std::to_string(maxval) + " to 8 bits (rounded: round(v * 255 / " +
                  std::to_string(maxval) + "))";
  }
  Tokens tokens(in, raster);

  if (bitmap) {  // 1 is black
    std::uint8_t* out = loaded.image.row<std::uint8_t>(0);
    for (std::uint64_t y = 0; y < height; ++y)
      for (std::uint64_t x = 0; x < width; ++x) {
        const int bit = kind == 1 ? tokens.bit() : (in.data[raster + y * row_bytes + x / 8] >> (7 - x % 8)) & 1;
        out[y * width + x] = bit ? 0 : 255;
      }
    return loaded;
  }

  const unsigned char* raw = in.data + raster;
  auto sample = [&](std::uint64_t i) -> std::uint32_t {
    std::uint32_t v;
    if (plain)
      v = tokens.number("sample", 65535);
    else
      v = !wide ? raw[i] : static_cast<std::uint32_t>((raw[2 * i] << 8) | raw[2 * i + 1]);
    if (v > maxval)
      fail(in, kFormat, "sample " + std::to_string(i) + " is " + std::to_string(v) + ", above the maximum value " +
                            std::to_string(maxval));
    return v;
  };
  if (wide) {
    std::uint16_t* out = loaded.image.row<std::uint16_t>(0);
    for (std::uint64_t i = 0; i < samples; ++i) out[i] = static_cast<std::uint16_t>(sample(i));
  } else {
    std::uint8_t* out = loaded.image.row<std::uint8_t>(0);
    for (std::uint64_t i = 0; i < samples; ++i) {
      const std::uint32_t v = sample(i);
      out[i] = maxval == 255 ? static_cast<std::uint8_t>(v) : scale_to_8bit(v, maxval);
    }
  }
  return loaded;
}

void encode_pnm(const ConstImageView& image, std::uint32_t maxval, ByteSink& out) {
  const int channels = channel_count(image.format);
  const bool wide = sample_type(image.format) == SampleType::U16;
  if (maxval == 0) maxval = wide ? 65535 : 255;
  const bool grey = channels <= 2;
  const int kept = grey ? 1 : 3;
  const std::string header = std::string(grey ? "P5" : "P6") + "\n" + std::to_string(image.width) + " " +
                             std::to_string(image.height) + "\n" + std::to_string(maxval) + "\n";
  const bool two_bytes = maxval > 255;
  std::vector<unsigned char> row(static_cast<std::size_t>(image.width) * kept * (two_bytes ? 2 : 1));
  // Checked whole before the header is written: a sample above maxval would make a file no reader accepts.
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < kept; ++c) {
        const std::size_t i = static_cast<std::size_t>(x) * channels + c;
        const std::uint32_t v = wide ? image.row<std::uint16_t>(y)[i] : image.row<std::uint8_t>(y)[i];
        if (v > maxval)
          throw ImageSaveError("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") holds " + std::to_string(v) +
                               ", above the PNM maxval " + std::to_string(maxval) + " asked for");
      }
  out.write(header.data(), header.size());
  for (int y = 0; y < image.height; ++y) {
    unsigned char* dst = row.data();
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < kept; ++c) {
        const std::size_t i = static_cast<std::size_t>(x) * channels + c;
        const std::uint32_t v = wide ? image.row<std::uint16_t>(y)[i] : image.row<std::uint8_t>(y)[i];
        if (two_bytes) *dst++ = static_cast<unsigned char>(v >> 8);
        *dst++ = static_cast<unsigned char>(v);
      }
    out.write(row.data(), row.size());
  }
}

}  // namespace gausslab::codec
