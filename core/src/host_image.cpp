#include "gausslab/core/host_image.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gausslab/core/half.hpp"

namespace gausslab {

HostImage::HostImage(int width, int height, PixelFormat format) : width_(width), height_(height), format_(format) {
  if (width < 0 || height < 0) throw std::invalid_argument("image size must not be negative");
  if (!is_valid(format)) throw std::invalid_argument("unknown pixel format");
  bytes_.assign(pixel_count() * bytes_per_pixel(format), 0);
}

HostImage HostImage::uninitialized(int width, int height, PixelFormat format) {
  if (width < 0 || height < 0) throw std::invalid_argument("image size must not be negative");
  if (!is_valid(format)) throw std::invalid_argument("unknown pixel format");
  HostImage image;
  image.width_ = width;
  image.height_ = height;
  image.format_ = format;
  image.bytes_.resize(image.pixel_count() * bytes_per_pixel(format));
  return image;
}

HostImage HostImage::copy_of(const ConstImageView& view) {
  HostImage image = uninitialized(view.width, view.height, view.format);
  for (int y = 0; y < view.height; ++y)
    std::memcpy(image.row<unsigned char>(y), view.row<unsigned char>(y), image.pitch_bytes());
  return image;
}

HostImage HostImage::from(const ImageRgba8& image) { return copy_of(image.view()); }
HostImage HostImage::from(const ImageF32& image) { return copy_of(image.view()); }

void HostImage::narrow_rgba8_in_place(int channels) {
  if (format_ != PixelFormat::Rgba8 || channels < 1 || channels > 4)
    throw std::invalid_argument("narrow_rgba8_in_place: an RGBA8 image and 1 to 4 channels");
  if (channels == 4) return;
  static constexpr int kPick[4][3] = {{0, 0, 0}, {0, 3, 0}, {0, 1, 2}, {0, 1, 2}};
  const std::size_t pixels = pixel_count();
  unsigned char* p = bytes_.data();
  for (std::size_t i = 0; i < pixels; ++i)  // writes at i × channels ≤ reads at i × 4: forward is safe
    for (int c = 0; c < channels; ++c) p[i * channels + c] = p[i * 4 + kPick[channels - 1][c]];
  format_ = make_pixel_format(SampleType::U8, channels);
  bytes_.resize(pixels * channels);
}

float HostImage::sample(int x, int y, int c) const { return load_sample(view(), x, y, c); }

void HostImage::set_sample(int x, int y, int c, float value, IntegerRounding rounding) {
  const int channels = this->channels();
  const std::size_t i = static_cast<std::size_t>(x) * channels + c;
  switch (sample_type(format_)) {
    case SampleType::U8: row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(round_to_level(value, rounding, 255)); break;
    case SampleType::U16:
      row<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(round_to_level(value, rounding, 65535));
      break;
    case SampleType::F16: row<std::uint16_t>(y)[i] = float_to_half(value); break;
    default: row<float>(y)[i] = value; break;
  }
}

void load_row_samples(const ConstImageView& view, int y, float* out) {
  const std::size_t n = static_cast<std::size_t>(view.width) * channel_count(view.format);
  switch (sample_type(view.format)) {
    case SampleType::U8: {
      const std::uint8_t* in = view.row<std::uint8_t>(y);
      for (std::size_t i = 0; i < n; ++i) out[i] = in[i];
      break;
    }
    case SampleType::U16: {
      const std::uint16_t* in = view.row<std::uint16_t>(y);
      for (std::size_t i = 0; i < n; ++i) out[i] = in[i];
      break;
    }
    case SampleType::F16: {
      const std::uint16_t* in = view.row<std::uint16_t>(y);
      for (std::size_t i = 0; i < n; ++i) out[i] = half_to_float(in[i]);
      break;
    }
    case SampleType::F32: std::memcpy(out, view.row<float>(y), n * sizeof(float)); break;
    default: throw std::invalid_argument("load_row_samples: unknown pixel format");
  }
}

void store_row_samples(const float* in, const ImageView& view, int y, IntegerRounding rounding) {
  const std::size_t n = static_cast<std::size_t>(view.width) * channel_count(view.format);
  switch (sample_type(view.format)) {
    case SampleType::U8: {
      std::uint8_t* out = view.row<std::uint8_t>(y);
      if (rounding == IntegerRounding::Nearest)
        for (std::size_t i = 0; i < n; ++i) out[i] = to_unorm8(in[i]);
      else
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(round_to_level(in[i], rounding, 255));
      break;
    }
    case SampleType::U16: {
      std::uint16_t* out = view.row<std::uint16_t>(y);
      if (rounding == IntegerRounding::Nearest)
        for (std::size_t i = 0; i < n; ++i) out[i] = to_unorm16(in[i]);
      else
        for (std::size_t i = 0; i < n; ++i)
          out[i] = static_cast<std::uint16_t>(round_to_level(in[i], rounding, 65535));
      break;
    }
    case SampleType::F16: {
      std::uint16_t* out = view.row<std::uint16_t>(y);
      for (std::size_t i = 0; i < n; ++i) out[i] = float_to_half(in[i]);
      break;
    }
    case SampleType::F32: std::memcpy(view.row<float>(y), in, n * sizeof(float)); break;
    default: throw std::invalid_argument("store_row_samples: unknown pixel format");
  }
}

float load_sample(const ConstImageView& view, int x, int y, int c) {
  const std::size_t i = static_cast<std::size_t>(x) * channel_count(view.format) + c;
  switch (sample_type(view.format)) {
    case SampleType::U8: return view.row<std::uint8_t>(y)[i];
    case SampleType::U16: return view.row<std::uint16_t>(y)[i];
    case SampleType::F16: return half_to_float(view.row<std::uint16_t>(y)[i]);
    default: return view.row<float>(y)[i];
  }
}

ImageRgba8 to_rgba8(const ConstImageView& view) {
  ImageRgba8 out(view.width, view.height);
  const int channels = channel_count(view.format);
  const float scale = static_cast<float>(255.0 / nominal_max(sample_type(view.format)));
  const bool exact = sample_type(view.format) == SampleType::U8;
  std::vector<float> row(static_cast<std::size_t>(view.width) * channels);
  for (int y = 0; y < view.height; ++y) {
    load_row_samples(view, y, row.data());
    for (int x = 0; x < view.width; ++x) {
      const float* p = &row[static_cast<std::size_t>(x) * channels];
      auto level = [&](float v) { return exact ? static_cast<std::uint8_t>(v) : to_unorm8(v * scale); };
      Rgba8& q = out.at(x, y);
      if (channels <= 2) {
        q.r = q.g = q.b = level(p[0]);
        q.a = channels == 2 ? level(p[1]) : 255;
      } else {
        q.r = level(p[0]);
        q.g = level(p[1]);
        q.b = level(p[2]);
        q.a = channels == 4 ? level(p[3]) : 255;
      }
    }
  }
  return out;
}

HostImage convert_samples(const ConstImageView& view, SampleType sample, SampleScaling scaling,
                          IntegerRounding rounding, std::size_t* clamped) {
  const SampleType from = sample_type(view.format);
  HostImage out(view.width, view.height, with_sample_type(view.format, sample));
  const double scale = scaling == SampleScaling::Nominal ? nominal_max(sample) / nominal_max(from) : 1.0;
  const float max_level = static_cast<float>(nominal_max(sample));
  const std::size_t n = static_cast<std::size_t>(view.width) * channel_count(view.format);
  std::vector<float> row(n);
  std::size_t clamps = 0;
  for (int y = 0; y < view.height; ++y) {
    load_row_samples(view, y, row.data());
    for (float& v : row) {
      v = static_cast<float>(v * scale);
      if (is_integer(sample) ? (v < 0.0f || v > max_level || std::isnan(v))
                             : (sample == SampleType::F16 && std::isfinite(v) && std::fabs(v) >= 65520.0f))
        ++clamps;
    }
    store_row_samples(row.data(), out.view(), y, rounding);
  }
  if (clamped) *clamped = clamps;
  return out;
}

HostImage convert_channels(const ConstImageView& view, int channels) {
  if (channels < 1 || channels > 4) throw std::invalid_argument("convert_channels: 1 to 4 channels");
  const int from = channel_count(view.format);
  HostImage out(view.width, view.height, with_channels(view.format, channels));
  const float opaque = static_cast<float>(nominal_max(sample_type(view.format)));
  std::vector<float> in_row(static_cast<std::size_t>(view.width) * from);
  std::vector<float> out_row(static_cast<std::size_t>(view.width) * channels);
  for (int y = 0; y < view.height; ++y) {
    load_row_samples(view, y, in_row.data());
    for (int x = 0; x < view.width; ++x) {
      const float* p = &in_row[static_cast<std::size_t>(x) * from];
      float* q = &out_row[static_cast<std::size_t>(x) * channels];
      const bool colour_in = from >= 3, colour_out = channels >= 3;
      const float alpha = (from == 2 || from == 4) ? p[from - 1] : opaque;
      float rgb[3];
      if (colour_in) {
        rgb[0] = p[0], rgb[1] = p[1], rgb[2] = p[2];
      } else {
        rgb[0] = rgb[1] = rgb[2] = p[0];
      }
      if (colour_out) {
        q[0] = rgb[0], q[1] = rgb[1], q[2] = rgb[2];
      } else {
        q[0] = colour_in ? 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2] : rgb[0];
      }
      if (channels == 2 || channels == 4) q[channels - 1] = alpha;
    }
    store_row_samples(out_row.data(), out.view(), y);
  }
  return out;
}

}  // namespace gausslab
