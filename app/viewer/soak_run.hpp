#pragma once
// --soak N: N frames that cycle through every setting the mode has (its soak_cycle: one step every
// few frames, window sizes included), with the memory in use (device and host RSS) measured after
// the first whole cycle and at the same step of every later one, so that growth shows (issue 11:
// memory must stay flat).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "viewer/viewer_mode.hpp"

namespace gausslab {

class SoakRun {
 public:
  explicit SoakRun(int frames) : frames_(frames) {}

  bool active() const { return frames_ > 0; }
  // Before frame `frame`: every kStepFrames frames the cycle's next step (through the mode, or a
  // new size of the surface).
  void step(int frame, ViewerMode& mode, GlSurface& surface);
  // "gausslab: soak frames=N steps=S cycle=C warm_frame=F ... rss_mib_end=M ...".
  std::string report(long long frames_drawn) const;

 private:
  struct MemoryInUse {
    long long frame = 0;
    std::optional<long long> device;
    long long rss = 0;
  };
  static MemoryInUse measure(long long frame);

  int frames_;
  std::vector<std::pair<std::string, std::string>> cycle_;
  std::optional<MemoryInUse> warm_;
  // Memory in use at the same point of every later cycle (its first step): what is in use depends
  // on the step (window size, view, methods), so growth shows only between the same steps.
  std::vector<MemoryInUse> cycle_starts_;
};

}  // namespace gausslab
