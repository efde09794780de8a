#include "viewer/soak_run.hpp"

#include <algorithm>
#include <cstdio>

#include "gausslab/render/gl_surface.hpp"
#include "viewer/memory_report.hpp"

namespace gausslab {

namespace {

constexpr int kStepFrames = 15;  // frames between two soak steps

}  // namespace

SoakRun::MemoryInUse SoakRun::measure(long long frame) {
  return MemoryInUse{frame, device_used_bytes(), host_rss_bytes()};
}

void SoakRun::step(int frame, ViewerMode& mode, GlSurface& surface) {
  if (cycle_.empty()) {
    cycle_ = mode.soak_cycle();
    if (cycle_.empty()) return;
  }
  if (frame % kStepFrames != 0) return;
  const std::size_t step = static_cast<std::size_t>(frame / kStepFrames);
  if (step == cycle_.size() + 1 && !warm_) warm_ = measure(frame);  // one whole cycle done: every buffer made once
  if (step > cycle_.size() && step % cycle_.size() == 1) cycle_starts_.push_back(measure(frame));
  const auto& [command, argument] = cycle_[step % cycle_.size()];
  std::string problem;
  if (command == "resize") {
    const std::size_t x = argument.find('x');
    surface.resize(std::stoi(argument.substr(0, x)), std::stoi(argument.substr(x + 1)));
  } else {
    problem = mode.run_command(command, argument);
  }
  if (!problem.empty() && problem.find("cannot be reloaded") == std::string::npos)
    std::fprintf(stderr, "gausslab: soak step '%s %s': %s\n", command.c_str(), argument.c_str(), problem.c_str());
}

std::string SoakRun::report(long long frames_drawn) const {
  const MemoryInUse end = measure(frames_drawn);
  const auto mib = [](long long bytes) { return std::to_string(bytes / (1024 * 1024)); };
  std::string line = "gausslab: soak frames=" + std::to_string(frames_) + " steps=" + std::to_string(frames_ / kStepFrames) +
                     " cycle=" + std::to_string(cycle_.size());
  if (warm_) {
    line += " warm_frame=" + std::to_string(warm_->frame);
    if (warm_->device) line += " device_used_mib_warm=" + mib(*warm_->device);
    line += " rss_mib_warm=" + mib(warm_->rss);
  } else {
    line += " warm_frame=none (fewer frames than one cycle)";
  }
  if (end.device) line += " device_used_mib_end=" + mib(*end.device);
  line += " rss_mib_end=" + mib(end.rss);
  if (!cycle_starts_.empty()) {  // the same step of every cycle after the first: first, lowest, highest, last
    const auto range = [&](auto value) {
      long long low = value(cycle_starts_.front()), high = low;
      for (const MemoryInUse& m : cycle_starts_) low = std::min(low, value(m)), high = std::max(high, value(m));
      return mib(value(cycle_starts_.front())) + "," + mib(low) + "," + mib(high) + "," + mib(value(cycle_starts_.back()));
    };
    line += " cycle_starts=" + std::to_string(cycle_starts_.size());
    if (cycle_starts_.front().device)
      line += " device_used_mib_cycle_starts=" + range([](const MemoryInUse& m) { return m.device.value_or(0); });
    line += " rss_mib_cycle_starts=" + range([](const MemoryInUse& m) { return m.rss; });
  }
  return line;
}

}  // namespace gausslab
