#include "gausslab/render/frame_pacer.hpp"

#include <algorithm>

#include "gl_util.hpp"

namespace gausslab {

namespace {
void wait_and_delete(void*& fence) {
  if (!fence) return;
  auto sync = static_cast<GLsync>(fence);
  // One second per try: a stuck GPU is not worth hanging the viewer for; the fence is dropped.
  glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
  glDeleteSync(sync);
  fence = nullptr;
}
}  // namespace

FramePacer::FramePacer(int max_frames_in_flight) : fences_(static_cast<std::size_t>(std::max(max_frames_in_flight, 1)), nullptr) {}

FramePacer::~FramePacer() {
  for (void*& fence : fences_)
    if (fence) glDeleteSync(static_cast<GLsync>(fence));
}

void FramePacer::wait_for_slot() { wait_and_delete(fences_[next_]); }

void FramePacer::frame_submitted() {
  if (fences_[next_]) glDeleteSync(static_cast<GLsync>(fences_[next_]));
  fences_[next_] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  next_ = (next_ + 1) % static_cast<int>(fences_.size());
}

int FramePacer::queued_frames() const {
  return static_cast<int>(std::count_if(fences_.begin(), fences_.end(), [](void* fence) { return fence != nullptr; }));
}

void FramePacer::drain() {
  for (void*& fence : fences_) wait_and_delete(fence);
}

}  // namespace gausslab
