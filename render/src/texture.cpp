#include "gausslab/render/texture.hpp"

#include <stdexcept>
#include <utility>

#include "gl_util.hpp"

namespace gausslab {

int max_texture_size() {
  GLint size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &size);
  return size > 0 ? size : 4096;  // 4096: what every OpenGL 3.3 implementation must offer at least
}

Texture::~Texture() { release(); }

Texture::Texture(Texture&& other) noexcept
    : id_(std::exchange(other.id_, 0)), width_(std::exchange(other.width_, 0)), height_(std::exchange(other.height_, 0)) {}

Texture& Texture::operator=(Texture&& other) noexcept {
  if (this != &other) {
    release();
    id_ = std::exchange(other.id_, 0);
    width_ = std::exchange(other.width_, 0);
    height_ = std::exchange(other.height_, 0);
  }
  return *this;
}

void Texture::resize(int width, int height) {
  if (id_ && width == width_ && height == height_) return;
  if (width < 1 || height < 1) throw std::invalid_argument("Texture: size must be at least 1x1");
  release();
  glGenTextures(1, &id_);
  glBindTexture(GL_TEXTURE_2D, id_);
  // Immutable-size storage would be glTexStorage2D (GL 4.2); 3.3 core has glTexImage2D.
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);  // no mipmaps: complete with level 0 alone
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  width_ = width;
  height_ = height;
  gl_check("allocating a texture");
}

void Texture::release() {
  if (id_) glDeleteTextures(1, &id_);
  id_ = 0;
  width_ = height_ = 0;
}

void Texture::upload(const ConstImageView& host) {
  if (host.format != PixelFormat::Rgba8 || host.width != width_ || host.height != height_ || host.pitch_bytes % 4 != 0)
    throw std::invalid_argument("Texture::upload: the view must be RGBA8 of the texture's size, pitch a multiple of 4");
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(host.pitch_bytes / 4));
  glBindTexture(GL_TEXTURE_2D, id_);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, host.data);
  glBindTexture(GL_TEXTURE_2D, 0);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
}

void Texture::upload_from_pixel_buffer(unsigned buffer) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);  // RGBA8 rows are whole multiples of 4 bytes: never padded by GL
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, id_);
  // GL_RGBA8 from GL_RGBA / GL_UNSIGNED_BYTE: the bytes as they are. On the H100 (driver 580) this
  // pair was also the fast one (3840x2160 from a device-side pixel buffer: 0.415 ms, against
  // 0.70-0.72 ms for GL_BGRA).
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);  // offset 0 in the buffer
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

ImageRgba8 Texture::read() const {
  ImageRgba8 image(width_, height_);
  if (!id_) return image;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, id_);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, image.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  gl_check("reading a texture back");
  return image;
}

}  // namespace gausslab
