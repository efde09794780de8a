#pragma once
// A host image of any pixel format (pixel_format.hpp), and the loads and stores that every CPU
// path uses to read samples as float32 and to write them back by the format's rule.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/core/uninitialized_bytes.hpp"

namespace gausslab {

// A tightly packed image of `format` pixels in host memory (rows start on 16-byte boundaries when
// their width allows: the storage is one allocation, aligned as operator new aligns).
class HostImage {
 public:
  HostImage() = default;
  // Zero-filled. Throws std::invalid_argument for a negative size or an unknown format.
  HostImage(int width, int height, PixelFormat format);
  // Not zero-filled: for a writer that sets every byte before any is read (a decoder writing
  // every pixel, a filter's output), where the zero fill was a pass over the whole image for
  // nothing. Throws as the constructor does.
  static HostImage uninitialized(int width, int height, PixelFormat format);
  // A copy of a host view's pixels.
  static HostImage copy_of(const ConstImageView& view);
  // The same pixels as a typed image (RGBA8 or F32).
  static HostImage from(const ImageRgba8& image);
  static HostImage from(const ImageF32& image);

  int width() const { return width_; }
  int height() const { return height_; }
  PixelFormat format() const { return format_; }
  int channels() const { return channel_count(format_); }
  bool empty() const { return width_ <= 0 || height_ <= 0; }
  std::size_t pixel_count() const { return static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_); }
  std::size_t pitch_bytes() const { return static_cast<std::size_t>(width_) * bytes_per_pixel(format_); }
  std::size_t size_bytes() const { return bytes_.size(); }

  unsigned char* data() { return bytes_.data(); }
  const unsigned char* data() const { return bytes_.data(); }
  template <class Sample>
  Sample* row(int y) {
    return reinterpret_cast<Sample*>(bytes_.data() + static_cast<std::size_t>(y) * pitch_bytes());
  }
  template <class Sample>
  const Sample* row(int y) const {
    return reinterpret_cast<const Sample*>(bytes_.data() + static_cast<std::size_t>(y) * pitch_bytes());
  }

  ImageView view() { return {bytes_.data(), width_, height_, pitch_bytes(), format_}; }
  ConstImageView view() const { return {bytes_.data(), width_, height_, pitch_bytes(), format_}; }

  // Sample c of pixel (x, y) as float32 (levels for integer types), and its store by the format's rule.
  float sample(int x, int y, int c) const;
  void set_sample(int x, int y, int c, float value, IntegerRounding rounding = IntegerRounding::Nearest);

  // Keeps `channels` (1: R, 2: R and A, 3: RGB, 4: all) of an RGBA8 image, in place, for the
  // decoders that decode into RGBA8 before they know the file's layout. The storage keeps its
  // capacity: a smaller copy would need both at once.
  void narrow_rgba8_in_place(int channels);

  friend bool operator==(const HostImage& a, const HostImage& b) {
    return a.width_ == b.width_ && a.height_ == b.height_ && a.format_ == b.format_ && a.bytes_ == b.bytes_;
  }

 private:
  int width_ = 0;
  int height_ = 0;
  PixelFormat format_ = PixelFormat::Rgba8;
  UninitializedBytes bytes_;  // zero-filled by the constructor, left as they are by uninitialized()
};

// Row y's width × channels samples as float32, interleaved: integer levels as they are, halves
// exactly (half_to_float).
void load_row_samples(const ConstImageView& view, int y, float* out);
// Stores width × channels floats into row y by the format's rule: integer types round (half up by
// default) and saturate, f16 rounds to nearest even (infinity beyond 65504), f32 as it is.
void store_row_samples(const float* in, const ImageView& view, int y,
                       IntegerRounding rounding = IntegerRounding::Nearest);
// One sample as float32 (load_row_samples' rule).
float load_sample(const ConstImageView& view, int x, int y, int c);

// The image as RGBA8 for display or an 8-bit file: grey → (v, v, v, 255), grey+alpha → (v, v, v, a),
// RGB → alpha 255; 16-bit levels scaled by 255/65535 and floats by 255 (the nominal [0, 1]), both
// rounded half up and clamped. Lossy for everything but the 8-bit formats: say so where it matters.
ImageRgba8 to_rgba8(const ConstImageView& view);

// How convert_samples maps values between sample types.
enum class SampleScaling : std::uint8_t {
  Nominal,  // by the types' nominal ranges: u8 0..255, u16 0..65535, floats 0..1 (u16 → u8 × 255/65535)
  Values,   // the numbers as they are (u16 → f32 keeps 1000 as 1000.0), rounded and clamped for integers
};

// A copy of `view` with `sample` samples and the same channels; integers round half up (or as
// `rounding` says) and saturate. Returns how many samples were clamped or became infinite (for the
// run's message) through `clamped` when given.
HostImage convert_samples(const ConstImageView& view, SampleType sample, SampleScaling scaling,
                          IntegerRounding rounding = IntegerRounding::Nearest, std::size_t* clamped = nullptr);

// A copy of `view` with `channels` channels: grey ↔ RGB by replication or Rec. 709 luminance,
// alpha added opaque (the type's nominal maximum) or dropped.
HostImage convert_channels(const ConstImageView& view, int channels);

}  // namespace gausslab
