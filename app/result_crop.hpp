#pragma once
// A crop of a slot's result read back to the host for the accuracy probe, without the frame ever
// waiting: the copy is queued on the pipeline's stream from its result hook (device results: into
// pinned memory, then an event; host results: copied at once) and collected a frame or more later.
#include <cuda_runtime.h>

#include <optional>

#include "gausslab/core/image.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

class ResultCrop {
 public:
  ResultCrop() = default;
  ~ResultCrop();
  ResultCrop(const ResultCrop&) = delete;
  ResultCrop& operator=(const ResultCrop&) = delete;

  // A hook for ResultPipeline::Job that copies `rect` of the result. Throws std::invalid_argument
  // from the hook when rect lies outside the result. Only one crop is on its way at a time.
  ResultPipeline::ResultHook hook(const Rect& rect);
  bool in_flight() const { return state_ == State::InFlight; }
  // The crop once its copy has finished (or, with wait, after waiting for it); nullopt before, and
  // after it was handed over once.
  std::optional<ImageRgba8> take(bool wait);
  // Forgets a crop on its way (the picture changed); the pinned buffer stays for the next one.
  void discard() { state_ = State::Empty; }

 private:
  enum class State { Empty, InFlight, Ready };
  void copy(const ConstImageView& result, bool on_device, cudaStream_t stream);
  void ensure_pinned(std::size_t size_bytes);

  State state_ = State::Empty;
  Rect rect_;
  void* h_pinned_ = nullptr;  // page-locked: the only host memory an async copy really overlaps with
  std::size_t pinned_bytes_ = 0;
  cudaEvent_t done_ = nullptr;
  ImageRgba8 image_;
};

}  // namespace gausslab
