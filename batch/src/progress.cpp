#include "gausslab/batch/progress.hpp"

#include <cstdio>

namespace gausslab {

namespace {

constexpr int kBarWidth = 20;

std::string format_duration(double seconds) {
  char text[32];
  const long whole = static_cast<long>(seconds + 0.5);
  if (whole < 60)
    std::snprintf(text, sizeof text, "%ld s", whole);
  else if (whole < 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld", whole / 60, whole % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", whole / 3600, whole / 60 % 60, whole % 60);
  return text;
}

}  // namespace

std::string progress_bar(int done, int total, int width) {
  const int filled = total > 0 ? static_cast<int>(static_cast<long long>(done) * width / total) : width;
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.') + "]";
}

ProgressPrinter::ProgressPrinter(std::ostream& out, bool terminal, bool quiet, int total_files,
                                 std::uint64_t total_bytes)
    : out_(out),
      terminal_(terminal),
      quiet_(quiet),
      total_(total_files),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressPrinter::figures() const {
  const int finished = done_ + failed_;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char text[160];
  const int width = static_cast<int>(std::to_string(total_).size());
  int length = std::snprintf(text, sizeof text, "%s %*d/%d", progress_bar(finished, total_, kBarWidth).c_str(), width,
                             finished, total_);
  if (seconds > 0 && finished > 0) {
    const double rate = finished / seconds, megabytes = bytes_ / 1e6 / seconds;
    // The time left from the bytes still to read where sizes are known, else from the file count.
    const double left = total_bytes_ > 0 && bytes_ > 0 ? (static_cast<double>(total_bytes_) - bytes_) / (bytes_ / seconds)
                                                       : (total_ - finished) / rate;
    std::snprintf(text + length, sizeof text - static_cast<std::size_t>(length), "  %.1f img/s  %.1f MB/s  ETA %s",
                  rate, megabytes, format_duration(left > 0 ? left : 0).c_str());
  }
  return text;
}

void ProgressPrinter::draw_bar(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  out_ << "\r\033[K" << figures() << std::flush;
  bar_shown_ = true;
}

void ProgressPrinter::file_finished(bool ok, const std::string& text, std::uint64_t input_bytes) {
  (ok ? done_ : failed_) += 1;
  bytes_ += input_bytes;
  if (quiet_) return;  // the summary names every failure
  const bool last = done_ + failed_ == total_;
  if (terminal_) {
    if (!ok) out_ << "\r\033[K" << "FAILED: " << text << "\n";
    draw_bar(!ok || last);
    return;
  }
  out_ << figures() << "  " << (ok ? "" : "FAILED: ") << text << "\n" << std::flush;
}

void ProgressPrinter::finish() {
  if (terminal_ && bar_shown_) {
    draw_bar(true);
    out_ << "\n" << std::flush;
    bar_shown_ = false;
  }
}

}  // namespace gausslab
