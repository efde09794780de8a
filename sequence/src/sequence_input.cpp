// The choice of source for an input given on a command line or dropped on the viewer: a folder, a
// video or frame files. Part of gausslab_sequence_input, with the video source (FFmpeg).
#include <filesystem>
#include <system_error>

#include "gausslab/core/regular_file.hpp"
#include "gausslab/sequence/frame_source.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {
std::string in_quotes(const std::string& s) { return "'" + s + "'"; }
}  // namespace

std::unique_ptr<FrameSource> open_sequence_input(const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw SequenceInputError("no input: give a folder of frames, a video file or --synthetic");
  for (const std::string& input : inputs) {
    std::error_code error;
    if (!fs::exists(input, error)) throw SequenceInputError(in_quotes(input) + " does not exist");
  }
  if (inputs.size() == 1) {
    const std::string& input = inputs[0];
    std::error_code error;
    if (fs::is_directory(input, error)) return open_frame_folder(input);
    if (is_frame_file_name(input))
      throw SequenceInputError(in_quotes(input) +
                               " is a single image, not a sequence: give the folder that holds the frames, a video "
                               "file, or several frame files");
    // Core's opening rule before FFmpeg opens it: a FIFO would block its open() forever, a device never end.
    if (std::string problem = regular_file_problem(input, "videos"); !problem.empty()) throw SequenceInputError(problem);
    return open_video(input);
  }
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error))
      throw SequenceInputError(in_quotes(input) + " is a folder: give one folder alone, or frame files only");
    if (!is_frame_file_name(input))
      throw SequenceInputError(in_quotes(input) + " is not a frame file (.png, .jpg, .bmp, .tif, ...); a video must "
                               "be the only input");
  }
  return open_frame_files(inputs);
}

}  // namespace gausslab
