#include "gausslab/render/texture_ring.hpp"

#include <stdexcept>
#include <string>

#include "gausslab/render/gl_error.hpp"

namespace gausslab {

namespace {
const char* state_name(TextureRing::State state) {
  switch (state) {
    case TextureRing::State::Free: return "free";
    case TextureRing::State::Mapped: return "mapped";
    case TextureRing::State::Written: return "written";
    case TextureRing::State::Shown: return "shown";
  }
  return "?";
}
}  // namespace

TextureRing::TextureRing(int count) {
  if (count < 1) throw std::invalid_argument("TextureRing: at least one texture");
  states_.assign(static_cast<std::size_t>(count), State::Free);
}

bool TextureRing::allocate(int width, int height) {
  if (allocated() && width == width_ && height == height_) return false;
  if (width < 1 || height < 1) throw std::invalid_argument("TextureRing: size must be at least 1x1");
  release();
  try {
    textures_.resize(states_.size());
    for (Texture& texture : textures_) texture.resize(width, height);
  } catch (const GlError&) {
    release();
    throw;
  }
  width_ = width;
  height_ = height;
  return true;
}

void TextureRing::release() {
  if (!mapped().empty()) throw std::logic_error("TextureRing::release with a texture still mapped");
  textures_.clear();
  width_ = height_ = 0;
  states_.assign(states_.size(), State::Free);
  write_ = 0;
  shown_ = -1;
}

std::vector<int> TextureRing::ahead_indices() const {
  std::vector<int> result;
  for (int k = 0; k < count(); ++k) {
    const int index = (write_ + k) % count();
    if (states_[static_cast<std::size_t>(index)] == State::Free) result.push_back(index);
  }
  return result;
}

std::vector<int> TextureRing::mapped() const {
  std::vector<int> result;
  for (int i = 0; i < count(); ++i)
    if (states_[static_cast<std::size_t>(i)] == State::Mapped) result.push_back(i);
  return result;
}

void TextureRing::require(int index, State state, const char* step) const {
  if (index < 0 || index >= count())
    throw std::logic_error(std::string("TextureRing::") + step + ": no texture " + std::to_string(index));
  const State actual = states_[static_cast<std::size_t>(index)];
  if (actual != state)
    throw std::logic_error(std::string("TextureRing::") + step + ": texture " + std::to_string(index) + " is " +
                           state_name(actual) + ", not " + state_name(state));
}

void TextureRing::mark_mapped(int index) {
  // The only texture may be written again once shown: its drawings so far are issued, and the map
  // orders the writer after them. With more, a shown texture stays drawn until another is shown.
  if (count() == 1 && index == 0 && shown_ == 0) {
    states_[0] = State::Mapped;
    shown_ = -1;
    return;
  }
  require(index, State::Free, "mark_mapped");
  states_[static_cast<std::size_t>(index)] = State::Mapped;
}

void TextureRing::mark_unmapped(int index, bool written) {
  require(index, State::Mapped, "mark_unmapped");
  states_[static_cast<std::size_t>(index)] = written ? State::Written : State::Free;
}

void TextureRing::show() {
  require(write_, State::Written, "show");
  if (shown_ >= 0) states_[static_cast<std::size_t>(shown_)] = State::Free;
  states_[static_cast<std::size_t>(write_)] = State::Shown;
  shown_ = write_;
  write_ = (write_ + 1) % count();
}

void TextureRing::forget_shown() {
  if (shown_ < 0) return;
  states_[static_cast<std::size_t>(shown_)] = State::Free;
  shown_ = -1;
}

}  // namespace gausslab
