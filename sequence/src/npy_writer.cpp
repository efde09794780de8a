#include "gausslab/sequence/npy_writer.hpp"

#include <vector>

namespace gausslab {

std::string NpyFrameWriter::header(int frames, int height, int width) {
  // Format 1.0: magic, version, little-endian uint16 length, then a Python dict literal padded
  // with spaces and ended by a newline so that the data starts on a 64-byte boundary.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(frames) + ", " +
                     std::to_string(height) + ", " + std::to_string(width) + "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string h = "\x93NUMPY";
  h.push_back('\x01');
  h.push_back('\x00');
  h.push_back(static_cast<char>(dict.size() & 0xFF));
  h.push_back(static_cast<char>(dict.size() >> 8));
  return h + dict;
}

NpyFrameWriter::NpyFrameWriter(const std::string& path, int frames, int height, int width, Overwrite overwrite)
    : file_(std::make_unique<StagedFile>(path, overwrite)), frames_(frames), height_(height), width_(width) {
  static_assert(sizeof(float) == 4, "float32");
  const std::string h = header(frames, height, width);
  file_->write(h.data(), h.size());
}

void NpyFrameWriter::append(const float* frame) {
  if (written_ >= frames_)
    throw ImageSaveError("cannot write " + file_->path() + ": more than the " + std::to_string(frames_) +
                         " frames its header announces");
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(width_) * height_;
  if (frame) {
    file_->write(frame, bytes);  // x86-64 and aarch64 are little-endian, as '<f4' says
  } else {
    const std::vector<float> zeros(static_cast<std::size_t>(width_) * height_, 0.0f);
    file_->write(zeros.data(), bytes);
  }
  ++written_;
}

void NpyFrameWriter::commit() {
  if (written_ != frames_)
    throw ImageSaveError("cannot finish " + file_->path() + ": " + std::to_string(written_) + " of " +
                         std::to_string(frames_) + " frames were written");
  file_->commit();
}

}  // namespace gausslab
