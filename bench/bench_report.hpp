#pragma once
// gausslab-bench's outputs: results.csv, results.json, results.md and the speed-up table. One list
// of columns feeds both the CSV and the JSON rows, so the two cannot disagree.
#include <string>
#include <string_view>
#include <vector>

#include "bench_results.hpp"

namespace gausslab {

std::string results_csv(const BenchHeader& header, const std::vector<BenchRow>& rows);
// One line of results.csv (for the partial file written while the bench runs).
std::string results_csv_row(const BenchHeader& header, const BenchRow& row);
std::string results_json(const BenchHeader& header, const std::vector<BenchRow>& rows);
std::string results_markdown(const BenchHeader& header, const std::vector<BenchRow>& rows);

// The table the comparison with the papers needs: for 7×7 and 41×41 kernels on a 4096² f32 image,
// each GPU method's time and its speed-up over cpu_separable and cpu_openmp (NaN where either
// side was not measured).
struct Speedup {
  std::string method;
  int kernel_size = 0;
  double gpu_ms = 0;
  double vs_cpu_separable = 0;
  double vs_cpu_openmp = 0;
};
std::vector<Speedup> speedups(const std::vector<BenchRow>& rows, int side = 4096);
// As Markdown, with a line saying why when the run has no such configuration.
std::string speedup_markdown(const std::vector<BenchRow>& rows, int side = 4096);

// The "Skipped or failed" section: one line per reason, naming the methods ("" when none).
std::string skipped_markdown(const std::vector<BenchRow>& rows);

// What the console shows at the end (the full tables are in results.md): device, counts, skips
// and failures, results outside their accuracy bound, and the speed-up table last.
std::string console_summary(const BenchHeader& header, const std::vector<BenchRow>& rows);

// Quoting helpers (exposed for the tests).
std::string csv_field(std::string_view text);
std::string json_string(std::string_view text);
std::string json_number(double value);  // "null" for NaN and infinities

}  // namespace gausslab
