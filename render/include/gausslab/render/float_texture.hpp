#pragma once
// An RGBA32F OpenGL texture filled from host floats a band of rows at a time: the unrounded values
// the viewer shows beside its RGBA8 textures (texture.hpp), so that a difference below one 8-bit
// level, or a float picture's range beyond [0, 1], reaches the screen as it was computed.
//
// A band per frame: a 4096 x 4096 picture's floats are 256 MiB, and one glTexSubImage2D from host
// memory holds the frame while it copies (banded_upload.hpp has the figures); upload_next() copies
// at most kUploadBandBytes of rows and says when the last row is in.
#include <memory>
#include <vector>

namespace gausslab {

class FloatTexture {
 public:
  FloatTexture() = default;
  ~FloatTexture();
  FloatTexture(const FloatTexture&) = delete;
  FloatTexture& operator=(const FloatTexture&) = delete;

  // Starts filling the texture with `rgba` (width x height interleaved RGBA floats, kept alive here
  // until the last band is in); the texture is not complete() until then.
  void start(std::shared_ptr<const std::vector<float>> rgba, int width, int height);
  // Copies the next band (needs the GL context); true once every row is in.
  bool upload_next();
  bool complete() const { return id_ != 0 && !pending_ && rows_done_ == height_; }
  // What the texture holds, or is being filled with (null when nothing).
  const std::shared_ptr<const std::vector<float>>& source() const { return source_; }
  void release();

  unsigned id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  unsigned id_ = 0;
  int width_ = 0, height_ = 0, rows_done_ = 0;
  bool pending_ = false;
  std::shared_ptr<const std::vector<float>> source_;
};

}  // namespace gausslab
