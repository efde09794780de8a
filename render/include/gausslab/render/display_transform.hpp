#pragma once
// The A, B and split views' display transform, free of GL: what shaders/image_view.frag does to a
// picture value on its way to the screen, written here once more in C++ (displayed_colour) for the
// test that reads the shader's pixels back and compares (tests/ui), as difference_view.hpp does for
// the difference view. Values are in display units: an 8-bit sample / 255 (a float picture's
// samples as they are, so its nominal [0, 1] is the screen's and values beyond it stay). In order:
//   1. the channel view: rgb, one of r, g, b, a as grey, or the luminance (Rec. 709 weights);
//   2. the range: [low, high] (the picture's min/max or percentiles, display_range.hpp) maps to
//      [0, 1]: (v - low) / (high - low); the nominal range [0, 1] leaves v as it is;
//   3. exposure, then offset, as in tev (offset after exposure): v * 2^stops + offset;
//   4. clamped to [0, 1] (NaN as 0, infinities at the ends), then the transfer: linear (the values as stored: an 8-bit picture's bytes
//      are already sRGB-encoded), sRGB's encoding (for linear float data), or v^(1/gamma);
//   5. one channel (not rgb) through the sequential colour map of the difference view
//      (kSequentialMap) when colour_map is on: the grey it would show, coloured.
#include <array>
#include <optional>
#include <string>

#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

// Which of a picture's channels the A, B and split views show: all three, one as grey, or the
// luminance (Rec. 709 weights of the values as stored).
enum class ChannelView : int { Rgb, R, G, B, A, Luminance, Count };
// The curve from the transformed value to the screen.
enum class Transfer : int { Linear, Srgb, Gamma, Count };
// Where [low, high] comes from: the nominal [0, 1], the shown values' min and max, or two
// percentiles of them (finite values only).
enum class RangeMode : int { Nominal, MinMax, Percentiles, Count };

inline constexpr double kMaxExposureStops = 20.0;
inline constexpr double kMaxDisplayOffset = 10.0;            // |offset|, display units
inline constexpr double kMinDisplayGamma = 0.1, kMaxDisplayGamma = 10.0;
// Rec. 709 luminance weights (they sum to 1: the luminance of a constant is that constant).
inline constexpr std::array<float, 3> kLuminanceWeights = {0.2126f, 0.7152f, 0.0722f};

struct DisplayTransform {
  double exposure_stops = 0;  // values x 2^stops
  double offset = 0;          // added after the exposure, in display units
  ChannelView channel = ChannelView::Rgb;
  Transfer transfer = Transfer::Linear;
  double gamma = 2.2;         // Transfer::Gamma: v^(1 / gamma)
  RangeMode range = RangeMode::Nominal;
  double low_percentile = 0.1, high_percentile = 99.9;  // RangeMode::Percentiles, in %
  bool colour_map = false;    // one channel (not rgb) through the sequential colour map

  // The colour map is drawn: on, and one channel (or the luminance) shown.
  bool maps_colour() const { return colour_map && channel != ChannelView::Rgb; }
  friend bool operator==(const DisplayTransform& x, const DisplayTransform& y) {
    return x.exposure_stops == y.exposure_stops && x.offset == y.offset && x.channel == y.channel &&
           x.transfer == y.transfer && x.gamma == y.gamma && x.range == y.range &&
           x.low_percentile == y.low_percentile && x.high_percentile == y.high_percentile &&
           x.colour_map == y.colour_map;
  }
  friend bool operator!=(const DisplayTransform& x, const DisplayTransform& y) { return !(x == y); }
};

// The values that map to 0 and 1 (display units); high > low (display_range.hpp makes sure).
struct DisplayRange {
  double low = 0, high = 1;
};

const char* to_string(ChannelView channel);  // "rgb", "r", "g", "b", "a", "luminance"
const char* to_string(Transfer transfer);    // "linear", "srgb", "gamma"
const char* to_string(RangeMode range);      // "nominal", "minmax", "percentiles"
std::optional<ChannelView> channel_view_from_string(const std::string& text);
std::optional<Transfer> transfer_from_string(const std::string& text);
// "exposure -1.5  offset +0.1  srgb  range 0.1-99.9 % [0.02, 1.7]  luminance map": the parts that
// are not the default ("" when none), range_values after the range (the status bar's words).
std::string describe(const DisplayTransform& transform, const std::string& range_values = "");

// sRGB's encoding of a linear value in [0, 1] (IEC 61966-2-1).
double srgb_encode(double linear);

// The value (of the channel shown, display units) drawn as `grey` in [0, 1] before the colour map:
// the transform undone, for the colour map's legend.
double value_shown_at(double grey, const DisplayTransform& transform, const DisplayRange& range);

// The 8-bit colour the A, B and split views show for a picture value (r, g, b, a in display units),
// alpha 255.
Rgba8 displayed_colour(const std::array<double, 4>& value, const DisplayTransform& transform, const DisplayRange& range);

}  // namespace gausslab
