#pragma once
// An image sequence played frame by frame, for the viewer's sequence mode: the source, the engine,
// playback (play, pause, step, loop), the shifts over time for the plot, and the two displays the
// viewer's result pipeline shows as A (the frame) and B (the whitened or the pre-filtered frame).
// Between the engine's stream and the viewer's there are only events: the displays wait for the
// engine's frame, the engine's next frame waits until the displays have read the buffers it
// overwrites. No GL here (the viewer owns that); no host wait per frame on the GPU.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gausslab/core/grey_display.hpp"
#include "gausslab/sequence/frame_source.hpp"
#include "gausslab/sequence/grey_display_method.hpp"
#include "gausslab/sequence/sequence_engine.hpp"

namespace gausslab {

class PinnedStaging;  // sequence_player.cpp

struct PlayerSettings {
  SequenceSettings settings;
  std::string prefilter_id;  // a registered method, or empty for none
  FilterParams prefilter_params;
};
bool operator==(const PlayerSettings& a, const PlayerSettings& b);
inline bool operator!=(const PlayerSettings& a, const PlayerSettings& b) { return !(a == b); }

// Opens a viewer input: "synthetic" (the sky of `sky`), a folder, a video or one frame file... as
// gausslab-sequence does. Throws SequenceInputError.
std::unique_ptr<FrameSource> open_player_input(const std::string& input, const SyntheticSpec& sky);

class SequencePlayer {
 public:
  // Throws std::runtime_error when the backend cannot run here.
  explicit SequencePlayer(SequenceBackend backend);
  ~SequencePlayer();
  SequencePlayer(const SequencePlayer&) = delete;
  SequencePlayer& operator=(const SequencePlayer&) = delete;

  // Takes a new input and shows its first frame; on an error (SequenceInputError, a first frame that
  // cannot be read or used) the previous input stays and the error is thrown.
  void open(std::unique_ptr<FrameSource> source, std::string name, StageTimer* timer);
  // Other settings start the sequence over from its first frame (the history fills again). Throws
  // std::invalid_argument with the reason (an unknown or unsuitable pre-filter, a bad value); the
  // previous settings stay.
  void configure(const PlayerSettings& settings, StageTimer* timer);
  const PlayerSettings& settings() const { return settings_; }

  // Pushes the next frame (from the start again after the last one when `loop`; the history runs
  // on across the loop). Frames that cannot be read or have another size are skipped, with a
  // message in status(). False when there was nothing to push (the end without loop).
  bool advance(bool loop, StageTimer* timer);

  // Takes the outcomes of finished frames into shifts() (waiting for all with `wait`).
  void collect(bool wait);

  // The two displays, pointed at the latest frame by advance(): A the frame as read, B the
  // whitened frame or (show_filtered) the pre-filtered one. whitened_range: B's ± black/white
  // in estimated noise deviations.
  GreyDisplayMethod& display_a() { return *display_a_; }
  GreyDisplayMethod& display_b() { return *display_b_; }
  void set_display(bool show_filtered, double whitened_range);

  // Where the sequence is.
  bool is_open() const { return source_ != nullptr; }
  const std::string& name() const { return name_; }
  std::string description() const { return source_ ? source_->description() : std::string(); }
  int width() const { return width_; }
  int height() const { return height_; }
  int frame_count() const { return source_ ? source_->frame_count() : 0; }
  int current_index() const { return current_index_; }         // input index of the frame shown
  const std::string& current_name() const { return current_name_; }
  long long frames_pushed() const { return engine_ ? engine_->frames_pushed() : 0; }
  bool history_full() const { return frames_pushed() > settings_.settings.history; }
  const std::string& status() const { return status_; }
  double noise_estimate() const { return stats_.noise; }
  SequenceBackend backend() const { return backend_; }

  // Per input frame: the latest estimated shift (NaN where none yet or none possible).
  const std::vector<float>& dx() const { return dx_; }
  const std::vector<float>& dy() const { return dy_; }

  // Waits for everything queued (before the buffers or the GL context go).
  void synchronize();

 private:
  void restart(StageTimer* timer);
  bool push_next(StageTimer* timer, bool loop);
  void point_displays();

  SequenceBackend backend_;
  std::unique_ptr<SequenceEngine> engine_;
  std::unique_ptr<FrameSource> source_;
  std::unique_ptr<Method> prefilter_;
  std::unique_ptr<GreyDisplayMethod> display_a_, display_b_;
  cudaEvent_t frame_ready_ = nullptr;
  PlayerSettings settings_;
  std::string name_, current_name_, status_;
  int width_ = 0, height_ = 0, current_index_ = -1;
  std::unique_ptr<PinnedStaging> staging_;  // GPU: frames go up from page-locked memory
  std::deque<int> pending_inputs_;         // input index of each frame pushed and not yet collected
  FrameStatistics stats_;
  bool show_filtered_ = false;
  double whitened_range_ = 4.0;
  std::vector<float> dx_, dy_;
};

}  // namespace gausslab
