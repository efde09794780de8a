#include "gausslab/render/banded_upload.hpp"

#include <algorithm>
#include <cstring>

#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/texture.hpp"
#include "gl_util.hpp"

namespace gausslab {

BandedUpload::~BandedUpload() {
  unmap();
  if (buffer_) glDeleteBuffers(1, &buffer_);
}

void BandedUpload::unmap() {
  if (!mapped_) return;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
  glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  mapped_ = nullptr;
}

void BandedUpload::cancel() {
  unmap();
  image_.reset();
  next_row_ = 0;
}

void BandedUpload::reserve(std::size_t bytes) {
  if (buffer_ && buffer_bytes_ >= bytes) return;
  cancel();  // not while mapped
  make_storage(bytes);
}

void BandedUpload::make_storage(std::size_t bytes) {
  if (buffer_ && buffer_bytes_ >= bytes) return;
  // Written once by the host, read once by GL: a "stream draw" buffer, which drivers keep in
  // host-visible memory, so the memcpy in step is a plain store and the texture copy a DMA.
  if (!buffer_) glGenBuffers(1, &buffer_);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
  // Mapped once here so that the driver makes the storage now, not in the first band's frame.
  if (glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_WRITE_BIT))
    glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  buffer_bytes_ = bytes;
}

void BandedUpload::start(std::shared_ptr<const ImageRgba8> image) {
  cancel();
  if (!image || image->empty()) return;
  image_ = std::move(image);
}

bool BandedUpload::step(Texture& texture, std::size_t band_bytes) {
  if (!image_) return false;
  const ImageRgba8& image = *image_;
  const std::size_t row_bytes = static_cast<std::size_t>(image.width()) * sizeof(Rgba8);
  const std::size_t bytes = row_bytes * static_cast<std::size_t>(image.height());
  if (!mapped_) {
    make_storage(bytes);  // (not mapped here: a larger buffer is made in place)
    // Write only, no invalidation: an invalidated buffer may be given new storage (tens of
    // milliseconds to allocate and pin 64 MiB); the last texture copy out of it is long done.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
    mapped_ = static_cast<unsigned char*>(
        glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_WRITE_BIT));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (!mapped_) {
      const std::string problem = gl_error_message("mapping a pixel buffer for a host result");
      image_.reset();
      buffer_bytes_ = 0;  // made again next time
      throw GlError(problem + " (glMapBufferRange failed)");
    }
  }
  const int rows = static_cast<int>(std::max<std::size_t>(band_bytes / row_bytes, 1));
  const int last = std::min(image.height(), next_row_ + rows);
  // The image is packed (Image<Rgba8>): its rows are one run of bytes, as the buffer's.
  const std::size_t offset = static_cast<std::size_t>(next_row_) * row_bytes;
  std::memcpy(mapped_ + offset, reinterpret_cast<const unsigned char*>(image.data()) + offset,
              static_cast<std::size_t>(last - next_row_) * row_bytes);
  next_row_ = last;
  if (next_row_ < image.height()) return false;

  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
  const GLboolean intact = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  mapped_ = nullptr;
  next_row_ = 0;
  if (intact != GL_TRUE) {  // the contents were lost while mapped (a display mode change): again
    return false;
  }
  texture.resize(image.width(), image.height());
  texture.upload_from_pixel_buffer(buffer_);
  image_.reset();
  return true;
}

}  // namespace gausslab
