#pragma once
// A NumPy .npy file of float32 frames (frames × height × width, C order), written frame by frame
// through a StagedFile: the file appears complete under its name at commit(), or not at all.
#include <memory>
#include <string>

#include "gausslab/sequence/frame_io.hpp"

namespace gausslab {

class NpyFrameWriter {
 public:
  // Throws ImageSaveError (the target exists without Overwrite::Allowed, the folder is not writable).
  NpyFrameWriter(const std::string& path, int frames, int height, int width, Overwrite overwrite);

  // Appends one frame (height × width floats, row-major); a null pointer appends zeros.
  void append(const float* frame);
  int frames_written() const { return written_; }
  // Throws ImageSaveError unless exactly `frames` frames were appended.
  void commit();

  // The version 1.0 header for this shape, padded to a multiple of 64 bytes (tests read it).
  static std::string header(int frames, int height, int width);

 private:
  std::unique_ptr<StagedFile> file_;
  int frames_, height_, width_, written_ = 0;
};

}  // namespace gausslab
