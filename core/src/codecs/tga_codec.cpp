// TGA (Truevision), our own decoder and encoder.
//
// Reads image types 1/9 (colour-mapped, 8-bit indices into a 15/16/24/32-bit map), 2/10 (true
// colour, 15/16/24/32-bit) and 3/11 (grey, 8-bit, or 16-bit grey+alpha), uncompressed and RLE,
// any origin (bottom-up by default, top-down and right-to-left by the descriptor bits).
// TGA has no signature: a file is taken for a TGA when its 18-byte header is consistent
// (looks_like_tga) or its name ends in .tga.
//
// Checked before allocation: the pixels the header declares must fit in the bytes after the
// header: width × height × bytes per pixel uncompressed, and for RLE at least one packet (1 +
// bytes per pixel) per 128 pixels, the most one packet can hold. So a 70-byte file declaring
// 29801×11877 is refused at once. A colour-map index outside the map is an error; an RLE packet
// running past the last pixel is clipped (some writers pad the last one).
//
// Writes uncompressed type 2 (24-bit RGB, 32-bit RGBA) and type 3 (8-bit grey, 16-bit grey+alpha),
// top-down (descriptor bit 5), so rows go out in memory order.
#include <algorithm>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "TGA";

struct Header {
  int id_length, colour_map_type, image_type;
  int map_first, map_length, map_entry_bits;
  int width, height, depth, descriptor;
};

Header parse(const unsigned char* b) {
  auto u16 = [&](int at) { return b[at] | (b[at + 1] << 8); };
  return {b[0], b[1], b[2], u16(3), u16(5), b[7], u16(12), u16(14), b[16], b[17]};
}

bool valid_depth(const Header& h) {
  switch (h.image_type & 7) {
    case 1: return h.depth == 8;
    case 2: return h.depth == 15 || h.depth == 16 || h.depth == 24 || h.depth == 32;
    case 3: return h.depth == 8 || h.depth == 16;
    default: return false;
  }
}

bool valid_map(const Header& h) {
  if (h.colour_map_type == 0) return (h.image_type & 7) != 1;
  const bool entry_ok = h.map_entry_bits == 15 || h.map_entry_bits == 16 || h.map_entry_bits == 24 ||
                        h.map_entry_bits == 32;
  return h.colour_map_type == 1 && entry_ok && h.map_length > 0;
}

// The problem with a header, or nullptr when it is a consistent TGA header.
const char* header_problem(const Header& h) {
  const int type = h.image_type;
  if (type != 1 && type != 2 && type != 3 && type != 9 && type != 10 && type != 11)
    return "unknown image type (not 1, 2, 3, 9, 10 or 11)";
  if (!valid_map(h)) return "the colour map description is inconsistent with the image type";
  if (!valid_depth(h)) return "the pixel depth is not valid for the image type";
  if ((h.descriptor & 0xC0) != 0) return "interleaved TGA files are not supported";
  return nullptr;
}

// One pixel (or colour-map entry) of `bits` bits at `p`.
Rgba8 read_colour(const unsigned char* p, int bits, bool grey, bool alpha_bit) {
  if (grey) return bits == 8 ? Rgba8{p[0], p[0], p[0], 255} : Rgba8{p[0], p[0], p[0], p[1]};
  switch (bits) {
    case 15:
    case 16: {
      const unsigned v = p[0] | (p[1] << 8);
      auto five = [](unsigned x) { return scale_to_8bit(x & 31, 31); };
      return {five(v >> 10), five(v >> 5), five(v), alpha_bit ? static_cast<std::uint8_t>((v >> 15) ? 255 : 0)
                                                               : std::uint8_t{255}};
    }
    case 24: return {p[2], p[1], p[0], 255};
    default: return {p[2], p[1], p[0], p[3]};
  }
}

}  // namespace

bool looks_like_tga(const unsigned char* data, std::size_t size) {
  if (size < 18) return false;
  const Header h = parse(data);
  return header_problem(h) == nullptr && h.width > 0 && h.height > 0;
}

