#pragma once
// What gausslab-bench found: one row per configuration and the header that says where and how.
#include <string>
#include <vector>

#include "bench_plan.hpp"
#include "gausslab/core/accuracy.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct BenchRow {
  BenchCase config;
  enum class Status { Ok, Skipped, Failed };
  Status status = Status::Skipped;
  std::string note;  // why skipped or failed; remarks on an ok row

  TimeStats kernel;  // ms: method.run alone (GPU: CUDA events; CPU: steady clock)
  int warmup_runs = 0;
  int rotation_copies = 0;   // GPU: device copies of the input the timed runs rotate over
  double end_to_end_ms = 0;  // GPU: upload + run + download; CPU: the run itself

  bool has_accuracy = false;
  AccuracyStats accuracy;  // on corner crops, against reference_gaussian_region
  AccuracyBound bound;
  bool within_bound = false;
};

const char* to_string(BenchRow::Status status);  // "ok", "skipped", "failed"

// One number through a printf format ("%.3g"), for messages and tables.
std::string format_number(const char* format, double value);

// Throughput figures of an ok row (0 when not ok). copy_gbs is the device-to-device copy
// bandwidth measured in the same run (0 when unknown).
double megapixels_per_second(const BenchRow& row);
double gigabytes_per_second(const BenchRow& row);
double percent_of_copy(const BenchRow& row, double copy_gbs);

// Where and how the numbers were taken.
struct BenchHeader {
  std::string date_utc;
  std::string command_line;
  std::string git_commit;    // at run time, "" when not in a git checkout
  std::string build_commit;  // when the build was configured, "" when unknown
  CudaDeviceStatus device;
  int sm_clock_mhz = 0, memory_clock_mhz = 0, memory_bus_width_bits = 0;
  std::string cpu_model;
  int cpu_threads = 0;                    // hardware threads
  int openmp_threads = 0;                 // what cpu_openmp uses
  std::vector<std::string> timing_notes;  // how runs were chosen, timed and checked
  double copy_gbs = 0;                    // device-to-device cudaMemcpy, bytes read + written per second / 1e9
  std::string copy_note;                  // how it was measured, or why not
  double total_seconds = 0;
};

}  // namespace gausslab
