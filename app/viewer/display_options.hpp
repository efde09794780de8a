#pragma once
// The display transform's settings (render/display_transform.hpp) as the command line
// (--exposure -1.5, --range 0.1,99.9) and a script's 'display' step (display range minmax) write
// them: one parser for both, so that the two accept the same words.
#include <string>

#include "gausslab/render/display_transform.hpp"

namespace gausslab {

// The settings' names: exposure, offset, channel, transfer, range, colour_map.
bool is_display_setting(const std::string& name);
// Sets `name` to `text`; throws UsageError naming `flag`, the value and what is allowed:
//   exposure   stops, -20 to 20             offset      -10 to 10, added after the exposure
//   channel    rgb, r, g, b, a, luminance   transfer    linear, srgb, gamma or gamma:G (G 0.1 to 10)
//   range      nominal, minmax, percentiles (0.1 % to 99.9 %) or LO,HI (percentiles, 0 <= LO < HI <= 100)
//   colour_map on or off (one channel through the colour map)
void set_display_setting(DisplayTransform& display, const std::string& flag, const std::string& name, const std::string& text);

// The --help lines of the options above.
std::string display_options_usage();

}  // namespace gausslab
