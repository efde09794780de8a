#pragma once
// What the comparison tells its user: the latest message (a confirmation, a refusal, a failure),
// shown until its time is up, and for test drivers (--events) a stdout line per message; the
// fallbacks taken so far (a method or the GPU that failed, and what the viewer did instead: an
// automated run that needed one ends with status 3 and names them).
#include <chrono>
#include <string>

namespace gausslab {

struct TimedMessage {
  std::string text;
  bool error = false;
  std::chrono::steady_clock::time_point until;
};

class StatusMessages {
 public:
  explicit StatusMessages(bool print_events) : print_events_(print_events) {}

  void say(const std::string& text, bool error = false, double seconds = 8.0);
  // The latest message while its time lasts, else null.
  const TimedMessage* current() const;
  // The latest message, its time up or not (the status bar keeps it; text "" before the first).
  const TimedMessage& latest() const { return latest_; }
  // A fallback the viewer took: `note` kept for the run's summary, `said` said as an error for 20 s,
  // `stderr_line` printed.
  void fallback(const std::string& note, const std::string& said, const std::string& stderr_line);
  const std::string& fallbacks() const { return fallbacks_; }

 private:
  bool print_events_;
  TimedMessage latest_;
  std::string fallbacks_;  // "; " between them
};

}  // namespace gausslab
