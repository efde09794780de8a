#pragma once
// The display textures of one result slot on the interop path, written in turn, and the order in
// which each may be mapped, written, unmapped and shown.
//
// CUDA writes a slot's result straight into one of these textures (ResultPipeline registers each
// once and maps it only around the copy into it); GL draws the one shown. Why more than one:
// mapping a texture for CUDA (cudaGraphicsMapResources) orders the CUDA stream after *every* GL
// command issued before the map, not only after those that read that texture, and takes about
// 0.32 ms on the H200 even with GL idle (GlInterop.LargeResultsReachTheTextureWhole). With one
// texture, mapped each frame, the copy waited for that and for the previous frame's drawing. With
// more, every texture that is drawn no more is mapped ahead, right after this frame's is unmapped
// and before this frame's drawing is issued (ResultPipeline maps on a stream of its own, so that
// only the copy into that texture, frames later, waits for the map): with three, a texture is
// mapped two frames before it is written.
//
// A frame, for the texture write_index():
//   map it unless it was mapped ahead (mark_mapped) → write → unmap (mark_unmapped) → show():
//   it is the one drawn from now on, the one shown before is Free → map ahead_indices() for the
//   next frames (mark_mapped).
// States: Free (not drawn from now on; every GL command that reads it has been issued), Mapped (the
// writer owns it; GL must not touch it), Written (unmapped, holding a result not yet shown), Shown
// (the one GL draws). A texture is mapped only when Free, or when it is the only one and Shown (it
// is then drawn no more until written again), so a map always comes after the GL commands that
// read the texture's previous contents. With one texture there is nothing to map ahead.
//
// The writer is CUDA in ResultPipeline; tests on machines without CUDA let the host write instead
// (Texture::upload where CUDA would copy), with the same protocol. The state logic needs no GL
// context until allocate().
#include <vector>

#include "gausslab/render/texture.hpp"

namespace gausslab {

class TextureRing {
 public:
  enum class State { Free, Mapped, Written, Shown };
  static constexpr int kDefaultCount = 2;

  explicit TextureRing(int count = kDefaultCount);  // count >= 1
  TextureRing(const TextureRing&) = delete;
  TextureRing& operator=(const TextureRing&) = delete;

  // Makes `count` RGBA8 textures of width × height, all Free, write_index() 0, none shown. Does
  // nothing and returns false when they already have that size. Throws GlError (and holds no
  // textures) when GL cannot make them. No texture may be Mapped.
  bool allocate(int width, int height);
  // Deletes the textures (unregister them from CUDA first; none may be Mapped).
  void release();
  bool allocated() const { return !textures_.empty(); }

  int count() const { return static_cast<int>(states_.size()); }
  int width() const { return width_; }
  int height() const { return height_; }
  Texture& texture(int index) { return textures_.at(static_cast<std::size_t>(index)); }
  const Texture& texture(int index) const { return textures_.at(static_cast<std::size_t>(index)); }
  State state(int index) const { return states_.at(static_cast<std::size_t>(index)); }

  // The texture this frame's result goes into.
  int write_index() const { return write_; }
  // The textures to map now for the next frames: every Free one, write_index() first (after
  // show(), with two textures or more; none with one). Call after this frame's result is shown,
  // before GL draws it.
  std::vector<int> ahead_indices() const;
  // The texture holding the result to draw, or -1 (none yet, or it is being written again).
  int shown_index() const { return shown_; }
  // Every Mapped texture (to unmap before release() or before the textures are given up).
  std::vector<int> mapped() const;

  // State changes; each throws std::logic_error when the texture is not in a state it may leave so.
  void mark_mapped(int index);                  // Free (or the only one, Shown) → Mapped
  void mark_unmapped(int index, bool written);  // Mapped → Written (a result) or Free (no result)
  // write_index(): Written → Shown, and the texture shown before → Free (its last drawing is
  // issued: GL draws the new one from now on); the ring moves on.
  void show();
  // The shown texture → Free: the slot shows something else now (a host result, nothing).
  void forget_shown();

 private:
  void require(int index, State state, const char* step) const;

  std::vector<State> states_;
  std::vector<Texture> textures_;  // empty until allocate()
  int width_ = 0, height_ = 0;
  int write_ = 0;
  int shown_ = -1;
};

}  // namespace gausslab
