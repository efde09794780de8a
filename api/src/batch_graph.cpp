// BatchGraph: a batch of device images as one CUDA graph launch (batch_graph.hpp says how and why).
#include "batch_graph.hpp"

#include <algorithm>
#include <utility>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab::api_internal {

ConstImageView BatchViews::source(int i) const {
  return {static_cast<const char*>(src.data) + src_stride * static_cast<std::size_t>(i), src.width, src.height,
          src.pitch_bytes, src.format};
}

ImageView BatchViews::destination(int i) const {
  return {static_cast<char*>(dst.data) + dst_stride * static_cast<std::size_t>(i), dst.width, dst.height,
          dst.pitch_bytes, dst.format};
}

bool BatchGraph::Key::operator==(const Key& o) const {
  return src == o.src && dst == o.dst && src_pitch == o.src_pitch && dst_pitch == o.dst_pitch &&
         src_stride == o.src_stride && dst_stride == o.dst_stride && count == o.count;
}

BatchGraph::BatchGraph(std::unique_ptr<Method> method, FilterProblem problem)
    : method_(std::move(method)), problem_(std::move(problem)) {}

BatchGraph::~BatchGraph() {
  if (launched_) GAUSSLAB_CUDA_LOG(cudaEventSynchronize(done_));  // the graphs read the instance's scratch
  for (Kept& kept : graphs_) GAUSSLAB_CUDA_LOG(cudaGraphExecDestroy(kept.exec));
  if (done_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(done_));
  if (handoff_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(handoff_));
  if (capture_stream_) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(capture_stream_));
}

BatchGraph::Outcome BatchGraph::run(const BatchViews& batch, cudaStream_t stream) {
  if (!unsupported_.empty()) return Outcome::Loop;
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  GAUSSLAB_CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
  if (capturing != cudaStreamCaptureStatusNone) return Outcome::InCapture;
  const Key key{batch.src.data, batch.dst.data, batch.src.pitch_bytes, batch.dst.pitch_bytes,
                batch.src_stride, batch.dst_stride, batch.count};
  auto kept = std::find_if(graphs_.begin(), graphs_.end(), [&](const Kept& k) { return k.key == key; });
  if (kept == graphs_.end()) {
    auto seen = std::find(seen_.begin(), seen_.end(), key);
    if (seen == seen_.end()) {  // new arrays: the loop this time, a graph if they come again
      if (seen_.size() == kKeptGraphs) seen_.pop_back();
      seen_.insert(seen_.begin(), key);
      return Outcome::FirstSeen;
    }
    seen_.erase(seen);
    cudaGraphExec_t exec = nullptr;
    try {
      exec = capture(batch, stream);
    } catch (const CudaError& e) {
      unsupported_ = std::string("the CUDA graph capture failed: ") + e.what();
      return Outcome::Loop;
    }
    if (graphs_.size() == kKeptGraphs) {  // freed once its launches in flight are done
      GAUSSLAB_CUDA_LOG(cudaGraphExecDestroy(graphs_.back().exec));
      graphs_.pop_back();
    }
    graphs_.insert(graphs_.begin(), Kept{key, exec});
  } else {
    std::rotate(graphs_.begin(), kept, kept + 1);
  }
  if (launched_ && last_stream_ != stream) GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, done_, 0));
  GAUSSLAB_CUDA_CHECK(cudaGraphLaunch(graphs_.front().exec, stream));
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_, stream));
  launched_ = true;
  last_stream_ = stream;
  return Outcome::Launched;
}

void BatchGraph::run_first_image(const BatchViews& batch) {
  method_->run(batch.source(0), batch.destination(0), nullptr, capture_stream_);
}

cudaGraphExec_t BatchGraph::capture(const BatchViews& batch, cudaStream_t stream) {
  if (!capture_stream_) GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
  if (!handoff_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&handoff_, cudaEventDisableTiming));
  if (!done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  if (!prepared_) {
    method_->prepare(problem_);
    prepared_ = true;
  }
  // The capture stream's own runs (image 0 before and after) come after the caller's work so far
  // and after the last graph launch, which used the same scratch.
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(handoff_, stream));
  GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(capture_stream_, handoff_, 0));
  if (launched_) GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(capture_stream_, done_, 0));
  if (!warmed_) {  // the instance's one-time work (weights uploads) outside the graph
    run_first_image(batch);
    warmed_ = true;
  }
  cudaGraph_t graph = nullptr;
  GAUSSLAB_CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
  cudaError_t ended = cudaSuccess;
  try {
    for (int i = 0; i < batch.count; ++i) method_->run(batch.source(i), batch.destination(i), nullptr, capture_stream_);
  } catch (...) {
    (void)cudaStreamEndCapture(capture_stream_, &graph);
    if (graph) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    try {
      run_first_image(batch);  // the fence's event recorded outside the capture again
    } catch (const std::exception&) {
      // the capture's failure is the one to report
    }
    throw;
  }
  ended = cudaStreamEndCapture(capture_stream_, &graph);
  cudaGraphExec_t exec = nullptr;
  if (ended == cudaSuccess) ended = cudaGraphInstantiate(&exec, graph, 0);
  if (graph) GAUSSLAB_CUDA_LOG(cudaGraphDestroy(graph));
  // The instance's fence was last recorded inside the capture: one run outside it records it again
  // (image 0, as the graph will also write it), then the caller's stream waits for that run.
  run_first_image(batch);
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(handoff_, capture_stream_));
  GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, handoff_, 0));
  if (ended != cudaSuccess) {
    (void)cudaGetLastError();
    throw CudaError(ended, std::string("capturing the batch of ") + std::to_string(batch.count) + " images: " +
                               cudaGetErrorString(ended));
  }
  return exec;
}

}  // namespace gausslab::api_internal