LoadedImage decode_tga(const DecodeInput& in) {
  if (in.size < 18) fail(in, kFormat, "the file is shorter than a TGA header (18 bytes)");
  const Header h = parse(in.data);
  if (const char* problem = header_problem(h)) fail(in, kFormat, problem);
  const bool rle = h.image_type >= 9;
  const bool mapped = (h.image_type & 7) == 1;
  const bool grey = (h.image_type & 7) == 3;
  const int pixel_bytes = (h.depth + 7) / 8;
  const int entry_bytes = (h.map_entry_bits + 7) / 8;
  const bool alpha_bit = h.depth == 16 && !grey && (h.descriptor & 15) >= 1;

  ByteReader r(in, kFormat, 18);
  r.skip(static_cast<std::size_t>(h.id_length), "image ID");
  std::vector<Rgba8> map;
  if (h.colour_map_type == 1) {
    const unsigned char* entries = r.take(static_cast<std::size_t>(h.map_length) * entry_bytes, "colour map");
    if (mapped) {
      map.resize(static_cast<std::size_t>(h.map_length));
      for (int i = 0; i < h.map_length; ++i)
        map[static_cast<std::size_t>(i)] =
            read_colour(entries + static_cast<std::size_t>(i) * entry_bytes, h.map_entry_bits, false, false);
    }
  }

  const std::uint64_t width = static_cast<std::uint64_t>(h.width), height = static_cast<std::uint64_t>(h.height);
  check_size(in, kFormat, width, height, PixelFormat::Rgba8);
  const std::uint64_t pixels = width * height;
  const std::uint64_t needed = rle ? (pixels + 127) / 128 * (1 + static_cast<std::uint64_t>(pixel_bytes))
                                   : pixels * static_cast<std::uint64_t>(pixel_bytes);
  if (needed > r.remaining()) fail_too_short(in, kFormat, width, height, needed, r.remaining());

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.image = allocate_image(in, kFormat, width, height, PixelFormat::Rgba8);
  const bool top_down = (h.descriptor & 0x20) != 0;
  const bool right_to_left = (h.descriptor & 0x10) != 0;
  auto decode = [&](const unsigned char* p) -> Rgba8 {
    if (!mapped) return read_colour(p, h.depth, grey, alpha_bit);
    const int index = p[0] - h.map_first;
    if (index < 0 || index >= static_cast<int>(map.size()))
      fail(in, kFormat,
           "a pixel uses colour-map entry " + std::to_string(p[0]) + ", outside the map's entries " +
               std::to_string(h.map_first) + ".." + std::to_string(h.map_first + static_cast<int>(map.size()) - 1));
    return map[static_cast<std::size_t>(index)];
  };
  auto place = [&](std::uint64_t i, Rgba8 colour) {
    const std::uint64_t row = i / width, column = i % width;
    const int x = static_cast<int>(right_to_left ? width - 1 - column : column);
    const int y = static_cast<int>(top_down ? row : height - 1 - row);
    loaded.image.row<Rgba8>(y)[x] = colour;
  };

  if (!rle) {
    const unsigned char* p = r.take(pixels * static_cast<std::uint64_t>(pixel_bytes), "pixel data");
    for (std::uint64_t i = 0; i < pixels; ++i) place(i, decode(p + i * static_cast<std::uint64_t>(pixel_bytes)));
  } else {
    std::uint64_t i = 0;
    while (i < pixels) {
      const std::uint8_t packet = r.u8("RLE pixel data");
      const std::uint64_t count = std::min<std::uint64_t>((packet & 0x7F) + 1U, pixels - i);
      if (packet & 0x80) {
        const Rgba8 colour = decode(r.take(static_cast<std::size_t>(pixel_bytes), "RLE pixel data"));
        for (std::uint64_t k = 0; k < count; ++k) place(i++, colour);
        continue;
      }
      const unsigned char* p = r.take(static_cast<std::size_t>(((packet & 0x7F) + 1) * pixel_bytes), "RLE pixel data");
      for (std::uint64_t k = 0; k < count; ++k) place(i++, decode(p + k * static_cast<std::uint64_t>(pixel_bytes)));
    }
  }

  const int map_bits = h.map_entry_bits;
  if (mapped) loaded.note = "colour-map entries expanded to 8-bit RGB";
  if (!grey && (h.depth == 16 || (mapped && map_bits == 16)))
    loaded.note = std::string(mapped ? "colour-map entries expanded to 8-bit RGB; " : "") +
                  "5-bit colour channels widened to 8 bits (round(v × 255 / 31))";
  if (grey)
    finish_rgba8(in, loaded, h.depth == 16 ? 2 : 1);
  else if (mapped)
    finish_rgba8(in, loaded, map_bits == 32 ? 4 : 3);
  else
    finish_rgba8(in, loaded, h.depth == 32 || alpha_bit ? 4 : 3);
  return loaded;
}

void encode_tga(const ConstImageView& image, int channels, ByteSink& out) {
  if (image.width > 65535 || image.height > 65535)
    throw ImageSaveError("the image is too large for a TGA file (at most 65535×65535): use PNG");
  const bool grey = channels <= 2;
  const int depth = channels == 1 ? 8 : channels == 2 ? 16 : channels == 3 ? 24 : 32;
  const int alpha_bits = channels == 2 || channels == 4 ? 8 : 0;
  unsigned char header[18] = {};
  header[2] = grey ? 3 : 2;
  header[12] = static_cast<unsigned char>(image.width);
  header[13] = static_cast<unsigned char>(image.width >> 8);
  header[14] = static_cast<unsigned char>(image.height);
  header[15] = static_cast<unsigned char>(image.height >> 8);
  header[16] = static_cast<unsigned char>(depth);
  header[17] = static_cast<unsigned char>(0x20 | alpha_bits);  // top-down
  out.write(header, sizeof header);

  const int pixel_bytes = depth / 8;
  std::vector<unsigned char> row(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(pixel_bytes));
  for (int y = 0; y < image.height; ++y) {
    unsigned char* dst = row.data();
    for (int x = 0; x < image.width; ++x) {
      const Rgba8& p = image.row<Rgba8>(y)[x];
      if (grey) {
        *dst++ = p.r;
        if (channels == 2) *dst++ = p.a;
        continue;
      }
      *dst++ = p.b;
      *dst++ = p.g;
      *dst++ = p.r;
      if (channels == 4) *dst++ = p.a;
    }
    out.write(row.data(), row.size());
  }
  static const char footer[] = "\0\0\0\0\0\0\0\0TRUEVISION-XFILE.";  // TGA 2.0: no extension, no developer area
  out.write(footer, sizeof footer);  // includes the final NUL
}

}  // namespace gausslab::codec
