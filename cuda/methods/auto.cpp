// auto and auto_exact — run, for each problem, the registered method measured fastest on this GPU
// (auto_method.hpp): the candidates are the methods that can run the problem within the accuracy
// class (auto: the project's cap for approximations, 0.8 levels RGBA8 / 1e-3 F32; auto_exact: FIR
// class, 0.51 / 1e-5); their times come from the cached calibration table, interpolated in sigma and
// scaled by the pixel count. Without a CUDA device: cpu_openmp (cpu_separable on one thread).
// The chosen method's instance does the work: prepare() chooses and prepares it, run() runs it, its
// stages are the ones recorded, its bound is the one promised.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

class AutoMethod final : public Method {
 public:
  AutoMethod(MethodInfo info, AccuracyClass accuracy) : info_(std::move(info)), accuracy_(accuracy) {}

  const MethodInfo& info() const override { return info_; }

  std::string unsupported_reason(const FilterProblem& problem) const override {
    if (std::string invalid = validate(problem); !invalid.empty()) return invalid;
    if (std::string axes = axes_refusal(info_, problem.params.axes); !axes.empty()) return axes;
    if (!candidates(problem).empty()) return {};
    if (gpu() && (problem.params.custom_kernel() || problem.params.rounding != IntegerRounding::Nearest)) {
      const std::string what = problem.params.custom_kernel()
                                   ? std::string("a custom kernel")
                                   : std::string("--rounding ") + to_string(problem.params.rounding);
      return "no GPU method takes " + what +
             " (gausslab-filter --list-methods marks those that do); choose a CPU method with --method cpu_openmp";
    }
    const AccuracyBound cap = accuracy_cap(accuracy_);
    return "no method can run this within " + info_.id + "'s accuracy class (" +
           (is_integer(sample_type(problem.format)) ? std::to_string(cap.max_error_8bit).substr(0, 4) + " levels"
                                                 : std::to_string(cap.max_relative_error)) +
           "): choose one with --method to see its own reason";
  }

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    const AutoChoice c = choose(problem);
    if (c.method_id.empty()) return accuracy_cap(accuracy_);
    return find_method(c.method_id)->create()->accuracy_bound(problem);
  }

  void prepare(const FilterProblem& problem) override {
    // Registered for the GPU (callers pass device views): without the device it must not fall back
    // to a CPU method on those views; like every GPU method it is then unavailable.
    if (info_.backend == Backend::Cuda && !gpu()) throw CudaUnavailable(info_.id + ": " + cuda_device_status().reason);
    if (std::string reason = unsupported_reason(problem); !reason.empty()) throw std::invalid_argument(reason);
    AutoChoice c = choose(problem);
    Method& delegate = instance(c.method_id);
    delegate.prepare(problem);
    choice_ = std::move(c);
    delegate_ = &delegate;
    prepared_ = problem;
  }

  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    if (!delegate_) throw std::logic_error(info_.id + ": run() before prepare()");
    delegate_->run(src, dst, timer, stream);
  }

  const std::optional<AutoChoice>& choice() const { return choice_; }

 private:
  bool gpu() const { return cuda_device_status().available; }

  std::vector<std::string> candidates(const FilterProblem& problem) const {
    return auto_candidates(problem, accuracy_, gpu());
  }

  AutoChoice choose(const FilterProblem& problem) const {
    if (!gpu()) return choose_without_gpu(problem);
    return choose_fastest(auto_calibration(), candidates(problem), problem);
  }

  // One instance per chosen method, kept: its plans and scratch survive switching back and forth.
  Method& instance(const std::string& id) {
    auto it = instances_.find(id);
    if (it == instances_.end()) {
      const MethodEntry* entry = find_method(id);
      if (!entry) throw std::logic_error("auto chose an unknown method " + id);
      it = instances_.emplace(id, entry->create()).first;
    }
    return *it->second;
  }

  MethodInfo info_;
  AccuracyClass accuracy_;
  std::map<std::string, std::unique_ptr<Method>> instances_;
  Method* delegate_ = nullptr;
  std::optional<AutoChoice> choice_;
};

// auto runs what this machine can: GPU methods on device memory where there is a CUDA device, CPU
// methods on host memory where there is none; its backend says which, so callers pass the right views.
MethodEntry make_entry(MethodInfo info, AccuracyClass accuracy) {
  info.backend = cuda_device_status().available ? Backend::Cuda : Backend::Cpu;
  info.filters_along_x_only = info.backend == Backend::Cpu;  // as the methods it can choose from
  info.formats = FormatSet::all();  // whichever its candidates take (unsupported_reason says when none does)
  return {info, [info, accuracy] { return std::make_unique<AutoMethod>(info, accuracy); }};
}

}  // namespace

std::optional<AutoChoice> auto_choice_of(const Method& method) {
  if (const auto* a = dynamic_cast<const AutoMethod*>(&method)) return a->choice();
  return std::nullopt;
}

MethodEntry auto_method() {
  return make_entry({"auto", "Auto (fastest measured here)",
                     "Runs the method measured fastest on this GPU for the size, format and sigma (a short "
                     "calibration on first use, cached per GPU, driver and build); approximations within 0.8 levels "
                     "RGBA8 / 1e-3 F32 allowed",
                     "the chosen method's bound, never more than 0.8 levels (RGBA8) or 1e-3 relative (F32)",
                     Backend::Cuda},
                    AccuracyClass::Approximate);
}

MethodEntry auto_exact_method() {
  return make_entry({"auto_exact", "Auto, FIR accuracy",
                     "As auto, among the methods with FIR-class accuracy only (float rounding: 0.51 levels RGBA8, "
                     "1e-5 F32)",
                     "the chosen method's bound: at most 0.51 levels (RGBA8) or 1e-5 relative (F32)", Backend::Cuda},
                    AccuracyClass::Exact);
}

}  // namespace gausslab
