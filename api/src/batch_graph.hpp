#pragma once
// A batch of device images (ImageRef::batch > 1) as one CUDA graph launch on the caller's stream.
//
// The GPU methods filter one image per run. The batch's runs (each image's kernels, in order) are
// captured once into a CUDA graph and replayed with one cudaGraphLaunch per call: a batch of 64 is
// one launch call from the host and no per-image host work; the kernels inside are still per image.
// A graph holds the images' addresses, so it is kept per (addresses, pitches, strides, count): the
// first call with new arrays runs the plain per-image loop and remembers them, and the second call
// with the same arrays captures the graph (a pipeline that reuses its buffers pays the capture once;
// one that passes new arrays every call never pays it). The last kKeptGraphs graphs are kept.
//
// The captured runs belong to an instance of the method of their own, run only on a private stream,
// so that its run fence (cuda/run_fence.hpp) never has to wait across a capture: before the first
// capture it runs image 0 once (its one-time work: weights uploads), and after every capture it runs
// image 0 once more outside the graph, which leaves its fence on an event recorded outside a capture
// (an event last recorded in a capture cannot be waited on). Those runs cost one image each on the
// capture call only. The private stream is ordered after the caller's stream by events; the graph
// launches go to the caller's stream, and a launch on another stream first waits for the last one.
//
// Not thread-safe (a Filter's State owns it, used by one thread at a time).
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab::api_internal {

// A batch: image i of src at src.data + i × src_stride (dst likewise), all of the prepared shape.
struct BatchViews {
  ConstImageView src;
  ImageView dst;
  std::size_t src_stride = 0, dst_stride = 0;
  int count = 0;

  ConstImageView source(int i) const;
  ImageView destination(int i) const;
};

class BatchGraph {
 public:
  static constexpr std::size_t kKeptGraphs = 4;

  // `method`: the instance the graphs capture (a new one, prepared for `problem` on first use).
  BatchGraph(std::unique_ptr<Method> method, FilterProblem problem);
  ~BatchGraph();  // waits for the last launch, then frees the graphs and the instance
  BatchGraph(const BatchGraph&) = delete;
  BatchGraph& operator=(const BatchGraph&) = delete;

  enum class Outcome {
    Launched,   // one cudaGraphLaunch on the caller's stream ran the batch
    FirstSeen,  // new arrays: remembered; the caller runs the loop (the next call captures)
    Loop,       // graphs do not work for this method (unsupported() says why): the caller loops
    InCapture,  // the caller's stream is being captured into a graph of its own: the caller loops
                // (the images' runs go into the caller's graph)
  };
  // Runs `batch` on `stream` as one graph launch where it can. Throws the methods' and CUDA's errors;
  // a failed capture is not an error: it returns Loop and unsupported() says why.
  Outcome run(const BatchViews& batch, cudaStream_t stream);

  // Why batches of this instance run as a loop (a capture failed), empty while graphs work.
  const std::string& unsupported() const { return unsupported_; }

 private:
  struct Key {
    const void* src = nullptr;
    void* dst = nullptr;
    std::size_t src_pitch = 0, dst_pitch = 0, src_stride = 0, dst_stride = 0;
    int count = 0;
    bool operator==(const Key& o) const;
  };
  struct Kept {
    Key key;
    cudaGraphExec_t exec = nullptr;
  };

  cudaGraphExec_t capture(const BatchViews& batch, cudaStream_t stream);
  void run_first_image(const BatchViews& batch);

  std::unique_ptr<Method> method_;  // declared first: destroyed after the waits of ~BatchGraph
  FilterProblem problem_;
  bool prepared_ = false, warmed_ = false;
  cudaStream_t capture_stream_ = nullptr;
  cudaEvent_t handoff_ = nullptr;  // the caller's stream → the capture stream and back
  cudaEvent_t done_ = nullptr;     // after the last graph launch
  bool launched_ = false;
  cudaStream_t last_stream_ = nullptr;
  std::vector<Kept> graphs_;  // most recently used first
  std::vector<Key> seen_;     // arrays run once as a loop, most recent first
  std::string unsupported_;
};

}  // namespace gausslab::api_internal
