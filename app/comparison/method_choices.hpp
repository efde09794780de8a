#pragma once
// What a slot can hold, as the lists show it: every registered method with whether it can run the
// current picture and parameters (and why not), the original picture and the exact Gaussian; the
// id and label of each choice; which method takes over slot A from one that failed.
#include <string>
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
  // A choice (a registry index, kOriginalPicture or kExactGaussian) as the title and the files name
  // it ("fft", "original", "exact"), and as the lists label it.
  std::string id(int choice) const;
  std::string label(int choice) const;
  // The registry index of the method `id`, or -1.
  int find(const std::string& id) const;
  // What takes slot A over from `failed`: cpu_openmp, else another CPU method that can run, else the
  // original picture.
  int cpu_replacement(int failed) const;

 private:
  FilterProblem problem_;
  OutputPath path_ = OutputPath::Cpu;
  std::vector<MethodChoice> choices_;
};

}  // namespace gausslab
