#pragma once
// Measures the current method's error against the exact Gaussian on a worker thread, so the frame
// never waits for it: the float64 reference of a crop (reference_gaussian_region) and
// compare_with_reference on the crop of the result read back from the GPU (or the host).
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct AccuracyJob {
  std::uint64_t generation = 0;  // which setting the crop belongs to
  std::shared_ptr<const ImageRgba8> source;  // the whole picture the method filtered
  FilterParams params;
  Rect region;       // where the crop lies in the picture
  ImageRgba8 crop;   // the method's result inside `region`
  AccuracyBound bound;
};

struct AccuracyResult {
  std::uint64_t generation = 0;
  AccuracyStats stats;
  AccuracyBound bound;
  Rect region;
  double seconds = 0;  // time the reference took
  std::string error;   // set when the measurement itself failed
  bool within_bound() const { return error.empty() && meets(stats, bound, PixelFormat::Rgba8); }
};

// The largest crop measured: the whole default picture, and a bounded cost on large images.
inline constexpr int kAccuracyCropSide = 512;

// The crop measured for an image: the top-left corner (two borders and the interior), at most
// kAccuracyCropSide on a side.
Rect accuracy_crop(int width, int height);

class AccuracyProbe {
 public:
  AccuracyProbe();
  ~AccuracyProbe();  // waits for the job in progress
  AccuracyProbe(const AccuracyProbe&) = delete;
  AccuracyProbe& operator=(const AccuracyProbe&) = delete;

  // Queues a job; a job still waiting is replaced (only the newest setting matters).
  void submit(AccuracyJob job);
  // The newest finished result, if any (it stays available).
  std::optional<AccuracyResult> latest() const;
  // Blocks until no job waits or runs (end of an automated run).
  void wait_idle();

 private:
  void work();

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::optional<AccuracyJob> waiting_;
  bool busy_ = false;
  bool stopping_ = false;
  std::optional<AccuracyResult> latest_;
  std::thread worker_;
};

}  // namespace gausslab
