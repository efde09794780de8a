#pragma once
// Keeps at most N frames queued on the GPU with GL fences: a frame waits for the one N frames
// before it, never for itself. Without this an offscreen context (no swap to throttle it) could
// queue frames without bound and host-side frame times would mean nothing.
#include <vector>

namespace gausslab {

class FramePacer {
 public:
  explicit FramePacer(int max_frames_in_flight = 2);
  ~FramePacer();
  FramePacer(const FramePacer&) = delete;
  FramePacer& operator=(const FramePacer&) = delete;

  // Before a frame: waits (with a time limit) for the frame that used this slot to finish.
  void wait_for_slot();
  // After a frame's last GL command.
  void frame_submitted();
  // Waits for every queued frame.
  void drain();
  // Frames submitted and not yet waited for (at most max_frames_in_flight).
  int queued_frames() const;

 private:
  std::vector<void*> fences_;  // GLsync
  int next_ = 0;
};

}  // namespace gausslab
