// NumPy .npy arrays as images: 2D (H×W, grey) and 3D (H×W×C, C = 1-4 interleaved channels:
// grey, grey+alpha, RGB, RGBA) of uint8, uint16, float16, float32 (kept as they are) and float64
// (→ f32: gausslab filters in float32; the note counts the samples float32 cannot hold exactly,
// and SaveOptions::float64 writes float64 back). Either byte order; C or Fortran order. The
// header is npy_io's (NEP 1, versions 1-3); a 1D array is a signal (npy_io.hpp), refused here
// with where to take it.
//
// Checked before allocation: the data must hold exactly H × W × C samples (fewer: truncated;
// more: bytes beyond the array, as npy_io refuses for signals). Written: version 1.0, C order,
// little-endian, 2D for one channel and 3D for more.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../npy_header.hpp"
#include "codecs.hpp"
#include "gausslab/core/npy_io.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "NPY";

struct Dtype {
  SampleType stored = SampleType::U8;
  bool float64 = false;
  bool swap = false;  // big-endian samples
  std::size_t item_bytes = 1;
};

Dtype dtype_of(const DecodeInput& in, const std::string& descr) {
  const char order = descr.empty() ? '|' : descr[0];
  const std::string body =
      !descr.empty() && (order == '<' || order == '>' || order == '|' || order == '=') ? descr.substr(1) : descr;
  Dtype d;
  if (body == "u1") d = {SampleType::U8, false, false, 1};
  else if (body == "u2") d = {SampleType::U16, false, false, 2};
  else if (body == "f2") d = {SampleType::F16, false, false, 2};
  else if (body == "f4") d = {SampleType::F32, false, false, 4};
  else if (body == "f8") d = {SampleType::F32, true, false, 8};
  else
    fail(in, kFormat, "dtype '" + descr + "' (" + npy_dtype_words(descr) +
                          ") is not an image type gausslab reads (uint8, uint16, float16, float32, float64); convert it "
                          "in NumPy, e.g. np.save(path, a.astype(np.float32))");
  d.swap = order == '>' && d.item_bytes > 1;
  return d;
}

std::string shape_text(const std::vector<unsigned long long>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

NpyRawHeader header_of(const DecodeInput& in) {
  try {
    return parse_npy_header(in.data, in.size, in.name);
  } catch (const NpyError& error) {
    throw ImageLoadError(error.what());
  }
}

}  // namespace

std::uint64_t npy_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size) {
  try {
    const NpyRawHeader header = parse_npy_header(data, size, "");
    std::uint64_t samples = 1;
    for (unsigned long long n : header.shape) {
      if (n != 0 && samples > (1ull << 40) / n) return file_size;  // far beyond any image: the decoder says so
      samples *= n;
    }
    // One byte beyond the array, so that the decoder sees bytes beyond it (a damaged file).
    return std::min<std::uint64_t>(file_size, header.data_offset + samples * 8 + 1);
  } catch (const NpyError&) {
    return file_size;  // the decoder will say what is wrong, with the file's name
  }
}

