#pragma once
// GPU times of OpenGL stages (upload, draw, ui) from GL_TIME_ELAPSED queries, read a few frames
// later without blocking, with rolling medians: the GL counterpart of StageTimer.
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "gausslab/cuda/stage_timer.hpp"  // StageTiming

namespace gausslab {

class GlTimer {
 public:
  // ring_frames: frames whose queries may be in flight; history: completed frames for the medians.
  explicit GlTimer(int ring_frames = 4, int history = 60);
  ~GlTimer();
  GlTimer(const GlTimer&) = delete;
  GlTimer& operator=(const GlTimer&) = delete;

  // Opens a frame (harvests completed frames first). A slot still pending after a whole ring of
  // frames is dropped, never waited for.
  void begin_frame();
  void end_frame();
  // A stage: one query around the GL commands issued between begin and end. Stages must not nest.
  void begin(const char* stage);
  void end();
  // Switched off, every call above does nothing and no query is made (to measure what the queries
  // cost a frame: GAUSSLAB_FRAME_OMIT=gl_timer).
  void set_enabled(bool enabled) { enabled_ = enabled; }

  // Harvests every completed frame without blocking.
  void poll();
  // Waits for all recorded frames (end of a timed run).
  void flush();

  // Every stage of the kept frames in frame order, each with its latest time and its median over
  // the frames it ran in (an upload runs only in frames with a new result).
  std::vector<StageTiming> stages() const;
  int completed_frames() const { return completed_frames_; }
  void reset_history() { samples_.clear(); }

 private:
  bool enabled_ = true;
  struct Query {
    std::string name;
    unsigned id = 0;
  };
  struct Slot {
    std::vector<Query> queries;  // created once, reused
    int used = 0;
    bool pending = false;
  };
  bool harvest(Slot& slot, bool wait);

  std::vector<Slot> ring_;
  int current_ = -1;
  bool open_ = false;
  int history_;
  std::deque<std::vector<std::pair<std::string, double>>> samples_;
  int completed_frames_ = 0;
};

}  // namespace gausslab
