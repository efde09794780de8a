#include "frame_trace.hpp"

#include <cstdio>
#include <cstdlib>

namespace gausslab {

FrameTrace& FrameTrace::instance() {
  static FrameTrace trace;
  return trace;
}

FrameTrace::FrameTrace() {
  if (const char* text = std::getenv("GAUSSLAB_FRAME_TRACE_MS")) limit_ms_ = std::atof(text);
}

void FrameTrace::begin_frame() {
  if (!enabled()) return;
  start_ = last_ = Clock::now();
  sections_.clear();
}

void FrameTrace::mark(const char* section) {
  if (!enabled()) return;
  const Clock::time_point now = Clock::now();
  sections_.emplace_back(section, std::chrono::duration<double, std::milli>(now - last_).count());
  last_ = now;
}

void FrameTrace::end_frame(long long frame) {
  if (!enabled()) return;
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  if (total <= limit_ms_) return;
  std::string line = "gausslab: frame trace " + std::to_string(frame) + " at " +
                     std::to_string(std::chrono::duration<double, std::milli>(start_ - origin_).count()) + ": " +
                     std::to_string(total) + " ms:";
  for (const auto& [name, ms] : sections_)
    if (ms >= 0.5) line += std::string(" ") + name + "=" + std::to_string(ms);
  std::fprintf(stderr, "%s\n", line.c_str());
}

void FrameTrace::note(const std::string& text) const {
  if (!enabled()) return;
  std::fprintf(stderr, "gausslab: trace at %.1f: %s\n",
               std::chrono::duration<double, std::milli>(Clock::now() - origin_).count(), text.c_str());
}

}  // namespace gausslab
