#include "gausslab/render/float_texture.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "gausslab/render/banded_upload.hpp"
#include "gl_util.hpp"

namespace gausslab {

FloatTexture::~FloatTexture() { release(); }

void FloatTexture::release() {
  if (id_) glDeleteTextures(1, &id_);
  id_ = 0;
  width_ = height_ = rows_done_ = 0;
  pending_ = false;
  source_.reset();
}

void FloatTexture::start(std::shared_ptr<const std::vector<float>> rgba, int width, int height) {
  if (!rgba || width < 1 || height < 1 || rgba->size() != static_cast<std::size_t>(width) * height * 4)
    throw std::invalid_argument("FloatTexture::start: the floats must be width x height RGBA");
  if (!id_ || width != width_ || height != height_) {
    release();
    glGenTextures(1, &id_);
    glBindTexture(GL_TEXTURE_2D, id_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    gl_check("allocating a float texture");
    width_ = width;
    height_ = height;
  }
  source_ = std::move(rgba);
  rows_done_ = 0;
  pending_ = true;
}

bool FloatTexture::upload_next() {
  if (!pending_) return complete();
  const std::size_t row_bytes = static_cast<std::size_t>(width_) * 4 * sizeof(float);
  const int rows = std::min(height_ - rows_done_, static_cast<int>(std::max<std::size_t>(1, kUploadBandBytes / row_bytes)));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, id_);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, rows_done_, width_, rows, GL_RGBA, GL_FLOAT,
                  source_->data() + static_cast<std::size_t>(rows_done_) * width_ * 4);
  glBindTexture(GL_TEXTURE_2D, 0);
  gl_check("uploading to a float texture");
  rows_done_ += rows;
  if (rows_done_ == height_) pending_ = false;
  return complete();
}

}  // namespace gausslab
