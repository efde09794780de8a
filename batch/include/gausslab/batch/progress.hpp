#pragma once
// The batch's progress: on a terminal one line redrawn in place (a bar, files done, images/s, MB/s
// of input read, the time left), with failures printed above it; elsewhere (a log, a test) one
// line per file with the same figures. Under MPI rank 0 prints every rank's files here.
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace gausslab {

class ProgressPrinter {
 public:
  // `total_bytes`: the input files' sizes, for MB/s and the time left.
  ProgressPrinter(std::ostream& out, bool terminal, bool quiet, int total_files, std::uint64_t total_bytes);

  // One file finished: `ok` or failed; `text` is the file's line ("a.png -> out/a.png 4096×2304
  // RGB") or, when failed, the message naming the file and the problem.
  void file_finished(bool ok, const std::string& text, std::uint64_t input_bytes);
  // Clears the bar on a terminal (before the summary).
  void finish();

  int done() const { return done_; }
  int failed() const { return failed_; }

 private:
  std::string figures() const;
  void draw_bar(bool force);

  std::ostream& out_;
  const bool terminal_, quiet_;
  const int total_;
  const std::uint64_t total_bytes_;
  int done_ = 0, failed_ = 0;
  std::uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool bar_shown_ = false;
};

// "[####......]": `done` of `total` as a bar of `width` characters.
std::string progress_bar(int done, int total, int width);

}  // namespace gausslab
