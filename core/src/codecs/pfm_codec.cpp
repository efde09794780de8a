// PFM (Portable Float Map), our own decoder and encoder: "PF" (RGB) or "Pf" (grey), the width and
// the height, then a scale whose sign gives the byte order (negative: little-endian) and whose
// magnitude is a brightness scale most tools ignore (so do we: the samples are kept as stored,
// and a note says when it is not 1), then width × height × channels float32 samples, the rows from
// the BOTTOM of the picture to its top. Read and written as f32; written little-endian, scale
// -1.0, with no alpha (an alpha channel is dropped: format_keeps_alpha).
//
// Checked before allocation: the raster must fit in the rest of the file. Only the header and the
// raster are read from a file (pfm_bytes_needed).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "PFM";

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct PfmHeader {
  int channels = 3;
  std::uint64_t width = 0, height = 0;
  double scale = -1.0;
  std::size_t raster = 0;  // offset of the first sample
};

PfmHeader read_header(const DecodeInput& in) {
  if (in.size < 3 || in.data[0] != 'P' || (in.data[1] != 'F' && in.data[1] != 'f'))
    fail(in, kFormat, "unknown PFM signature");
  PfmHeader h;
  h.channels = in.data[1] == 'F' ? 3 : 1;
  std::size_t pos = 2;
  // The next whitespace-separated word (at most 64 characters).
  auto word = [&](const char* what) {
    while (pos < in.size && is_space(in.data[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < in.size && !is_space(in.data[pos]) && pos - start <= 64) ++pos;
    if (pos == start || pos >= in.size)
      fail(in, kFormat, std::string("the file is truncated (it ends before the ") + what + ")");
    return std::string(reinterpret_cast<const char*>(in.data) + start, pos - start);
  };
  auto size = [&](const char* what) {
    const std::string text = word(what);
    if (text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
      fail(in, kFormat, std::string("the ") + what + " is not a number of at most 10 digits: '" + text + "'");
    return static_cast<std::uint64_t>(std::stoull(text));
  };
  h.width = size("width");
  h.height = size("height");
  const std::string scale = word("scale");
  char* end = nullptr;
  h.scale = std::strtod(scale.c_str(), &end);
  if (end != scale.c_str() + scale.size() || !std::isfinite(h.scale) || h.scale == 0.0)
    fail(in, kFormat, "the scale '" + scale + "' is not a non-zero number (its sign gives the byte order)");
  h.raster = pos + 1;  // one whitespace character ends the header
  return h;
}

}  // namespace

std::uint64_t pfm_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size) {
  const std::string name;
  const ImageLimits limits;
  const DecodeInput head{data, size, name, limits};
  try {
    const PfmHeader h = read_header(head);
    if (h.width > (1u << 31) || h.height > (1u << 31)) return file_size;
    return std::min<std::uint64_t>(file_size, h.raster + h.width * h.height * 4 * h.channels);
  } catch (const ImageLoadError&) {
    return file_size;  // the decoder will say what is wrong, with the file's name
  }
}

LoadedImage decode_pfm(const DecodeInput& in) {
  const PfmHeader h = read_header(in);
  const PixelFormat result = h.channels == 3 ? PixelFormat::Rgb32F : PixelFormat::F32;
  check_size(in, kFormat, h.width, h.height, result);
  const std::uint64_t row_bytes = h.width * 4 * static_cast<std::uint64_t>(h.channels);
  const std::uint64_t needed = row_bytes * h.height;
  const std::uint64_t available = h.raster <= in.size ? in.size - h.raster : 0;
  if (needed > available) fail_too_short(in, kFormat, h.width, h.height, needed, available);

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.source_type = "float32";
  loaded.image = allocate_image(in, kFormat, h.width, h.height, result);
  if (std::fabs(h.scale) != 1.0)
    loaded.note = "the PFM scale " + std::to_string(std::fabs(h.scale)) + " is not applied: the samples are as stored";
  const bool big_endian = h.scale > 0;
  for (std::uint64_t row = 0; row < h.height; ++row) {
    const int y = static_cast<int>(h.height - 1 - row);  // the file's first row is the picture's bottom
    std::uint32_t* dst = loaded.image.row<std::uint32_t>(y);
    std::memcpy(dst, in.data + h.raster + row * row_bytes, row_bytes);
    if (big_endian)
      for (std::uint64_t i = 0; i < h.width * static_cast<std::uint64_t>(h.channels); ++i) dst[i] = swap32(dst[i]);
  }
  return loaded;
}

void encode_pfm(const ConstImageView& image, ByteSink& out) {
  const int channels = channel_count(image.format);
  const int kept = channels <= 2 ? 1 : 3;
  const std::string header = std::string(kept == 3 ? "PF" : "Pf") + "\n" + std::to_string(image.width) + " " +
                             std::to_string(image.height) + "\n-1.0\n";
  out.write(header.data(), header.size());
  std::vector<float> row(static_cast<std::size_t>(image.width) * kept);
  for (int y = image.height - 1; y >= 0; --y) {
    const float* src = image.row<float>(y);
    if (kept == channels) {
      out.write(src, row.size() * sizeof(float));
      continue;
    }
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < kept; ++c) row[static_cast<std::size_t>(x) * kept + c] = src[static_cast<std::size_t>(x) * channels + c];
    out.write(row.data(), row.size() * sizeof(float));
  }
}

}  // namespace gausslab::codec
