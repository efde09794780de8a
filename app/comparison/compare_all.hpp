#pragma once
// Compare all: every method that can run the current picture, sigma, truncate and border, timed
// and measured on a worker thread (the UI keeps drawing and shows the progress):
//   time      GPU methods: CUDA events per stage on the worker's own stream, 2 warm-up runs then
//             the median of 7; CPU methods: the steady clock, 1 warm-up then the median of 3
//             (1 and 1 on pictures above 4 Mpixel); Mpixel/s from the median total;
//   bandwidth % of a device-to-device copy of the picture timed the same way (read + write);
//   accuracy  max |result - exact| and PSNR against the exact Gaussian, unrounded (the method's
//             float path on the four channels) and after rounding to 8 bits.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "comparison/exact_reference.hpp"
#include "gausslab/core/difference_stats.hpp"
#include "comparison/job_thread.hpp"

namespace gausslab {

struct CompareAllRow {
  std::string id, backend;
  std::vector<std::pair<std::string, double>> stages;  // median ms per stage
  double total_ms = 0, mpixel_per_s = 0;
  double copy_percent = -1;  // -1: not a GPU method
  std::optional<DifferenceStats> error;  // against the exact Gaussian
  std::string problem;  // why it did not run (or failed)
  std::string runs;     // an auto entry: the method it ran, and why ("cpu_openmp: no CUDA device: ...")
};

struct CompareAllTable {
  ExactKey key;
  int width = 0, height = 0;
  double copy_gb_per_s = 0;  // 0 without a GPU
  std::vector<CompareAllRow> rows;
  bool complete = false;
};

class CompareAll {
 public:
  explicit CompareAll(bool gpu, ExactReference& exact);
  ~CompareAll();

  void start(const ExactKey& key, std::shared_ptr<const ImageRgba8> picture);
  // The table so far (rows arrive one by one).
  std::optional<CompareAllTable> table() const;
  // "3 of 9: fft" while running; empty when idle.
  std::string progress() const;
  bool busy() const { return thread_.busy(); }
  void wait_idle() { thread_.wait_idle(); }

 private:
  using Job = PictureJob;
  void run(Job& job, const std::atomic<bool>& superseded);

  bool gpu_;
  ExactReference& exact_;
  mutable std::mutex mutex_;
  std::optional<CompareAllTable> table_;
  std::string progress_;
  JobThread<Job> thread_;  // last
};

// The table as CSV (one row per method; stages as "name=ms" joined by ';').
std::string compare_all_csv(const CompareAllTable& table);

}  // namespace gausslab
