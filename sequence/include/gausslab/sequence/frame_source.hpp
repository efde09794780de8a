#pragma once
// Where a sequence's frames come from: a folder of images (in natural order: frame_2 before
// frame_10), image files named one by one, a video file (FFmpeg, when the build found it), or the
// synthetic sky. Every source gives grey float frames; a frame that cannot be read comes back with
// the reason instead of pixels, and the source goes on with the next.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/sequence/synthetic.hpp"

namespace gausslab {

// The input cannot be opened at all (missing, empty folder, not a video, no video support).
class SequenceInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SourceFrame {
  int index = 0;       // position in the input, from 0
  std::string name;    // file name, or "frame 12" in a video or the synthetic sky
  ImageF32 image;      // grey float; empty when `error` is set
  std::string error;   // why this frame could not be read
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // "folder shots/: 120 frames", "video clip.mkv (ffv1, 640x480): 300 frames", ...
  virtual std::string description() const = 0;
  virtual int frame_count() const = 0;
  // The next frame, or nothing at the end.
  virtual std::optional<SourceFrame> next() = 0;
  // Back to the first frame.
  virtual void rewind() = 0;
  // Things the user should know about the input (files left out, ...).
  virtual std::vector<std::string> notes() const { return {}; }
  // The frame files it reads (a folder's, in order), so that no output replaces one; none for a
  // video (its path is the input given) or the synthetic sky.
  virtual std::vector<std::string> files() const { return {}; }
};

// Natural order: runs of digits compare by their value, the rest byte by byte.
bool natural_less(std::string_view a, std::string_view b);

// True for the extensions the frame loader reads (.png, .jpg, ...), case-insensitive.
bool is_frame_file_name(const std::string& path);
// True for common video container extensions (.mp4, .mkv, .avi, ...), case-insensitive.
bool is_video_file_name(const std::string& path);

// A folder (its frame files in natural order), several files (in the order given) or a video.
// Throws SequenceInputError with what is wrong and what to do.
std::unique_ptr<FrameSource> open_sequence_input(const std::vector<std::string>& inputs);
std::unique_ptr<FrameSource> open_frame_folder(const std::string& folder);
std::unique_ptr<FrameSource> open_frame_files(const std::vector<std::string>& paths);
std::unique_ptr<FrameSource> open_video(const std::string& path);
std::unique_ptr<FrameSource> open_synthetic(const SyntheticSpec& spec);

// Whether this build decodes video (FFmpeg's libraries were found), and if not, what to do.
bool video_support_available();
std::string video_support_note();

}  // namespace gausslab
