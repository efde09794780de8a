#pragma once
// The exact Gaussian of the picture (core's float64 reference, all cores through OpenMP) computed on
// a worker thread at a lower priority than the UI, band by band so that it reports progress and
// stops early when the setting changes; the two latest results are cached (picture, sigma,
// truncate and border).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "comparison/job_thread.hpp"
#include "viewer/picture_levels.hpp"

namespace gausslab {

struct ExactKey {
  std::uint64_t picture = 0;  // the comparison's picture number
  FilterParams params;
  friend bool operator==(const ExactKey& x, const ExactKey& y) { return x.picture == y.picture && x.params == y.params; }
  friend bool operator!=(const ExactKey& x, const ExactKey& y) { return !(x == y); }
};

// A picture to work on for a key: the job of the exact reference's and compare-all's threads.
struct PictureJob {
  ExactKey key;
  std::shared_ptr<const ImageRgba8> picture;
};

struct ExactResult {
  ExactKey key;
  int width = 0, height = 0;
  std::vector<double> values;  // width * height * 4, interleaved RGBA, unrounded
  ImageRgba8 rounded;          // the same rounded to 8 bits (what the slot shows)
  double seconds = 0;
};

class ExactReference {
 public:
  ExactReference();
  ~ExactReference();

  // The cached result for key, or null.
  std::shared_ptr<const ExactResult> find(const ExactKey& key) const;
  // Starts computing key unless it is cached or on its way; a computation of another key stops.
  // levels: the picture's own samples when its file holds more than 8 bits (picture_levels.hpp),
  // which the exact Gaussian is then of.
  void request(const ExactKey& key, std::shared_ptr<const ImageRgba8> picture,
               std::shared_ptr<const PictureLevels> levels = nullptr);
  // 0..1 while `key` is being computed, nullopt otherwise.
  std::optional<double> progress(const ExactKey& key) const;
  // Why the latest computation failed (empty if it did not).
  std::string error() const;
  bool busy() const { return thread_.busy(); }
  void wait_idle() { thread_.wait_idle(); }

 private:
  struct Job : PictureJob {
    std::shared_ptr<const PictureLevels> levels;
  };
  void compute(Job& job, const std::atomic<bool>& superseded);

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const ExactResult>> cache_;  // newest first, at most two
  std::optional<ExactKey> computing_;
  std::atomic<double> progress_{0.0};
  std::string error_;
  JobThread<Job> thread_;  // last: stops before the members it uses go
};

}  // namespace gausslab
