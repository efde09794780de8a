#include "comparison/comparison_saves.hpp"

#include <filesystem>

#include "comparison/comparison_report.hpp"
#include "comparison/save_folder.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

void ComparisonSaves::save_with_sidecar(Comparison& comparison, const ViewState& view, ImageRgba8 image,
                                        const std::string& what, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path folder = folder_.empty() ? fs::path(".") : fs::path(folder_);
  std::string base = name;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".png") == 0) base.resize(base.size() - 4);
  std::string sidecar = sidecar_json(comparison, view, what, image.width(), image.height());
  comparison.messages().say("saving " + what + "...");
  // Everything the job needs is captured by value: it may run after the comparison has changed setting.
  queue_.submit([image = std::move(image), path = (folder / base).string(), sidecar = std::move(sidecar)]() -> std::string {
    static const char* const kExtensions[] = {".png", ".json"};
    for (int attempt = 0; attempt < 8; ++attempt) {  // another program may take a free name first
      const std::string stem = first_free_stem(path, kExtensions, 2);
      try {
        save_image(stem + ".png", image, 4, Overwrite::Never);
      } catch (const ImageSaveError& error) {
        std::error_code ignored;
        if (fs::exists(stem + ".png", ignored)) continue;
        return std::string("could not save: ") + error.what();
      }
      const std::string problem = write_new_text_file(stem + ".json", sidecar);
      std::error_code ignored;
      const std::string where = fs::absolute(stem + ".png", ignored).string();
      return problem.empty() ? "saved " + where + " (+ .json)" : "saved " + where + ", but the sidecar failed: " + problem;
    }
    return "could not save: no free file name next to " + path;
  });
}

void ComparisonSaves::save_result(Comparison& comparison, int index, const ViewState& view) {
  SlotLane& lane = comparison.runs().lane(index);
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  const FilterState& applied = comparison.settings().applied();
  StatusMessages& messages = comparison.messages();
  const Slot& s = lane.slot;
  const int choice = s.wanted().method;
  const char* name = lane.name();
  ImageRgba8 image;
  if (choice == kOriginalPicture) {
    image = *comparison.picture().processed;
  } else if (choice == kExactGaussian) {
    std::shared_ptr<const ExactResult> exact = comparison.work().exact().find(exact_key(comparison));
    if (!exact) {
      messages.say(std::string("nothing to save yet: the exact Gaussian of ") + name + " is still being computed", true);
      return;
    }
    image = exact->rounded;
  } else {
    if (!s.problem().empty()) {
      messages.say(std::string("nothing to save: ") + name + " has no result (" + s.problem() + ")", true);
      return;
    }
    if (!pipeline.has_result(index) || !s.up_to_date()) {
      // Its result is on its way (a CPU method on the worker): saved when it arrives.
      lane.pending_save = true;
      messages.say(std::string("saving ") + name + " when its result is ready");
      return;
    }
    image = pipeline.read_result(index);
  }
  lane.pending_save = false;
  if (applied.pool != PoolMode::None)
    image = pipeline.has_result(index) && pipeline.result_is_pooled(index) ? pipeline.read_result(index)
                                                                             : pool_2x2(image, applied.pool);
  std::string name_on_disk =
      result_file_name(comparison.settings().choices().id(choice), applied.params, image.width(), image.height());
  if (applied.pool != PoolMode::None) name_on_disk.insert(name_on_disk.size() - 4, std::string("-") + to_string(applied.pool));
  save_with_sidecar(comparison, view, std::move(image), std::string("result ") + name, name_on_disk);
}

void ComparisonSaves::save_difference(Comparison& comparison, const ViewState& view) {
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  const FilterState& applied = comparison.settings().applied();
  const auto image_of = [&](int index) -> std::optional<ImageRgba8> {
    const Slot& slot = comparison.runs().lane(index).slot;
    const int choice = slot.wanted().method;
    if (applied.pool != PoolMode::None) {  // both as shown: pooled
      if (!pipeline.has_result(index) || !pipeline.result_is_pooled(index) || !slot.up_to_date()) return std::nullopt;
      return pipeline.read_result(index);
    }
    if (choice == kOriginalPicture) return *comparison.picture().processed;
    if (choice == kExactGaussian) {
      if (auto exact = comparison.work().exact().find(exact_key(comparison))) return exact->rounded;
      return std::nullopt;
    }
    if (!pipeline.has_result(index) || !slot.up_to_date()) return std::nullopt;
    return pipeline.read_result(index);
  };
  const int first = view.blink_swapped ? 1 : 0;
  const std::optional<ImageRgba8> a = image_of(first), b = image_of(1 - first);
  if (!a || !b) {
    comparison.messages().say("nothing to save yet: A or B has no result for this setting", true);
    return;
  }
  ImageRgba8 difference(a->width(), a->height());
  const DifferenceStyle style{view.gain, view.signed_difference, view.false_colour};
  // As the view draws it: the numbers' unrounded A - B once they are in (unpooled), else the 8-bit
  // results' difference.
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  const std::vector<float>* unrounded =
      applied.pool == PoolMode::None && numbers && numbers->difference ? numbers->difference.get() : nullptr;
  const double sign = view.blink_swapped ? -1 : 1;
  for (std::size_t i = 0; i < difference.pixel_count(); ++i) {
    if (unrounded && unrounded->size() == difference.pixel_count() * 4) {
      const float* d = unrounded->data() + i * 4;
      difference.data()[i] = difference_colour({sign * d[0], sign * d[1], sign * d[2]}, style);
    } else {
      difference.data()[i] = difference_colour(a->data()[i], b->data()[i], style);
    }
  }
  const MethodChoices& choices = comparison.settings().choices();
  const std::string name = "gausslab-difference-" + choices.id(applied.method_a) + "-vs-" + choices.id(applied.method_b) +
                           "-" + result_file_name("x", applied.params, a->width(), a->height()).substr(11);
  save_with_sidecar(comparison, view, std::move(difference), "difference", name);
}

void ComparisonSaves::save_view(Comparison& comparison, const ViewState& view, ImageRgba8 image) {
  const FilterState& applied = comparison.settings().applied();
  const MethodChoices& choices = comparison.settings().choices();
  save_with_sidecar(comparison, view, std::move(image), "view",
                    "gausslab-view-" + choices.id(applied.method_a) + "-vs-" + choices.id(applied.method_b) + ".png");
}

std::string ComparisonSaves::export_compare_all(const Comparison& comparison) const {
  const std::optional<CompareAllTable> table = comparison.work().compare_all().table();
  if (!table || table->rows.empty()) return "nothing to export: run compare all first";
  namespace fs = std::filesystem;
  const fs::path folder = folder_.empty() ? fs::path(".") : fs::path(folder_);
  static const char* const kExtensions[] = {".csv"};
  const std::string stem = first_free_stem((folder / ("gausslab-compare-all-" + std::to_string(table->width) + "x" +
                                                      std::to_string(table->height))).string(),
                                           kExtensions, 1);
  const std::string problem = write_new_text_file(stem + ".csv", compare_all_csv(*table));
  return problem.empty() ? "exported " + stem + ".csv" : problem;
}

void ComparisonSaves::follow(Comparison& comparison, const ViewState& view) {
  for (const std::string& message : queue_.take_messages())
    comparison.messages().say(message, message.rfind("could not", 0) == 0);
  for (int i = 0; i < 2; ++i) {
    const SlotLane& lane = comparison.runs().lane(i);
    if (lane.pending_save && (lane.slot.up_to_date() || !lane.slot.problem().empty())) save_result(comparison, i, view);
  }
}

}  // namespace gausslab
