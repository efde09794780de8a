#include "viewer/frame_omissions.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace gausslab {

FrameOmissions parse_frame_omissions(const std::string& text) {
  FrameOmissions out;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part.empty()) continue;
    if (part == "gl_timer") out.gl_timer = true;
    else if (part == "stage_timer") out.stage_timer = true;
    else if (part == "ui") out.ui = true;
    else if (part == "image") out.image = true;
    else
      throw std::invalid_argument("GAUSSLAB_FRAME_OMIT: unknown part '" + part +
                                  "'; it takes gl_timer, stage_timer, ui and image, separated by commas");
    out.names += (out.names.empty() ? "" : ",") + part;
  }
  return out;
}

const FrameOmissions& frame_omissions() {
  static const FrameOmissions omissions = [] {
    const char* text = std::getenv("GAUSSLAB_FRAME_OMIT");
    return text ? parse_frame_omissions(text) : FrameOmissions{};
  }();
  return omissions;
}

}  // namespace gausslab
