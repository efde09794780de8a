#pragma once
// Display textures whose memory CUDA allocates and OpenGL imports (GL_EXT_memory_object_fd), so
// that CUDA writes them through a surface object with no map or unmap per frame.
//
// Why: a registered texture (cudaGraphicsGLRegisterImage) must be mapped for CUDA and unmapped for
// GL around every write, and each map orders CUDA after GL work issued before it. How: cuMemCreate
// with a POSIX file descriptor, the descriptor imported twice, by GL (glImportMemoryFdEXT,
// glTexStorageMem2DEXT: the texture's storage) and by CUDA (cudaImportExternalMemory, then the same
// RGBA8 image as a CUDA array): the driver lays both out alike, which SharedTextureRing::allocate
// checks once on a small texture before it is trusted.
//
// Measured (NVIDIA H200, 2026-12-02, the viewer offscreen at 3840x2160 in a 1920x1080 view, both
// kinds alternating in one device call): shared textures 1.08-1.22 ms a frame, registered ones
// 0.90-0.97 ms (σ 2 to 64; 4096² split against the exact Gaussian 1.05-1.20 against 1.01). The map
// is gone (GlInterop.LargeResultsReachTheTextureWhole: map_wait 1.13 ms registered, none shared),
// yet the frame's draw then waits 0.7-0.8 ms for the copies (GAUSSLAB_FRAME_TRACE_MS): the GPU
// spends about that long per frame alternating GL's drawing and CUDA's runs, and with registered
// textures that wait falls on the map stream instead of the host. So registered textures stay the
// default (result_pipeline.hpp); these are there to compare (GAUSSLAB_SHARED_TEXTURES=1) and for
// GPUs whose maps cost more than their context switches.
//
// Nothing orders GL's reads and CUDA's writes of such memory: SharedTextureRing does. Each texture
// gets a GL fence when it stops being shown (its last draw is issued), and the host waits for that
// fence before CUDA writes it again (with three textures, two frames later: long signalled); GL
// draws a texture only after the host has seen the CUDA stream finish the write (the caller's
// cudaEventSynchronize: CUDA cannot signal GL on the GPU without a semaphore GL exports, and GL
// exports none).
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "gausslab/render/texture.hpp"

namespace gausslab {

// Why shared textures cannot be used with the current GL context and CUDA device, or "" when they
// can (the GL extensions, CUDA's file-descriptor export, and the driver entry points they need).
// Needs the GL context current.
std::string shared_texture_unsupported_reason();

class SharedTexture {
 public:
  // An RGBA8 width × height texture in memory CUDA allocated. Throws std::runtime_error naming the
  // step that failed (GL or CUDA), holding nothing then.
  SharedTexture(int width, int height);
  ~SharedTexture();
  SharedTexture(const SharedTexture&) = delete;
  SharedTexture& operator=(const SharedTexture&) = delete;

  const Texture& texture() const { return texture_; }
  // Surface stores (x in bytes) write the texture's pixels.
  cudaSurfaceObject_t surface() const { return surface_; }

 private:
  struct Cuda;
  void release();

  Texture texture_;
  unsigned memory_object_ = 0;  // GL's import
  std::unique_ptr<Cuda> cuda_;
  cudaSurfaceObject_t surface_ = 0;
};

class SharedTextureRing {
 public:
  static constexpr int kDefaultCount = 3;
  explicit SharedTextureRing(int count = kDefaultCount);  // count >= 2
  ~SharedTextureRing();
  SharedTextureRing(const SharedTextureRing&) = delete;
  SharedTextureRing& operator=(const SharedTextureRing&) = delete;

  // Makes the textures (nothing when they already have this size; the previous ones must no longer
  // be written by CUDA). The first allocation in a process also checks that GL reads what CUDA
  // writes (a 64 × 64 pattern): throws std::runtime_error when it does not, or when a step fails.
  void allocate(int width, int height);
  // Deletes the textures; CUDA must no longer write them (synchronise its stream first).
  void release();
  bool allocated() const { return !textures_.empty(); }
  int width() const { return width_; }
  int height() const { return height_; }

  // The texture this frame's result goes into, once GL has finished reading it (a host wait on its
  // fence, normally signalled long since). Never the one shown.
  int acquire_for_write();
  cudaSurfaceObject_t surface(int index) const { return textures_.at(static_cast<std::size_t>(index))->surface(); }
  // `index` (written, its write finished on the host's view) is drawn from now on; the one shown
  // before gets its fence.
  void show(int index);
  // None is shown any more (the slot shows a host result): the shown one gets its fence.
  void forget_shown();
  int shown_index() const { return shown_; }
  const Texture& texture(int index) const { return textures_.at(static_cast<std::size_t>(index))->texture(); }

 private:
  void fence(int index);

  int count_;
  std::vector<std::unique_ptr<SharedTexture>> textures_;
  std::vector<void*> fences_;  // GLsync per texture, or null
  int width_ = 0, height_ = 0;
  int shown_ = -1;
  int next_ = 0;
};

}  // namespace gausslab
