#include "viewer/frame_trace.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <tuple>

namespace gausslab {

namespace {

double thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

// This thread's voluntary and involuntary context switches so far.
std::pair<long, long> thread_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return {usage.ru_nvcsw, usage.ru_nivcsw};
}

}  // namespace

FrameTrace& FrameTrace::instance() {
  static FrameTrace trace;
  return trace;
}

FrameTrace::FrameTrace() {
  if (const char* text = std::getenv("GAUSSLAB_FRAME_TRACE_MS")) limit_ms_ = std::atof(text);
  if (const char* text = std::getenv("GAUSSLAB_FRAME_TRACE_SECTION_MS")) section_ms_ = std::atof(text);
}

void FrameTrace::begin_frame() {
  if (!enabled()) return;
  start_ = last_ = Clock::now();
  last_cpu_ms_ = thread_cpu_ms();
  std::tie(start_voluntary_, start_involuntary_) = thread_switches();
  sections_.clear();
}

void FrameTrace::mark(const char* section) {
  if (!enabled()) return;
  const Clock::time_point now = Clock::now();
  const double cpu_ms = thread_cpu_ms();
  sections_.push_back({section, std::chrono::duration<double, std::milli>(now - last_).count(), cpu_ms - last_cpu_ms_});
  last_ = now;
  last_cpu_ms_ = cpu_ms;
}

void FrameTrace::end_frame(long long frame) {
  if (!enabled()) return;
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  if (total <= limit_ms_) return;
  std::string line = "gausslab: frame trace " + std::to_string(frame) + " at " +
                     std::to_string(std::chrono::duration<double, std::milli>(start_ - origin_).count()) + " (mono=" +
                     std::to_string(std::chrono::duration<double, std::milli>(start_.time_since_epoch()).count()) +
                     "): " + std::to_string(total) + " ms:";
  char text[96];
  for (const Section& section : sections_)
    if (section.wall_ms >= section_ms_) {
      std::snprintf(text, sizeof text, " %s=%.3f(cpu %.3f)", section.name, section.wall_ms, section.cpu_ms);
      line += text;
    }
  const auto [voluntary, involuntary] = thread_switches();
  std::snprintf(text, sizeof text, " switches: voluntary %ld, involuntary %ld", voluntary - start_voluntary_,
                involuntary - start_involuntary_);
  line += text;
  std::fprintf(stderr, "%s\n", line.c_str());
}

void FrameTrace::note(const std::string& text) const {
  if (!enabled()) return;
  std::fprintf(stderr, "gausslab: trace at %.1f: %s\n",
               std::chrono::duration<double, std::milli>(Clock::now() - origin_).count(), text.c_str());
}

}  // namespace gausslab
