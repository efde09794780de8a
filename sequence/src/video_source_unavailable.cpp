// The video source of a build without FFmpeg's libraries: every video gets the same clear refusal.
#include "gausslab/sequence/frame_source.hpp"

namespace gausslab {

std::unique_ptr<FrameSource> open_video(const std::string& path) {
  throw SequenceInputError("cannot read '" + path + "': " + video_support_note());
}

bool video_support_available() { return false; }

std::string video_support_note() {
  return "this build has no video support (FFmpeg's libavformat, libavcodec and libswscale were not found when it was "
         "built): extract the frames into a folder of PNG files, or install libavformat-dev libavcodec-dev "
         "libswscale-dev and rebuild";
}

}  // namespace gausslab
