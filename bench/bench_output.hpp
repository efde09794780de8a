#pragma once
// gausslab-bench's output folder: checked before any measurement, written without ever replacing
// a file unless --overwrite, and the chart script run at the end.
#include <string>

namespace gausslab {

// The files gausslab-bench writes into its folder (the charts are time_vs_*.png). The partial CSV
// grows row by row while the bench runs and is removed at the end: if the process dies (a method
// crashing the host code), what was measured is still there.
inline constexpr const char* kResultFiles[] = {"results.csv", "results.json", "results.md", "results.partial.csv"};

// Creates `dir` if needed. Throws UsageError when it is not a folder, cannot be created, or
// already holds results (results.* or time_vs_*.png) and `overwrite` is false.
void prepare_output_folder(const std::string& dir, bool overwrite);

// Writes `content` to `path` through a temporary file moved into place: never a partial file, and
// an existing file is replaced only when `overwrite`. Throws std::runtime_error naming the file.
void write_text_file(const std::string& path, const std::string& content, bool overwrite);

// Where bench/plot_results.py is: $GAUSSLAB_PLOT_SCRIPT, beside the executable, the source tree
// this was built from, or bench/ under the working folder (the repository root on the GPU
// machine). "" when none exists.
std::string find_plot_script();

// Runs the chart script on DIR/results.json with the first of /usr/bin/python3 and python3 that
// has matplotlib. Returns a line for the log: what it made, or why it did not run.
std::string run_plot_script(const std::string& script, const std::string& dir, bool overwrite);

}  // namespace gausslab
