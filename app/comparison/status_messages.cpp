#include "comparison/status_messages.hpp"

#include <cstdio>

namespace gausslab {

void StatusMessages::say(const std::string& text, bool error, double seconds) {
  if (print_events_) {
    std::printf("gausslab-event: %s %s\n", error ? "error" : "message", text.c_str());
    std::fflush(stdout);
  }
  latest_ = TimedMessage{text, error,
                         std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000))};
}

const TimedMessage* StatusMessages::current() const {
  return !latest_.text.empty() && std::chrono::steady_clock::now() < latest_.until ? &latest_ : nullptr;
}

void StatusMessages::fallback(const std::string& note, const std::string& said, const std::string& stderr_line) {
  fallbacks_ += (fallbacks_.empty() ? "" : "; ") + note;
  say(said, true, 20.0);
  std::fprintf(stderr, "gausslab: %s\n", stderr_line.c_str());
}

}  // namespace gausslab
