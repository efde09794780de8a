#pragma once
// The interop class: how the methods' results reach the screen, on one of three paths.
//   interop  the method writes a device image of the pipeline's, and a kernel copies it through a
//            surface object (cuda/surface_copy.hpp) straight into the OpenGL texture that is drawn
//            (each registered once per image size with cudaGraphicsGLRegisterImage for surface
//            stores; mapped from before that copy until just after it). No host copies, no host waits, no
//            GL copy. Each slot cycles through three textures (TextureRing): every texture drawn no
//            more is mapped ahead (all slots in one call, on a stream of the pipeline's own) right
//            after this frame's is unmapped and before its drawing is issued, so a map waits for
//            earlier frames' drawing only, two frames before the copy into that texture waits for
//            it, and neither the runs nor the copies wait for GL in the frame.
//   staging  registration or mapping failed (GL on another GPU or on Mesa: cudaErrorUnknown,
//            cudaErrorOperatingSystem, ...): the method writes a device image, which is copied to
//            pinned host memory and uploaded. One host wait per processed frame.
//   cpu      no CUDA device (or --path cpu): only CPU methods run, into host memory, then upload.
// CPU methods run into host memory on every path (the CPU-versus-GPU comparison is one click).
// Slot 0 is result A, slot 1 result B of the comparison view.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/run_clock.hpp"

namespace gausslab {

enum class OutputPath : int { Interop, Staging, Cpu, Count };

const char* to_string(OutputPath path);  // "interop", "staging", "cpu"
std::optional<OutputPath> output_path_from_string(std::string_view name);

// True for the stages the pipeline itself records in a method's StageTimer ("map", "to_texture",
// "unmap", "map_next", "download", "wait"), as opposed to the method's own stages. Interop: "map"
// only in a frame whose textures were not mapped ahead (it then waits for all GL work issued
// before it), "to_texture" (the copies into the textures), "unmap", and "map_next", the map of the
// next frame's textures (the stream's wait for GL work of earlier frames); result_pipeline.cpp
// says exactly what each event pair spans.
bool is_pipeline_stage(std::string_view stage);

class ResultPipeline {
 public:
  static constexpr int kSlots = 2;

  struct Job {
    Method* method = nullptr;     // prepared for the source's size, RGBA8; null: leave the slot alone
    StageTimer* timer = nullptr;  // the method's stages (and the pipeline's for the first GPU job)
    std::uint64_t tag = 0;        // non-zero: the GPU run is timed as a whole (take_run_times)
  };

  // best_allowed: Interop tries interop and falls back to staging; Staging skips interop; Cpu runs
  // CPU methods only. Without a CUDA device the path is Cpu whatever was asked. Needs the GL
  // context current; all later calls must come from the same thread. textures_per_slot: the
  // textures each slot cycles through on the interop path (1: each frame maps its own after its
  // runs, and the copy waits for the map; 2: each is mapped a frame before it is written; 3: two
  // frames before). The viewer at 3840x2160 on the H200 (docs/results/h200/): 0.91 ms a frame with
  // 3, 1.86 ms with 2, where the map ahead was not done in time for its copy.
  explicit ResultPipeline(OutputPath best_allowed, int textures_per_slot = 3);
  ~ResultPipeline();
  ResultPipeline(const ResultPipeline&) = delete;
  ResultPipeline& operator=(const ResultPipeline&) = delete;

  OutputPath path() const;
  // Why this path: "CUDA and OpenGL share ...", "cudaGraphicsGLRegisterBuffer failed: ...", ...
  const std::string& path_reason() const;
  // Empty, or how many maps ahead of later frames failed and the last error (the interop path then
  // maps those textures when it writes them, which works but waits for GL in the frame).
  std::string map_ahead_problem() const;
  bool runs_gpu_methods() const { return path() != OutputPath::Cpu; }
  // After a CUDA failure that leaves the device unusable (a lost context, a sticky launch error):
  // drops every CUDA resource it can, and goes on as the cpu path with `why` as the reason.
  void fall_back_to_cpu(const std::string& why);

