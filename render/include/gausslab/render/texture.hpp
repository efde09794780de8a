#pragma once
// An RGBA8 OpenGL texture: the display copy of a result or of the source picture.
#include "gausslab/core/image.hpp"

namespace gausslab {

// GL_MAX_TEXTURE_SIZE of the current context: the largest side a picture may have to be shown
// (needs a current context).
int max_texture_size();

class Texture {
 public:
  Texture() = default;
  ~Texture();
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;
  Texture(Texture&& other) noexcept;
  Texture& operator=(Texture&& other) noexcept;

  // Allocates width × height RGBA8 storage; does nothing when the size is unchanged.
  void resize(int width, int height);
  void release();

  // Copies a host RGBA8 view of the texture's size (any pitch that is a multiple of 4 bytes).
  void upload(const ConstImageView& host);
  // Copies from pixel buffer object `buffer`: width × height RGBA8 pixels from offset 0, rows
  // tightly packed (a copy by GL; the buffer must not be mapped).
  void upload_from_pixel_buffer(unsigned buffer);
  // Reads the whole texture back (synchronous: for screenshots and tests).
  ImageRgba8 read() const;

  unsigned id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  unsigned id_ = 0;
  int width_ = 0, height_ = 0;
};

}  // namespace gausslab
