#pragma once
// Where a batch's time went: each file's time in each stage, and for each stage the time during
// which it was working on at least one file. From these the summary names the stage (or the CPU
// pool) that bound the run, and how close the run came to that bound.
#include <array>
#include <mutex>
#include <string>
#include <vector>

namespace gausslab {

// Write is the encoded bytes going into the output's temporary file (the kernel's copy into its
// page cache); Sync is AtomicFile::commit, the wait for the disk: fsync, close, rename and the
// folder's fsync. A pipelined run syncs on threads of its own, so Sync is a resource of its own
// (the disk), not the CPU pool's.
enum class Stage : int { Read, Decode, Upload, Filter, Download, Encode, Write, Sync, Count };
inline constexpr int kStageCount = static_cast<int>(Stage::Count);

// "read", "decode", "upload", "filter", "download", "encode", "write", "sync".
const char* to_string(Stage stage);

struct StageTotals {
  std::array<double, kStageCount> sum_ms{};   // summed over files (and ranks)
  std::array<double, kStageCount> busy_ms{};  // time with at least one file in the stage
  std::array<int, kStageCount> count{};

  StageTotals& operator+=(const StageTotals& other);
};

// Collects stage intervals from any thread; times are seconds from the recorder's start.
class StageRecorder {
 public:
  StageRecorder();
  double now_s() const;
  // A stage of one file from start_s to end_s.
  void add(Stage stage, double start_s, double end_s);
  // A stage measured elsewhere (a GPU event pair), placed at [start_s, start_s + ms).
  void add_ms(Stage stage, double start_s, double ms) { add(stage, start_s, start_s + ms / 1000.0); }
  StageTotals totals() const;

 private:
  double origin_s_ = 0;
  mutable std::mutex mutex_;
  std::array<std::vector<std::pair<double, double>>, kStageCount> intervals_;
};

// Which resource bound the run and by how much. `cpu_stages` are the stages run by the pool of
// `cpu_threads` threads (their summed time over the threads is the pool's occupancy); every other
// stage is its own resource (a copy engine, the GPU's SMs, the disk) whose occupancy is its busy time.
struct BoundReport {
  std::string name;          // "upload", "filter", "sync", or "CPU pool (decode 48 %, encode 31 %, ...)"
  double occupancy_ms = 0;   // of the bound resource over the run
  double per_image_ms = 0;   // occupancy / images
};
BoundReport find_bound(const StageTotals& totals, const std::vector<Stage>& cpu_stages, int cpu_threads, int images);

}  // namespace gausslab
