// auto and auto_exact — run, for each problem, the registered method measured fastest on this GPU
// (auto_method.hpp): the candidates are the methods that can run the problem within the accuracy
// class (auto: the project's cap for approximations, kApproximationCap; auto_exact: the FIR class,
// kFloatRoundingBound); their times come from the cached calibration table, interpolated in sigma and
// scaled by the pixel count. Without a CUDA device: cpu_openmp (cpu_separable on one thread); so
// too their CPU forms (auto_on_host), for a caller that runs CPU methods only beside a device.
// The chosen method's instance does the work: prepare() chooses and prepares it, run() runs it, its
// stages are the ones recorded, its bound is the one promised.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

constexpr const char* kAutoPromise = "the chosen method's bound, never more than the cap for approximations";
constexpr const char* kAutoExactPromise = "the chosen method's bound, never more than the FIR class";

class AutoMethod final : public Method {
 public:
  AutoMethod(MethodInfo info, AccuracyClass accuracy, bool gpu_allowed)
      : info_(std::move(info)), accuracy_(accuracy), gpu_allowed_(gpu_allowed) {}

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
    const double cap = bound_for(accuracy_cap(accuracy_), problem.format);
    return "no method can run this " + std::string(to_string(problem.format)) + " image within " + info_.id +
           "'s accuracy class (" + bound_number(cap) +
           (is_integer(sample_type(problem.format)) ? " levels" : " of the peak") +
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
  bool gpu() const { return gpu_allowed_ && cuda_device_status().available; }

  std::vector<std::string> candidates(const FilterProblem& problem) const {
    return auto_candidates(problem, accuracy_, gpu());
  }

  AutoChoice choose(const FilterProblem& problem) const {
    if (!gpu())
      return gpu_allowed_ ? choose_without_gpu(problem)
                          : choose_without_gpu(problem, "the CPU methods only (the cpu path)");
    return choose_fastest(auto_calibration(problem.format), candidates(problem), problem);
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
  bool gpu_allowed_;  // false in the CPU form: CPU methods on host memory, device or not
  std::map<std::string, std::unique_ptr<Method>> instances_;
  Method* delegate_ = nullptr;
  std::optional<AutoChoice> choice_;
};

// auto runs what this machine can: GPU methods on device memory where there is a CUDA device, CPU
// methods on host memory where there is none or where gpu_allowed is false; its backend says which,
// so callers pass the right views.
MethodEntry make_entry(MethodInfo info, AccuracyClass accuracy, const char* how, bool gpu_allowed = true) {
  info.backend = gpu_allowed && cuda_device_status().available ? Backend::Cuda : Backend::Cpu;
  info.filters_along_x_only = info.backend == Backend::Cpu;  // as the methods it can choose from
  info.formats = FormatSet::all();  // whichever its candidates take (unsupported_reason says when none does)
  info.accuracy = accuracy_promise(how, accuracy_cap(accuracy), info.formats);
  return {info, [info, accuracy, gpu_allowed] { return std::make_unique<AutoMethod>(info, accuracy, gpu_allowed); }};
}

}  // namespace

std::optional<AutoChoice> auto_choice_of(const Method& method) {
  if (const auto* a = dynamic_cast<const AutoMethod*>(&method)) return a->choice();
  return std::nullopt;
}

MethodEntry auto_method() {
  return make_entry({"auto", "Auto (fastest measured here)",
                     "Runs the method measured fastest on this GPU for the size, format and sigma (a short "
                     "calibration on first use, cached per GPU, driver and build); approximations allowed",
                     {}, Backend::Cuda},
                    AccuracyClass::Approximate, kAutoPromise);
}

std::optional<MethodEntry> auto_on_host(const MethodEntry& entry) {
  if (entry.info.id != "auto" && entry.info.id != "auto_exact") return std::nullopt;
  MethodInfo info = entry.info;
  info.summary = "On a path that runs CPU methods only: the CPU filter on every core, as without a GPU";
  const AccuracyClass accuracy = info.id == "auto" ? AccuracyClass::Approximate : AccuracyClass::Exact;
  return make_entry(info, accuracy, info.id == "auto" ? kAutoPromise : kAutoExactPromise, false);
}

MethodEntry auto_exact_method() {
  return make_entry({"auto_exact", "Auto, FIR accuracy",
                     "As auto, among the methods with FIR-class accuracy only (float32 rounding)", {}, Backend::Cuda},
                    AccuracyClass::Exact, kAutoExactPromise);
}

}  // namespace gausslab
