#pragma once
// A host image into a texture without holding a frame up. glTexSubImage2D from host memory copies
// the whole image on the calling thread before it returns: 64 MiB (4096x4096 RGBA8, a CPU method's
// or the exact Gaussian's result) took 80-120 ms of one frame on an H100. Here the rows go into a
// mapped pixel buffer a band per frame (step), and when the last band is in, the texture takes the
// buffer in one copy on the GPU. Until then the texture keeps what it showed. Needs a current GL
// context for every call, the destructor included.
#include <cstddef>
#include <memory>

#include "gausslab/core/image.hpp"

namespace gausslab {

class Texture;

// Bytes copied per frame: 8 MiB took 2.0-2.8 ms of memcpy into the mapped buffer on the H100
// machine, and a result's first band and the next in one frame made it 5.4 ms; 2 MiB is ~0.6 ms.
constexpr std::size_t kUploadBandBytes = std::size_t{2} << 20;

class BandedUpload {
 public:
  BandedUpload() = default;
  ~BandedUpload();
  BandedUpload(const BandedUpload&) = delete;
  BandedUpload& operator=(const BandedUpload&) = delete;

  // Makes the pixel buffer for images of up to `bytes` now (a picture's load), so that the first
  // band of the first upload does not pay for it; drops an upload not finished when it must grow.
  void reserve(std::size_t bytes);
  // Starts uploading `image` (kept alive until it is in), replacing an upload not finished.
  void start(std::shared_ptr<const ImageRgba8> image);
  // Copies the next band_bytes of rows (at least one row); when the last row is in, copies the
  // buffer into `texture` (resized to the image first) and returns true: the upload is then over.
  // Throws GlError when the buffer cannot be made or mapped (the upload is then dropped).
  bool step(Texture& texture, std::size_t band_bytes = kUploadBandBytes);
  bool pending() const { return image_ != nullptr; }
  // Drops an unfinished upload (the texture keeps what it showed).
  void cancel();

 private:
  void unmap();
  void make_storage(std::size_t bytes);  // at least `bytes`; not while mapped

  std::shared_ptr<const ImageRgba8> image_;
  unsigned buffer_ = 0;
  std::size_t buffer_bytes_ = 0;
  unsigned char* mapped_ = nullptr;
  int next_row_ = 0;
};

}  // namespace gausslab
