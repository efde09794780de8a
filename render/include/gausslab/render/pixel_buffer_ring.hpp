#pragma once
// The OpenGL pixel buffers through which one result slot reaches its texture, used in turn, and the
// order in which they may be mapped, written, unmapped and uploaded.
//
// Why a ring: mapping a buffer for CUDA (cudaGraphicsMapResources) orders the CUDA stream after
// *every* GL command issued before the map, not only after those that read that buffer. With one
// buffer mapped at the start of each frame, CUDA waited for the whole previous frame's GL work
// (upload, image, ImGui) and GL then waited for CUDA: the two queues never overlapped. With a ring
// the next frame's buffer is mapped right after this frame's buffer is unmapped, before this
// frame's upload and drawing are issued: CUDA writes buffer k+1 while GL still copies buffer k.
// (On the H100 that needs padded rows as well: see pixel_buffer_row_pixels below.)
//
// A frame, for the buffer write_index():
//   map it unless it was mapped ahead (mark_mapped) → write → unmap (mark_unmapped)
//   → map ahead_index() for the next frame (mark_mapped) → upload(texture): the next buffer becomes
//     write_index().
// States: Free (no writer; every GL command that reads it has been issued), Mapped (the writer owns
// it; GL must not touch it), Written (unmapped, holding the result that the next upload copies).
// A buffer is mapped only when Free, so a map always comes after the GL commands that read the
// buffer's previous contents. With two buffers or more, ahead_index() is the buffer after the one
// just written; with one, there is nothing to map ahead (its result still waits for its upload).
//
// The writer is CUDA in ResultPipeline (it registers buffer(i) and maps it); map_host/unmap_host
// let the host write instead (tests on machines without CUDA, which use the same protocol).
// The state logic needs no GL context until allocate().
#include <cstddef>
#include <vector>

namespace gausslab {

class Texture;

// The row length, in pixels, that the pipeline gives its pixel buffers for an image `width` pixels
// wide: width, or width + 1 when width·4 bytes is a multiple of 32. Measured on the H100 (driver
// 580; GlInterop tests, and the viewer at 3840x2160 and 4096x4096, sigma 2, separable_shared):
// from a buffer whose row pitch is a multiple of 64 bytes GL copies into the texture on a slower
// path (0.66 ms for 3840x2160, 1.33 ms for 4096x4096), and CUDA's map of the next buffer then
// waited for all of the frame's GL work and ~0.35 ms more, wherever it was issued: CUDA and GL
// never overlapped (frame 1.45 ms at 3840x2160). With one pixel more per row the copy alone takes
// 0.415 / 0.81 ms, the map's wait (0.59 ms) no longer spans the frame's GL work (0.80 ms), and the
// frame takes 0.83 ms (4096x4096: 2.39 -> 1.29 ms). Not measured in the viewer: small images (at
// 512x512 the copy alone went from 0.027 to 0.033 ms) and pitches that are a multiple of 32 but not
// of 64 bytes; these are padded too, so that every pitch is of the kind measured fast (a multiple
// of 4 bytes, not of 32). Methods see the padding as the pitch of their output view.
int pixel_buffer_row_pixels(int width);

class PixelBufferRing {
 public:
  enum class State { Free, Mapped, Written };
  static constexpr int kDefaultCount = 2;

  explicit PixelBufferRing(int count = kDefaultCount);  // count >= 1
  ~PixelBufferRing();
  PixelBufferRing(const PixelBufferRing&) = delete;
  PixelBufferRing& operator=(const PixelBufferRing&) = delete;

  // Makes `count` pixel buffers of width × height RGBA8 with rows of row_pixels pixels (0: width,
  // tightly packed), all Free, write_index() 0. Does nothing and returns false when they already
  // have that shape. Throws GlError (and holds no buffers) when GL cannot make them. No buffer may
  // be Mapped.
  bool allocate(int width, int height, int row_pixels = 0);
  // Deletes the buffers (unregister them from CUDA first; none may be Mapped).
  void release();
  bool allocated() const { return !buffers_.empty(); }

  int count() const { return static_cast<int>(states_.size()); }
  int width() const { return width_; }
  int height() const { return height_; }
  int row_pixels() const { return row_pixels_; }
  std::size_t pitch_bytes() const { return static_cast<std::size_t>(row_pixels_) * 4; }
  std::size_t buffer_bytes() const { return pitch_bytes() * static_cast<std::size_t>(height_); }
  unsigned buffer(int index) const { return buffers_.at(static_cast<std::size_t>(index)); }
  State state(int index) const { return states_.at(static_cast<std::size_t>(index)); }

  // The buffer this frame's result goes into.
  int write_index() const { return write_; }
  // The buffer to map now for the next frame: the one after write_index() when it is Free, else -1.
  // Call after this frame's buffer is unmapped and before its upload is issued.
  int ahead_index() const;
  // Every Mapped buffer (to unmap before release() or before the buffers are given up).
  std::vector<int> mapped() const;

  // State changes; each throws std::logic_error when the buffer is not in the state it leaves.
  void mark_mapped(int index);                  // Free → Mapped
  void mark_unmapped(int index, bool written);  // Mapped → Written (a result) or Free (no result)
  void mark_uploaded();  // write_index(): Written → Free once its upload is issued; the ring moves on
  // Copies buffer write_index() (Written) into the texture on the GPU, then mark_uploaded(). The
  // texture must have the ring's size.
  void upload(Texture& texture);

  // The host as the writer: glMapBufferRange (write, invalidate) of a Free buffer / glUnmapBuffer.
  void* map_host(int index);
  void unmap_host(int index, bool written);

 private:
  void require(int index, State state, const char* step) const;

  std::vector<State> states_;
  std::vector<unsigned> buffers_;  // GL buffer names; empty until allocate()
  int width_ = 0, height_ = 0, row_pixels_ = 0;
  int write_ = 0;
};

}  // namespace gausslab