LoadedImage decode_npy(const DecodeInput& in) {
  const NpyRawHeader header = header_of(in);
  const Dtype dtype = dtype_of(in, header.descr);
  const std::vector<unsigned long long>& shape = header.shape;
  if (shape.size() == 1)
    fail(in, kFormat, "the array is 1D, of shape " + shape_text(shape) +
                          ": a signal, which gausslab-filter filters along its one axis (give it the .npy file); an "
                          "image is a 2D (height, width) or 3D (height, width, channels) array");
  if (shape.size() != 2 && shape.size() != 3)
    fail(in, kFormat, "the array is " + std::to_string(shape.size()) + "D, of shape " + shape_text(shape) +
                          "; an image is a 2D (height, width) or 3D (height, width, channels) array (for a sequence of "
                          "frames, save one file a frame)");
  const unsigned long long channels = shape.size() == 3 ? shape[2] : 1;
  if (channels < 1 || channels > 4)
    fail(in, kFormat, "the array's shape " + shape_text(shape) + " has " + std::to_string(channels) +
                          " values on its last axis; an image has 1 to 4 channels (grey, grey+alpha, RGB, RGBA)");
  const unsigned long long height = shape[0], width = shape[1];
  if (width > (1ull << 31) || height > (1ull << 31))
    fail(in, kFormat, "the array's shape " + shape_text(shape) + " is larger than any image");
  const PixelFormat result = make_pixel_format(dtype.stored, static_cast<int>(channels));
  check_size(in, kFormat, width, height, result);
  const std::uint64_t samples = width * height * channels;
  const std::uint64_t data_bytes = samples * dtype.item_bytes;
  const std::uint64_t available = in.size - header.data_offset;
  if (available < data_bytes) fail_too_short(in, kFormat, width, height, data_bytes, available);
  if (available > data_bytes)
    fail(in, kFormat, "the file holds bytes beyond the " + std::to_string(samples) +
                          " samples its header declares; the file is damaged");

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.source_type = dtype.float64 ? "float64" : source_type_name(dtype.stored);
  loaded.image = allocate_image(in, kFormat, width, height, result);
  const unsigned char* data = in.data + header.data_offset;
  unsigned char* out = loaded.image.data();
  const std::size_t out_bytes = bytes_per_sample(dtype.stored);
  Float32Narrowing narrowing;
  for (std::uint64_t i = 0; i < samples; ++i) {
    // Sample i of the C-order result is (y, x, c); in a Fortran-order file it is at y + H (x + W c).
    std::uint64_t at = i;
    if (header.fortran_order) {
      const std::uint64_t c = i % channels, x = i / channels % width, y = i / channels / width;
      at = y + height * (x + width * c);
    }
    const unsigned char* src = data + at * dtype.item_bytes;
    unsigned char bytes[8];
    for (std::size_t b = 0; b < dtype.item_bytes; ++b) bytes[b] = src[dtype.swap ? dtype.item_bytes - 1 - b : b];
    if (dtype.float64) {
      double wide;
      std::memcpy(&wide, bytes, 8);
      const float v = narrowing.narrow(wide);
      std::memcpy(out + i * 4, &v, 4);
    } else {
      std::memcpy(out + i * out_bytes, bytes, out_bytes);
    }
  }
  if (dtype.float64)
    loaded.note = "float64 samples converted to float32, in which they are filtered (" + narrowing.describe(samples) + ")";
  return loaded;
}

void encode_npy(const ConstImageView& image, bool float64, ByteSink& out) {
  const int channels = channel_count(image.format);
  const SampleType type = sample_type(image.format);
  const char* descr = float64 ? "<f8" : type == SampleType::U8 ? "|u1" : type == SampleType::U16 ? "<u2"
                                    : type == SampleType::F16 ? "<f2" : "<f4";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(image.height) + ", " + std::to_string(image.width) +
                     (channels > 1 ? ", " + std::to_string(channels) : std::string()) + "), }";
  // Pad with spaces and end with '\n' so that the samples start on a 64-byte boundary (NEP 1).
  const std::size_t unpadded = 6 + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string head("\x93NUMPY\x01\x00", 8);
  head.push_back(static_cast<char>(dict.size() & 0xFF));
  head.push_back(static_cast<char>(dict.size() >> 8));
  head += dict;
  out.write(head.data(), head.size());
  const std::size_t row_samples = static_cast<std::size_t>(image.width) * channels;
  std::vector<double> wide(float64 ? row_samples : 0);
  for (int y = 0; y < image.height; ++y) {
    if (!float64) {
      out.write(image.row<unsigned char>(y), row_samples * bytes_per_sample(type));
      continue;
    }
    const float* src = image.row<float>(y);
    for (std::size_t i = 0; i < row_samples; ++i) wide[i] = src[i];
    out.write(wide.data(), row_samples * sizeof(double));
  }
}

}  // namespace gausslab::codec
