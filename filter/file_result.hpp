#pragma once
// What became of one file of gausslab-filter: the runner reports it, the image and the signal
// paths fill it.
#include <string>

namespace gausslab {

struct FileResult {
  enum class Status { Done, Unreadable, Refused, Failed };
  Status status = Status::Done;
  std::string message;      // the reason, when not done
  std::string description;  // when done: "640×480 RGB", "1000 samples float64, filtered in float32"
  double filter_ms = 0;
};

}  // namespace gausslab
