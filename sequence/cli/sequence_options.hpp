#pragma once
// gausslab-sequence's command line, parsed and checked before any frame is read.
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "gausslab/sequence/synthetic.hpp"

namespace gausslab {

inline constexpr int kSequenceExitDone = 0;
inline constexpr int kSequenceExitFramesFailed = 1;  // some input could not be used, or an output not written
inline constexpr int kSequenceExitUsage = 2;

struct SequenceOptions {
  bool help = false;
  std::vector<std::string> inputs;  // a folder, a video, or frame files
  bool synthetic = false;
  SyntheticSpec synthetic_spec;
  bool save_frames = false;  // --synthetic: also OUT/frames/frame_00000.png (16-bit)
  std::string out_dir;
  SequenceSettings settings;
  std::string method_id;  // the optional pre-filter
  FilterParams params;
  bool sigma_given = false;
  enum class Backend { Auto, Gpu, Cpu } backend = Backend::Auto;
  bool previews = false;
  int preview_every = 1;
  int max_frames = 0;  // 0: all
  Overwrite overwrite = Overwrite::Never;
  bool quiet = false;
  bool strict = false;  // a frame that does not belong (or a scene cut) makes the exit status 1
};

// Throws UsageError naming the flag, the value and what is allowed.
SequenceOptions parse_sequence_options(int argc, const char* const* argv);

std::string sequence_usage(const std::string& method_ids);

}  // namespace gausslab
