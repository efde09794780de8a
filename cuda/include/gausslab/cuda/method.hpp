#pragma once
// The method interface. A method is one file in cuda/methods/ (or a CPU baseline from core/),
// listed in the registry, which feeds the GUI, the CLIs, the tests and the benchmark. GPU methods
// derive from GpuMethod (gpu_method.hpp), which holds what every one of them needs.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

class Method {
 public:
  virtual ~Method() = default;

  virtual const MethodInfo& info() const = 0;

  // Empty when this method can run the problem; otherwise the reason, ready to show a user
  // ("radius 800 needs 6.4 MB of constant memory; naive_2d holds at most radius 63 there" ...).
  // Includes parameter validation and a refusal of impractical cost; never needs a device.
  virtual std::string unsupported_reason(const FilterProblem& problem) const = 0;

  // What this method promises for the problem (it may depend on sigma, size or border).
  virtual AccuracyBound accuracy_bound(const FilterProblem& problem) const = 0;

  // Allocates scratch, builds plans, spectra and coefficients for the problem: everything that
  // must stay out of the timed region. Cheap when called again with an unchanged problem.
  // What it throws, and what a caller (the viewer, the batch filter) can do about it:
  //   std::invalid_argument  the method refuses the problem (the reason is unsupported_reason()):
  //                          change the parameters or pick another method;
  //   CudaUnavailable        no usable CUDA device: only the CPU methods can run;
  //   CudaOutOfMemory        the problem does not fit in device memory now; the message names
  //                          what needed how much and what is free: a smaller problem or another
  //                          method may still run;
  //   CudaError              any other CUDA failure; broken_context_reason() (cuda_check.hpp) says
  //                          whether other GPU methods can still run.
  // After a failure the method is not prepared (run() refuses) until a prepare() succeeds.
  virtual void prepare(const FilterProblem& problem) = 0;

  // Filters src into dst for the prepared problem (same size and format; src and dst must not
  // overlap). GPU methods take device views, enqueue on `stream` and never synchronise the host;
  // CPU methods take host views and run synchronously. Stages are recorded in `timer` if given.
  // Throws std::invalid_argument for views that do not fit the prepared problem, CudaError (naming
  // the kernel) when a kernel does not launch; the same rules as prepare() apply.
  virtual void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer,
                   cudaStream_t stream) = 0;

  // The problem prepare() last accepted (width 0 before the first).
  const FilterProblem& prepared_problem() const { return prepared_; }

 protected:
  // For run(): throws std::invalid_argument unless prepared for these views.
  void check_views(const ConstImageView& src, const ImageView& dst) const;
  FilterProblem prepared_{};
};

}  // namespace gausslab
