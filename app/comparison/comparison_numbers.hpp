#pragma once
// The numbers of the comparison, over the whole image and unrounded: A against B, and each slot
// against the exact Gaussian once that is computed (figures of core/difference_stats.hpp). Worked
// out on a worker thread, so no frame waits:
//   1. each slot's unrounded values: a method runs on the picture's four channels as float planes
//      (its F32 path, the same arithmetic as its RGBA8 path before the final rounding to 8 bits);
//      the original picture and the exact Gaussian are used as they are;
//   2. the reduction runs on the GPU (cuda/image_difference.hpp, on the worker's own stream) when a
//      slot holds a GPU method, on the CPU otherwise;
//   3. the slots' values stay on the host for the inspector, and A - B from them for the
//      difference view (unrounded_view.hpp).
// The newest request wins; one still running stops at its next step.
#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "comparison/exact_reference.hpp"
#include "gausslab/core/difference_stats.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "comparison/job_thread.hpp"
#include "viewer/picture_levels.hpp"
#include "comparison/slot_setting.hpp"

namespace gausslab {

// The largest picture the numbers and the exact Gaussian are worked out for: 8192 x 8192. They hold
// each slot's float planes (16 bytes a pixel) and the float64 reference (32 bytes a pixel, 2 GiB
// here) on the host and the device; beyond, the viewer says so instead of running out of memory.
inline constexpr long long kMaxMeasuredPixels = 8192LL * 8192LL;

// The samples of the files in A's and B's reference slots (kReferenceFileA/B; null where none).
using ReferenceLevels = std::array<std::shared_ptr<const PictureLevels>, 2>;

struct NumbersKey {
  SlotSetting a, b;
  bool with_exact = false;  // the exact Gaussian was available for this request
  friend bool operator==(const NumbersKey& x, const NumbersKey& y) {
    return x.a == y.a && x.b == y.b && x.with_exact == y.with_exact;
  }
  friend bool operator!=(const NumbersKey& x, const NumbersKey& y) { return !(x == y); }
};

// A slot's unrounded values on the host (what the inspector reads).
struct SlotValues {
  int width = 0, height = 0;
  DifferenceOperand operand;        // host memory
  std::shared_ptr<const void> owner;  // keeps that memory alive
  double value(int x, int y, int c) const { return operand.sample(x, y, c); }
};

// A value in 8-bit levels as the inspector prints it: three decimals ("127.385", "+0.250"), or
// three significant digits where those would hide it ("+8.12e-05": a method against the exact
// Gaussian); with_sign: a difference.
std::string levels_text(double value, bool with_sign);

// A slot's values as interleaved RGBA floats in 8-bit levels.
std::shared_ptr<const std::vector<float>> rgba_floats(const SlotValues& values);
// A - B of two slots' values, interleaved RGBA floats in 8-bit levels (subtracted in double).
std::shared_ptr<const std::vector<float>> difference_floats(const SlotValues& a, const SlotValues& b);

struct ComparisonNumbers {
  NumbersKey key;
  std::optional<DifferenceStats> a_vs_b, a_vs_exact, b_vs_exact;
  std::shared_ptr<const SlotValues> values_a, values_b;
  // A - B from those values, interleaved RGBA floats in 8-bit levels: what the difference view
  // draws (unrounded_view.hpp); null while either is missing.
  std::shared_ptr<const std::vector<float>> difference;
  // A picture of more than 8 bits: each slot's values the same way, which the A, B and split views
  // draw instead of the slots' 8-bit pictures (exposure brings a float picture's values above 1 in).
  std::shared_ptr<const std::vector<float>> shown_a, shown_b;
  // What a slot's auto entry chose for the float planes it ran on here (auto_method.hpp; its F32
  // choice, which can differ from the slot's 8-bit one): for a picture of more than 8 bits the views
  // show these values, and the label names this choice (method_choices.hpp).
  std::optional<AutoChoice> auto_a, auto_b;
  std::string error;     // why some figures are missing
  std::string note;      // how to read them (a method measured on its 8-bit result)
  bool on_gpu = false;   // where the reduction ran
  double seconds = 0;
};

class NumbersWorker {
 public:
  // gpu: GPU methods can run here (a CUDA device, and the viewer's path is not cpu).
  explicit NumbersWorker(bool gpu);
  ~NumbersWorker();

  // Works out the numbers for key (exact: the exact Gaussian when key.with_exact); levels: the
  // picture's own samples when its file holds more than 8 bits (picture_levels.hpp), which the
  // methods then run on and the original picture is measured as; references: the reference
  // slots' files, measured as their own samples.
  void submit(const NumbersKey& key, std::shared_ptr<const ImageRgba8> picture,
              std::shared_ptr<const ExactResult> exact, std::shared_ptr<const PictureLevels> levels = nullptr,
              ReferenceLevels references = {});
  // The newest finished numbers.
  std::optional<ComparisonNumbers> latest() const;
  // What the worker does right now, for the panel ("running fft on the float planes"); empty if idle.
  std::string activity() const;
  bool busy() const { return thread_.busy(); }
  // The UI drew a frame: a tiled run (numbers_tiles.hpp) sends its next tile after each frame (or
  // after kTilePaceMs when no frame comes), so its GPU work never crowds a frame.
  void frame_drawn();
  void wait_idle() { thread_.wait_idle(); }

 private:
  struct Job {
    NumbersKey key;
    std::shared_ptr<const ImageRgba8> picture;
    std::shared_ptr<const ExactResult> exact;
    std::shared_ptr<const PictureLevels> levels;
    ReferenceLevels references;
  };
  struct State;
  class JobRun;
  void compute(Job& job, const std::atomic<bool>& superseded);
  void set_activity(std::string text);
  void wait_for_next_frame(const std::atomic<bool>& superseded);

  bool gpu_;
  std::unique_ptr<State> state_;  // worker-only: caches, CUDA stream, method instances
  mutable std::mutex mutex_;
  std::optional<ComparisonNumbers> latest_;
  std::string activity_;
  std::condition_variable frame_changed_;
  long long frames_drawn_ = 0;
  JobThread<Job> thread_;  // last
};

}  // namespace gausslab
