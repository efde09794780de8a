#pragma once
// gausslab-bench's output folder: checked before any measurement, written without ever replacing
// a file unless --overwrite, and the chart script run at the end.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gausslab {

// The files gausslab-bench writes into its folder (the charts are time_vs_*.png), each through
// AtomicFile: complete or absent, never replaced without --overwrite.
inline constexpr const char* kResultFiles[] = {"results.csv", "results.json", "results.md", "codecs.md", "codecs.csv"};

// Creates `dir` if needed. Throws UsageError when it is not a folder, cannot be created, or
// already holds results (results.csv/json/md or time_vs_*.png) and `overwrite` is false. A
// results.partial*.csv left by an interrupted run does not count: it is kept, and not a result.
void prepare_output_folder(const std::string& dir, bool overwrite);
// The same refusals without creating anything: for a run that measures first and makes its folder
// only when it has results to put there (--codecs), so that a failure leaves no empty folder.
void check_output_folder(const std::string& dir, bool overwrite);

class RunInputs;
// Throws UsageError when one of the files `names` in `dir` would replace a file the run reads
// (core's rule: the same file, also through a symbolic or a hard link; --overwrite or not).
void refuse_results_over_inputs(const std::string& dir, const std::vector<std::string>& names, const RunInputs& inputs);

// The measurements as they come, one CSV row at a time, so that a run that dies (a crash in a
// method's host code, Ctrl+C) keeps what it measured: DIR/results.partial.csv, or
// results.partial-2.csv... when an earlier run left one. By nature not atomic, and named so. When
// it cannot be written (a full disk) it says so once on `log`, removes itself (no empty file is
// left behind) and the run goes on: the rows are still in memory.
class PartialResults {
 public:
  PartialResults(const std::string& dir, const std::string& csv_header, std::ostream& log);
  ~PartialResults();
  PartialResults(const PartialResults&) = delete;
  PartialResults& operator=(const PartialResults&) = delete;

  void append(const std::string& csv_rows);
  // After the complete results are written: the partial file is no longer needed.
  void remove();
  // The partial file's path while it holds every row so far; "" otherwise.
  std::string kept_path() const { return fd_ >= 0 ? path_ : std::string(); }

 private:
  void give_up(int error_number);
  std::string path_;
  std::ostream& log_;
  int fd_ = -1;
};

// Writes each (file name, content) into `dir` through AtomicFile. Returns one message per file
// that could not be written (a full disk, an unwritable folder...); every other file is written.
std::vector<std::string> write_result_files(const std::string& dir,
                                            const std::vector<std::pair<std::string, std::string>>& files,
                                            bool overwrite);

// Where bench/plot_results.py is: $GAUSSLAB_PLOT_SCRIPT, beside the executable, the source tree
// this was built from, or bench/ under the working folder (the repository root on the GPU
// machine). "" when none exists.
std::string find_plot_script();

// Runs the chart script on DIR/results.json with the first of /usr/bin/python3 and python3 that
// has matplotlib. Returns a line for the log: what it made, or why it did not run.
std::string run_plot_script(const std::string& script, const std::string& dir, bool overwrite);

}  // namespace gausslab
