#pragma once
// A grey float frame of the sequence engine shown through the viewer's result pipeline: to the
// pipeline this is a method (it writes the RGBA8 result into the device image the pipeline gives it,
// which the interop path copies straight into OpenGL's texture); it ignores the pipeline's source
// picture and maps the frame it was given (core/grey_display.hpp). The GPU variant makes the
// pipeline's stream wait for the engine's frame (an event, no host wait) and records when it has
// read it, so that the engine's next frame can wait for that before it overwrites the buffers.
#include <cuda_runtime.h>

#include "gausslab/core/grey_display.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/sequence/sequence_engine.hpp"

namespace gausslab {

class GreyDisplayMethod final : public Method {
 public:
  // `backend`: where the frames live (the engine's backend); `id`: for the stage name and messages.
  GreyDisplayMethod(SequenceBackend backend, std::string id, std::string label);
  ~GreyDisplayMethod() override;
  GreyDisplayMethod(const GreyDisplayMethod&) = delete;
  GreyDisplayMethod& operator=(const GreyDisplayMethod&) = delete;

  // What the next run() shows: a grey float view (device memory for the GPU variant, readable once
  // `ready` has completed on any stream; null: at once), mapped with `mapping`.
  void show(const ConstImageView& frame, const GreyMapping& mapping, cudaEvent_t ready);
  // Recorded on the pipeline's stream after each GPU run: the frame has been read (null before).
  cudaEvent_t read_done() const { return read_done_; }
  bool has_frame() const { return frame_.data != nullptr; }

  const MethodInfo& info() const override { return info_; }
  std::string unsupported_reason(const FilterProblem& problem) const override;
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }
  void prepare(const FilterProblem& problem) override;
  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override;

 private:
  MethodInfo info_;
  SequenceBackend backend_;
  ConstImageView frame_;
  GreyMapping mapping_;
  cudaEvent_t ready_ = nullptr;
  cudaEvent_t read_done_ = nullptr;
};

}  // namespace gausslab
