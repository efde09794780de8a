#pragma once
// What a slot can hold, as the lists show it: every registered method with whether it can run the
// current picture and parameters (and why not), the original picture and the exact Gaussian; the
// id and label of each choice; which method takes over slot A from one that failed.
#include <string>
#include <utility>
#include <vector>

#include "gausslab/cuda/method.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

class Slot;

// A method in the lists: what it is and whether it can run the current picture and parameters.
struct MethodChoice {
  std::string id, label, summary, accuracy;
  bool gpu = false;
  std::string blocked;  // empty: can run; else why not (greyed, shown as tooltip)
};

class MethodChoices {
 public:
  // Asks every registered method about `problem` (~1 ms for the registry on the H100 machine, in the
  // frame: done only when the problem or the path changes). gpu_refusal: why GPU methods cannot run
  // on `path` ("": they can); `asker` makes the method instances that answer.
  void update(const FilterProblem& problem, OutputPath path, const std::string& gpu_refusal, Slot& asker);
  // The problem and the path the list was made for.
  const FilterProblem& problem() const { return problem_; }
  OutputPath path() const { return path_; }
  const std::vector<MethodChoice>& list() const { return choices_; }
  int size() const { return static_cast<int>(choices_.size()); }
  // A choice (a registry index, kOriginalPicture, kExactGaussian or kReferenceFileA/B) as the title and the files name
  // it ("fft", "original", "exact"), and as the lists label it.
  std::string id(int choice) const;
  std::string label(int choice) const;
  // A slot's reference file as id() and label() name it (kReferenceFileA/B): the file name, and the
  // file name with its samples ("file B.tif (float32, 3 channels)").
  void set_reference(int slot, std::string id, std::string label);
  // What an auto entry (auto, auto_exact) runs for the current problem, once a slot has prepared it:
  // "cpu_openmp", and why ("no CUDA device: the CPU filter on every core", "fastest measured on
  // NVIDIA H200: 0.087 ms predicted at 512×512"). label() then reads "auto → cpu_openmp (why)".
  void set_chosen(int method, std::string chosen_id, std::string why);
  // What an auto entry ran on the picture's own samples, for a picture of more than 8 bits: the
  // numbers run the slots' methods on its float planes (comparison_numbers.hpp), and the A, B and
  // split views draw those values, so this is what the views show and what the label then names
  // ("auto → separable_tf32 (why; on the float32 samples)") in place of the 8-bit copy's choice.
  // Until a new problem (update()).
  void set_chosen_on_samples(int method, std::string chosen_id, std::string why, PixelFormat format);
  // "" for a method that is no auto entry or has not chosen yet; the samples' choice where there is one.
  std::string chosen(int method) const;
  std::string chosen_why(int method) const;
  // What the slot's own run (on its 8-bit copy) uses: chosen() for an 8-bit picture; for a picture of
  // more than 8 bits the choice whose stages the overlay and the summary list, which may differ.
  std::string chosen_for_slots(int method) const;
  // The format chosen() was chosen for: the slot's RGBA8, or the samples' float planes (F32).
  PixelFormat chosen_format(int method) const;
  // id() with an auto entry's choice: "auto → cpu_openmp" (the title, the overlay).
  std::string id_with_choice(int choice) const;
  // The registry index of the method `id`, or -1.
  int find(const std::string& id) const;
  // What takes slot A over from `failed`: cpu_openmp, else another CPU method that can run, else the
  // original picture.
  int cpu_replacement(int failed) const;

 private:
  FilterProblem problem_;
  OutputPath path_ = OutputPath::Cpu;
  std::vector<MethodChoice> choices_;
  struct Chosen {
    std::string id, why;
    PixelFormat format = PixelFormat::Rgba8;
  };
  // Per registry index: auto's choice for the slot's 8-bit run, and for the picture's samples.
  std::vector<Chosen> chosen_, chosen_on_samples_;
  const Chosen* chosen_entry(int method) const;
  std::string reference_id_[2] = {"file", "file"}, reference_label_[2] = {"file", "file"};
};

}  // namespace gausslab
