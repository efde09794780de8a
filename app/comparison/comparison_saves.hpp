#pragma once
// What the comparison writes on request: a slot's full-resolution result, the difference as the view
// shows it (mode, gain, colours) and the view itself, each a PNG with its JSON sidecar (never
// replacing a file: a taken name gets "-2", "-3", ...), and the compare-all table as CSV. Encoding
// and writing run on the save worker (save_queue.hpp); each file's message is said when it is
// written. A slot's result still on its way is saved when it arrives.
#include <string>

#include "comparison/comparison.hpp"
#include "comparison/save_queue.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class ComparisonSaves {
 public:
  // folder: where saves go ("": the working folder).
  explicit ComparisonSaves(std::string folder) : folder_(std::move(folder)) {}

  const std::string& folder() const { return folder_; }
  void set_folder(std::string folder) { folder_ = std::move(folder); }
  // Slot `slot`'s result as it shows it (pooled when pooling is on).
  void save_result(Comparison& comparison, int slot, const ViewState& view);
  void save_difference(Comparison& comparison, const ViewState& view);
  void save_view(Comparison& comparison, const ViewState& view, ImageRgba8 image);
  // "exported PATH", or why not.
  std::string export_compare_all(const Comparison& comparison) const;
  // Each frame: the messages of the files written; the saves whose result has come.
  void follow(Comparison& comparison, const ViewState& view);
  bool busy() const { return queue_.busy(); }

 private:
  // Queues the image and its sidecar (made now, from the setting shown) for the save worker.
  void save_with_sidecar(Comparison& comparison, const ViewState& view, ImageRgba8 image, const std::string& what,
                         const std::string& name);

  SaveQueue queue_;
  std::string folder_;
};

}  // namespace gausslab
