#include "viewer/display_options.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace {

const char* const kNames[] = {"exposure", "offset", "channel", "transfer", "range", "colour_map"};

double number_within(const std::string& flag, const std::string& text, double low, double high, const char* what) {
  const double v = parse_double(flag, text);
  if (!(v >= low && v <= high)) {
    char range[96];
    std::snprintf(range, sizeof range, "%g to %g", low, high);
    throw UsageError(flag + ": " + what + " " + text + " is outside " + range);
  }
  return v;
}

}  // namespace

bool is_display_setting(const std::string& name) { return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames); }

void set_display_setting(DisplayTransform& d, const std::string& flag, const std::string& name, const std::string& text) {
  if (name == "exposure") {
    d.exposure_stops = number_within(flag, text, -kMaxExposureStops, kMaxExposureStops, "exposure");
  } else if (name == "offset") {
    d.offset = number_within(flag, text, -kMaxDisplayOffset, kMaxDisplayOffset, "offset");
  } else if (name == "channel") {
    const std::optional<ChannelView> channel = channel_view_from_string(text);
    if (!channel) throw UsageError(flag + ": unknown channel '" + text + "'; use rgb, r, g, b, a or luminance");
    d.channel = *channel;
  } else if (name == "transfer") {
    const std::size_t colon = text.find(':');
    const std::optional<Transfer> transfer = transfer_from_string(text.substr(0, colon));
    if (!transfer || (colon != std::string::npos && *transfer != Transfer::Gamma))
      throw UsageError(flag + ": unknown transfer '" + text + "'; use linear, srgb, gamma or gamma:G (e.g. gamma:1.8)");
    d.transfer = *transfer;
    if (colon != std::string::npos) d.gamma = number_within(flag, text.substr(colon + 1), kMinDisplayGamma, kMaxDisplayGamma, "gamma");
  } else if (name == "range") {
    if (text == "nominal") {
      d.range = RangeMode::Nominal;
    } else if (text == "minmax") {
      d.range = RangeMode::MinMax;
    } else if (text == "percentiles") {
      d.range = RangeMode::Percentiles;
    } else {
      const std::size_t comma = text.find(',');
      if (comma == std::string::npos)
        throw UsageError(flag + ": unknown range '" + text + "'; use nominal, minmax, percentiles or LO,HI (percentiles, e.g. 0.1,99.9)");
      const double low = number_within(flag, text.substr(0, comma), 0.0, 100.0, "percentile");
      const double high = number_within(flag, text.substr(comma + 1), 0.0, 100.0, "percentile");
      if (!(low < high)) throw UsageError(flag + ": the low percentile must be below the high one ('" + text + "')");
      d.range = RangeMode::Percentiles;
      d.low_percentile = low;
      d.high_percentile = high;
    }
  } else if (name == "colour_map") {
    if (text != "on" && text != "off") throw UsageError(flag + ": use on or off, not '" + text + "'");
    d.colour_map = text == "on";
  } else {
    throw UsageError(flag + ": unknown display setting '" + name +
                     "'; use exposure, offset, channel, transfer, range or colour_map");
  }
}

std::string display_options_usage() {
  return "  --exposure S           A, B and split: values x 2^S (stops, -20 to 20; keys [ and ])\n"
         "  --offset O             then + O (tev's order: after the exposure; -10 to 10; keys { and })\n"
         "  --channel C            rgb (default), r, g, b, a or luminance (key K)\n"
         "  --colour-map           the one channel through the colour map (needs --channel; Shift+K)\n"
         "  --transfer T           linear (default: as stored), srgb or gamma[:G] (G 0.1 to 10, default 2.2; Y)\n"
         "  --range R              what maps to black and white: nominal [0, 1] (default), minmax, percentiles\n"
         "                         (0.1 % to 99.9 %) or LO,HI percentiles, of A's and B's values (Shift+F)\n";
}

}  // namespace gausslab
