#pragma once
// Saving a result from the window: under the first free name beside `name` (photo.png,
// photo-2.png, ...), never replacing a file, even when another program takes a name meanwhile.
#include <string>

#include "gausslab/core/image.hpp"

namespace gausslab {

// Returns the message to show: "saved /abs/path.png" or "could not save: why".
std::string save_under_free_name(const ImageRgba8& image, const std::string& name);

}  // namespace gausslab