  // Takes a new source picture: kept on the host (CPU methods, the reference), uploaded once to the
  // device (GPU paths) and to the source texture. Outputs follow its size; the interop textures
  // are made and registered with CUDA again only when the size changes. Waits for queued work first.
  void set_source(ImageRgba8 image);
  const ImageRgba8& source() const;
  int width() const;
  int height() const;

  // Runs each job's method on the source into its slot and puts the result into a texture to draw:
  // a GPU method's on the interop path by CUDA (stages "to_texture" etc. in the first GPU job's
  // timer), every other by a GL upload (GL stages "upload" and "upload_b" in gl_timer if given:
  // GL_TIME_ELAPSED around each glTexSubImage2D). Throws what the method throws
  // (std::invalid_argument, CudaError); a failure to map switches to the staging path instead.
  void process(const std::array<Job, kSlots>& jobs, GlTimer* gl_timer);
  // The same with 2x2 pooling after the blur (the viewer's pooling toggle): GPU methods blur and
  // pool on the GPU (cuda/pooling.hpp: fused into the last pass where the method can, else a
  // separate kernel), CPU methods with core's pool_2x2; the pooled result (half the size, odd sides
  // rounded down) goes to the slot's texture through host memory on every path (a quarter of the
  // pixels; one host wait per processed frame, stage "wait"). mode must not be PoolMode::None.
  void process_pooled(const std::array<Job, kSlots>& jobs, PoolMode mode, GlTimer* gl_timer);

  // Shows a result made elsewhere (a CPU method on a worker thread, the exact Gaussian) in a slot,
  // a band per frame (render/banded_upload.hpp: 64 MiB in one glTexSubImage2D held a frame up for
  // 80-120 ms): this call and each continue_host_uploads copy the next band (GL stage "upload" or
  // "upload_b" in gl_timer if given), and the slot's texture takes the image after the last one;
  // then host_upload_pending(slot) is false and has_result(slot) true. Until then the slot shows
  // its last result. A newer result for the slot (this call, process, show_device_result,
  // clear_result, set_source) replaces an unfinished upload. The image must have the source's size,
  // or the pooled size (pooled_side of each: then result_is_pooled(slot)); std::invalid_argument
  // otherwise. GlError when the host pixel buffer (banded_upload.hpp) cannot be mapped.
  void show_host_result(int slot, std::shared_ptr<const ImageRgba8> image, GlTimer* gl_timer);
  void continue_host_uploads(GlTimer* gl_timer);
  bool host_upload_pending(int slot) const;
  // Shows a result made on the device (a sliced run's, render/sliced_run.hpp): copied on the stream
  // from where it is into the slot's next texture (interop) or through host memory into its texture
  // (staging), like a method's result. The view must have the source's size, RGBA8
  // (std::invalid_argument otherwise); std::logic_error on the cpu path.
  void show_device_result(int slot, const ConstImageView& image, GlTimer* gl_timer);
  // The source on the device (empty on the cpu path): what sliced runs read.
  ConstImageView device_source() const;
  // GPU times of the tagged jobs' whole runs that have finished since the last call (no waiting).
  std::vector<ClockReading> take_run_times();

  // A diagnostic: `mark(step)` is called after each step of process (the writes, the map, the copies
  // into the textures, the unmap, the next frame's map), so that a frame trace (app/viewer/frame_trace.hpp) can charge its host time.
  void set_trace_marks(std::function<void(const char*)> mark);

  // Forgets a slot's result (it shows nothing new until the next process or show_host_result).
  void clear_result(int slot);

  unsigned source_texture() const;
  // The texture holding the slot's result: on the interop path one of the slot's ring, so it
  // changes from frame to frame; ask each frame, and draw it before the next process.
  unsigned result_texture(int slot) const;
  // True once the slot holds a result for the current source.
  bool has_result(int slot) const;
  // True when the slot's texture holds a pooled result (half the source's size).
  bool result_is_pooled(int slot) const;
  // The full-resolution result of a slot, read back from its texture (synchronous).
  ImageRgba8 read_result(int slot) const;

  // The stream the GPU methods run on (null on the cpu path).
  cudaStream_t stream() const;
  // Waits for all queued CUDA work.
  void synchronize();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gausslab
