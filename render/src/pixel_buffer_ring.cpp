#include "gausslab/render/pixel_buffer_ring.hpp"

#include <stdexcept>
#include <string>

#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/texture.hpp"
#include "gl_util.hpp"

namespace gausslab {

namespace {
const char* state_name(PixelBufferRing::State state) {
  switch (state) {
    case PixelBufferRing::State::Free: return "free";
    case PixelBufferRing::State::Mapped: return "mapped";
    case PixelBufferRing::State::Written: return "written";
  }
  return "?";
}
}  // namespace

int pixel_buffer_row_pixels(int width) { return (static_cast<long long>(width) * 4) % 32 == 0 ? width + 1 : width; }

PixelBufferRing::PixelBufferRing(int count) {
  if (count < 1) throw std::invalid_argument("PixelBufferRing: at least one buffer");
  states_.assign(static_cast<std::size_t>(count), State::Free);
}

PixelBufferRing::~PixelBufferRing() {
  if (!buffers_.empty()) glDeleteBuffers(static_cast<GLsizei>(buffers_.size()), buffers_.data());
}

bool PixelBufferRing::allocate(int width, int height, int row_pixels) {
  if (row_pixels == 0) row_pixels = width;
  if (allocated() && width == width_ && height == height_ && row_pixels == row_pixels_) return false;
  if (width < 1 || height < 1) throw std::invalid_argument("PixelBufferRing: size must be at least 1x1");
  if (row_pixels < width) throw std::invalid_argument("PixelBufferRing: rows shorter than the width");
  release();
  buffers_.assign(states_.size(), 0);
  glGenBuffers(static_cast<GLsizei>(buffers_.size()), buffers_.data());
  const auto bytes = static_cast<GLsizeiptr>(static_cast<std::size_t>(row_pixels) * 4 * static_cast<std::size_t>(height));
  for (unsigned buffer : buffers_) {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
    // Written by CUDA, read by GL: a "copy" usage keeps it in video memory.
    glBufferData(GL_PIXEL_UNPACK_BUFFER, bytes, nullptr, GL_DYNAMIC_COPY);
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (std::string problem = gl_error_message("allocating the pixel buffers"); !problem.empty()) {
    release();
    throw GlError(problem);
  }
  width_ = width;
  height_ = height;
  row_pixels_ = row_pixels;
  return true;
}

void PixelBufferRing::release() {
  if (!mapped().empty()) throw std::logic_error("PixelBufferRing::release with a buffer still mapped");
  if (!buffers_.empty()) glDeleteBuffers(static_cast<GLsizei>(buffers_.size()), buffers_.data());
  buffers_.clear();
  width_ = height_ = row_pixels_ = 0;
  states_.assign(states_.size(), State::Free);
  write_ = 0;
}

int PixelBufferRing::ahead_index() const {
  const int next = (write_ + 1) % count();
  return states_[static_cast<std::size_t>(next)] == State::Free ? next : -1;
}

std::vector<int> PixelBufferRing::mapped() const {
  std::vector<int> result;
  for (int i = 0; i < count(); ++i)
    if (states_[static_cast<std::size_t>(i)] == State::Mapped) result.push_back(i);
  return result;
}

void PixelBufferRing::require(int index, State state, const char* step) const {
  if (index < 0 || index >= count())
    throw std::logic_error(std::string("PixelBufferRing::") + step + ": no buffer " + std::to_string(index));
  const State actual = states_[static_cast<std::size_t>(index)];
  if (actual != state)
    throw std::logic_error(std::string("PixelBufferRing::") + step + ": buffer " + std::to_string(index) + " is " +
                           state_name(actual) + ", not " + state_name(state));
}

void PixelBufferRing::mark_mapped(int index) {
  require(index, State::Free, "mark_mapped");
  states_[static_cast<std::size_t>(index)] = State::Mapped;
}

void PixelBufferRing::mark_unmapped(int index, bool written) {
  require(index, State::Mapped, "mark_unmapped");
  states_[static_cast<std::size_t>(index)] = written ? State::Written : State::Free;
}

void PixelBufferRing::mark_uploaded() {
  require(write_, State::Written, "mark_uploaded");
  // The upload is issued: a map from now on comes after it, so the buffer may be written again.
  states_[static_cast<std::size_t>(write_)] = State::Free;
  write_ = (write_ + 1) % count();
}

void PixelBufferRing::upload(Texture& texture) {
  require(write_, State::Written, "upload");
  if (texture.width() != width_ || texture.height() != height_)
    throw std::logic_error("PixelBufferRing::upload: the texture is not the ring's size");
  texture.upload_from_pixel_buffer(buffer(write_), row_pixels_);
  mark_uploaded();
}

void* PixelBufferRing::map_host(int index) {
  require(index, State::Free, "map_host");
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer(index));
  void* pixels = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(buffer_bytes()),
                                  GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!pixels) throw GlError(gl_error_message("mapping a pixel buffer for the host") + " (glMapBufferRange failed)");
  mark_mapped(index);
  return pixels;
}

void PixelBufferRing::unmap_host(int index, bool written) {
  require(index, State::Mapped, "unmap_host");
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer(index));
  const GLboolean intact = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  // GL_FALSE: the contents were lost while mapped (a display mode change); there is no result.
  mark_unmapped(index, written && intact == GL_TRUE);
}

}  // namespace gausslab
