#include "gausslab/render/display_transform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gausslab/render/difference_view.hpp"

namespace gausslab {

namespace {

std::uint8_t level(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

std::string number(const char* format, double value) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

const char* to_string(ChannelView channel) {
  switch (channel) {
    case ChannelView::Rgb: return "rgb";
    case ChannelView::R: return "r";
    case ChannelView::G: return "g";
    case ChannelView::B: return "b";
    case ChannelView::A: return "a";
    case ChannelView::Luminance: return "luminance";
    default: return "?";
  }
}

const char* to_string(Transfer transfer) {
  switch (transfer) {
    case Transfer::Linear: return "linear";
    case Transfer::Srgb: return "srgb";
    case Transfer::Gamma: return "gamma";
    default: return "?";
  }
}

const char* to_string(RangeMode range) {
  switch (range) {
    case RangeMode::Nominal: return "nominal";
    case RangeMode::MinMax: return "minmax";
    case RangeMode::Percentiles: return "percentiles";
    default: return "?";
  }
}

std::optional<ChannelView> channel_view_from_string(const std::string& text) {
  for (int i = 0; i < static_cast<int>(ChannelView::Count); ++i)
    if (text == to_string(static_cast<ChannelView>(i))) return static_cast<ChannelView>(i);
  return std::nullopt;
}

std::optional<Transfer> transfer_from_string(const std::string& text) {
  for (int i = 0; i < static_cast<int>(Transfer::Count); ++i)
    if (text == to_string(static_cast<Transfer>(i))) return static_cast<Transfer>(i);
  return std::nullopt;
}

std::string describe(const DisplayTransform& t, const std::string& range_values) {
  std::string text;
  const auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "  ") + part; };
  if (t.exposure_stops != 0) add(number("exposure %+.1f", t.exposure_stops));
  if (t.offset != 0) add(number("offset %+.3g", t.offset));
  if (t.transfer == Transfer::Srgb) add("srgb");
  if (t.transfer == Transfer::Gamma) add(number("gamma %.3g", t.gamma));
  if (t.range == RangeMode::MinMax) add("range min-max");
  if (t.range == RangeMode::Percentiles)
    add(number("range %.3g", t.low_percentile) + number("-%.3g %%", t.high_percentile));
  if (t.range != RangeMode::Nominal && !range_values.empty()) text += " " + range_values;
  if (t.channel != ChannelView::Rgb) add(std::string(to_string(t.channel)) + (t.colour_map ? " map" : ""));
  return text;
}

double srgb_encode(double linear) {
  return linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
}

double value_shown_at(double grey, const DisplayTransform& t, const DisplayRange& range) {
  double linear = grey;
  if (t.transfer == Transfer::Srgb) linear = grey <= 0.04045 ? grey / 12.92 : std::pow((grey + 0.055) / 1.055, 2.4);
  if (t.transfer == Transfer::Gamma) linear = std::pow(grey, std::clamp(t.gamma, kMinDisplayGamma, kMaxDisplayGamma));
  const double width = range.high > range.low ? range.high - range.low : 1.0;
  return range.low + (linear - t.offset) / std::exp2(t.exposure_stops) * width;
}

Rgba8 displayed_colour(const std::array<double, 4>& value, const DisplayTransform& t, const DisplayRange& range) {
  double v[3];
  switch (t.channel) {
    case ChannelView::R: v[0] = v[1] = v[2] = value[0]; break;
    case ChannelView::G: v[0] = v[1] = v[2] = value[1]; break;
    case ChannelView::B: v[0] = v[1] = v[2] = value[2]; break;
    case ChannelView::A: v[0] = v[1] = v[2] = value[3]; break;
    case ChannelView::Luminance:
      v[0] = v[1] = v[2] = kLuminanceWeights[0] * value[0] + kLuminanceWeights[1] * value[1] + kLuminanceWeights[2] * value[2];
      break;
    default: v[0] = value[0], v[1] = value[1], v[2] = value[2]; break;
  }
  const double scale = std::exp2(t.exposure_stops) / (range.high > range.low ? range.high - range.low : 1.0);
  for (double& c : v) {
    c = (c - range.low) * scale + t.offset;
    c = std::isnan(c) ? 0.0 : std::clamp(c, 0.0, 1.0);  // NaN black, infinities at the ends
    if (t.transfer == Transfer::Srgb) c = srgb_encode(c);
    if (t.transfer == Transfer::Gamma) c = std::pow(c, 1.0 / std::clamp(t.gamma, kMinDisplayGamma, kMaxDisplayGamma));
  }
  if (t.maps_colour()) {
    const std::array<float, 3> colour = colour_map(v[0], false);
    return Rgba8{level(colour[0]), level(colour[1]), level(colour[2]), 255};
  }
  return Rgba8{level(v[0]), level(v[1]), level(v[2]), 255};
}

}  // namespace gausslab
