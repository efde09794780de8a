#pragma once
// `auto` and `auto_exact`: registry entries that run, for each problem, the method measured fastest
// on this GPU among those that can run it within an accuracy class. The times come from a short
// calibration (every GPU method at a few sigmas and one image size, for each pixel format), measured
// for a format the first time auto is asked for it and cached in the user's cache folder per GPU,
// driver and gausslab build. Without a CUDA device the
// choice is a fixed rule among the CPU methods (no measurement, so the same on every run).
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

// auto: approximations allowed up to the project's cap (kApproximationCap); auto_exact: FIR class
// only (kFloatRoundingBound; both in accuracy_promise.hpp).
enum class AccuracyClass { Approximate, Exact };
AccuracyBound accuracy_cap(AccuracyClass accuracy);

// One measured time: the median kernel time of `method_id` at this format and sigma on the
// calibration image (reflect border, truncate 4).
struct CalibrationEntry {
  std::string method_id;
  PixelFormat format = PixelFormat::Rgba8;
  double sigma = 0;
  double ms = 0;
  bool large = false;  // measured at the table's large size (else at width × height)
};

struct CalibrationTable {
  std::string gpu;      // device name
  std::string driver;   // kernel driver and CUDA driver version
  std::string build;    // gausslab version and commit
  int width = 0, height = 0;
  std::vector<CalibrationEntry> entries;
  // The formats measured (some may have no entry: no GPU method takes them within reach).
  std::vector<PixelFormat> formats;
  // Methods whose result on this GPU missed their own accuracy bound during the calibration (checked
  // on a small image against the float64 reference before timing): "id format: why". auto never
  // chooses them for that format.
  std::vector<std::string> rejected;
  // The second size, for the methods within reach of the fastest at some sigma: fixed costs (several
  // kernels, a partial last wave) weigh less there, and the ranking can change between the sizes.
  int large_width = 0, large_height = 0;
};

// What this machine's table must say to be reused (empty strings without a device).
struct CalibrationKey {
  std::string gpu, driver, build;
};
CalibrationKey current_calibration_key();
bool calibration_matches(const CalibrationTable& table, const CalibrationKey& key);
// Whether the table holds the measurements of `format`.
bool calibrated_for(const CalibrationTable& table, PixelFormat format);

// Predicted time of `method_id` for `problem`: the table's times for that method and format,
// interpolated linearly in log sigma (clamped to the measured range) at each size measured; then in
// the pixel count P: up to the small size's P1 scaled by P / P1, between P1 and the large size's P2
// linear between the two times, beyond P2 scaled by P / P2 (a method timed at the small size only is
// scaled from it). nullopt when the table has no time for that method and format.
std::optional<double> predict_ms(const CalibrationTable& table, const std::string& method_id,
                                 const FilterProblem& problem);

struct AutoChoice {
  std::string method_id;
  double predicted_ms = 0;  // 0 where no table was used
  std::string why;          // one line for the overlay and logs
};

// The fastest of `candidates` (ids in registry order) by the table; ties go to the earlier id.
// Candidates without a time are skipped; with none timed, the first candidate.
AutoChoice choose_fastest(const CalibrationTable& table, const std::vector<std::string>& candidates,
                          const FilterProblem& problem);

// The ids of the registered methods (auto excluded) that can run `problem` within `accuracy`:
// GPU methods only when `gpu` is true, CPU methods only when it is false.
std::vector<std::string> auto_candidates(const FilterProblem& problem, AccuracyClass accuracy, bool gpu);

// The CPU form of auto or auto_exact (`entry`): a CPU method on host memory, chosen as without a
// device, whether or not there is one (method_registry(false) holds it). nullopt for other entries.
std::optional<MethodEntry> auto_on_host(const MethodEntry& entry);

// Without a CUDA device, or on a path that runs CPU methods only: cpu_openmp when this machine has
// more than one hardware thread, else cpu_separable. `why_no_gpu` opens the choice's why.
AutoChoice choose_without_gpu(const FilterProblem& problem, const std::string& why_no_gpu = "no CUDA device");

// The cache file: $XDG_CACHE_HOME/gausslab/auto-calibration.txt, else ~/.cache/gausslab/...; empty
// when neither variable is set.
std::string calibration_cache_path();
// nullopt for a missing, unreadable or malformed file (it is then measured again and replaced).
std::optional<CalibrationTable> read_calibration(const std::string& path);
// Through a temporary file beside the target, renamed over it; throws std::runtime_error naming the
// path when it cannot be written.
void write_calibration(const std::string& path, const CalibrationTable& table);

// Measures `format` on the current CUDA device into `table` (a few seconds): its entries, its
// rejections, and the format in table.formats. Throws CUDA errors.
void measure_calibration(CalibrationTable& table, PixelFormat format);

// This GPU's table, holding `format`: the cached one when it matches current_calibration_key(), with
// the format measured now and written to the cache if the cache lacked it (a write failure is
// reported on stderr, the table still used). Thread-safe; each format measured at most once per
// process. A copy: another thread may add a format meanwhile.
CalibrationTable auto_calibration(PixelFormat format);

// The choice an auto method made for its prepared problem; nullopt for any other method or before
// prepare(). For the viewer's overlay and the CLIs' logs.
std::optional<AutoChoice> auto_choice_of(const Method& method);

}  // namespace gausslab
