// gausslab::Filter: the public filter object over the registry's methods. It turns the caller's
// image descriptions into views, chooses the method (auto: the fastest measured on this GPU within
// the accuracy class; the CPU methods without a GPU), keeps prepared instances of the last few
// problems (their plans and scratch), and turns internal exceptions into the public error types.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"
#include "internal_names.hpp"
#include "api_conversions.hpp"
#include "batch_graph.hpp"
#include "gausslab/gausslab.hpp"

namespace gausslab::v1 {

namespace {

// Prepared instances kept per Filter: enough for a caller alternating between a few shapes (a
// pyramid's levels, the two orientations of a band) without re-planning at every call.
constexpr std::size_t kKeptProblems = 4;

bool is_auto_id(const std::string& id) { return id == "auto" || id == "auto_exact"; }


std::string describe_image(const char* name, const ConstImageRef& image) {
  std::string text = std::string(name) + " " + std::to_string(image.width) + "×" + std::to_string(image.height) + " " +
                     to_string(image.pixel) + " (pitch " + std::to_string(image.pitch_bytes) + " bytes";
  if (image.batch != 1) text += ", batch " + std::to_string(image.batch);
  return text + ")";
}

std::size_t batch_stride(const ConstImageRef& image) {
  return image.batch_stride_bytes ? image.batch_stride_bytes : image.pitch_bytes * static_cast<std::size_t>(image.height);
}

// Bytes from the first to one past the last byte an image (stack) covers.
std::size_t extent_bytes(const ConstImageRef& image) {
  const std::size_t one = image.pitch_bytes * static_cast<std::size_t>(image.height - 1) +
                          image.pixel.bytes() * static_cast<std::size_t>(image.width);
  return batch_stride(image) * static_cast<std::size_t>(image.batch - 1) + one;
}

void check_image(const char* name, const ConstImageRef& image) {
  auto fail = [&](const std::string& why) { throw InvalidArgument(describe_image(name, image) + ": " + why); };
  if (!image.data) fail("the data pointer is null");
  if (image.width < 1 || image.height < 1) fail("width and height must be at least 1");
  if (image.pixel.channels < 1 || image.pixel.channels > 4) fail("channels must be 1 to 4");
  if (image.pitch_bytes < image.pixel.bytes() * static_cast<std::size_t>(image.width))
    fail("the pitch is smaller than a row (" + std::to_string(image.pixel.bytes() * image.width) + " bytes)");
  if (image.batch < 1) fail("the batch must hold at least 1 image");
  if (image.batch > 1 && batch_stride(image) < image.pitch_bytes * static_cast<std::size_t>(image.height - 1) +
                                                   image.pixel.bytes() * static_cast<std::size_t>(image.width))
    fail("batch_stride_bytes is smaller than one image: the images would overlap");
}

void check_pair(const ConstImageRef& src, const ImageRef& dst) {
  check_image("src", src);
  check_image("dst", dst);
  if (src.width != dst.width || src.height != dst.height || src.pixel != dst.pixel || src.batch != dst.batch)
    throw InvalidArgument(describe_image("src", src) + " and " + describe_image("dst", dst) +
                          " differ: give dst the same width, height, pixel type and batch");
  const auto a = reinterpret_cast<std::uintptr_t>(src.data), b = reinterpret_cast<std::uintptr_t>(dst.data);
  if (a < b + extent_bytes(dst) && b < a + extent_bytes(src))
    throw InvalidArgument("src and dst overlap: gausslab does not filter in place; give dst its own memory");
}

// The memory kind of a pointer as CUDA sees it (Unregistered: plain host memory).
cudaMemoryType memory_type(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    return cudaMemoryTypeUnregistered;
  }
  return attributes.type;
}

ImageView view_of(const ImageRef& image, int index) {
  return {static_cast<char*>(image.data) + batch_stride(image) * static_cast<std::size_t>(index), image.width,
          image.height, image.pitch_bytes, internal_format(image.pixel)};
}

ConstImageView view_of(const ConstImageRef& image, int index) {
  return {static_cast<const char*>(image.data) + batch_stride(image) * static_cast<std::size_t>(index), image.width,
          image.height, image.pitch_bytes, internal_format(image.pixel)};
}

// Why the GPU methods refuse a problem, as one of them says it: the first available one that takes
// the pixel type (so the reason is the kernel, rounding or axes), else the first available one;
// empty when one of them takes it.
std::string gpu_refusal(const FilterProblem& problem) {
  std::string first;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || is_auto_id(entry.info.id) || !method_unavailable_reason(entry).empty())
      continue;
    const std::string reason = entry.create()->unsupported_reason(problem);
    if (reason.empty()) return {};
    if (format_refusal(entry.info, problem.format).empty()) return entry.info.id + ": " + reason;
    if (first.empty()) first = entry.info.id + ": " + reason;
  }
  return first;
}

// An instance that shares no device-wide state (naive_2d's constant bank) with other Filters.
std::unique_ptr<Method> own_instance(const std::string& id) {
  const MethodEntry* entry = find_method(id);
  return entry->create_for_worker ? entry->create_for_worker() : entry->create();
}

// One prepared method for one problem.
struct Prepared {
  FilterProblem problem;
  Memory memory = Memory::Host;  // with the problem, the key: host images may run on the CPU or the GPU
  std::unique_ptr<Method> method;
  Choice choice;
  std::unique_ptr<api_internal::BatchGraph> batch;  // device batches of this problem as graph launches
};

}  // namespace

struct Filter::State {
  FilterOptions options;
  FilterParams params;
  const MethodEntry* named = nullptr;  // the method asked for; nullptr for auto
  std::vector<Prepared> kept;          // most recently used first
  Choice last;
  // run_host on the GPU: the device copies of the images and the stream they go through.
  DeviceImage d_src, d_dst;
  cudaStream_t host_stream = nullptr;

  ~State() {
    if (host_stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(host_stream));
  }

  AccuracyClass accuracy_class() const {
    return options.accuracy == Accuracy::Exact ? AccuracyClass::Exact : AccuracyClass::Approximate;
  }

  // The choice for a problem on the GPU (gpu) or the CPU, without preparing anything.
  Choice choose(const FilterProblem& problem, bool gpu) const {
    Choice choice;
    choice.gpu = gpu;
    if (named) {
      choice.method = named->info.id;
      choice.why = "asked for";
    } else {
      const std::vector<std::string> candidates = auto_candidates(problem, accuracy_class(), gpu);
      if (candidates.empty()) {
        const std::string refusal = gpu ? gpu_refusal(problem) : std::string();
        throw Refused("no " + std::string(gpu ? "GPU" : "CPU") + " method can filter " + describe_problem(problem) +
                      " within the " + (options.accuracy == Accuracy::Exact ? "exact" : "approximate") +
                      " accuracy class" +
                      (refusal.empty() ? "; name a method to see its own reason"
                                       : " (" + refusal + "); run_host runs such problems on the CPU methods"));
      }
      AutoChoice pick;
      if (gpu) {
        pick = choose_fastest(auto_calibration(), candidates, problem);
      } else {
        pick = choose_without_gpu(problem);
        if (std::find(candidates.begin(), candidates.end(), pick.method_id) == candidates.end())
          pick = {candidates.front(), 0.0, "the first CPU method that can run it"};
      }
      choice.method = pick.method_id;
      choice.why = "auto: " + pick.why;
    }
    const MethodEntry* entry = find_method(choice.method);
    const std::unique_ptr<Method> method = entry->create();
    if (std::string reason = method->unsupported_reason(problem); !reason.empty())
      throw Refused(choice.method + " cannot filter " + describe_problem(problem) + ": " + reason);
    const AccuracyBound bound = method->accuracy_bound(problem);
    const AccuracyBound cap = accuracy_cap(accuracy_class());
    // Floor and ceil lose up to a level where half up loses half of one: the caller's choice, not
    // the method's error (as auto_candidates allows it).
    const bool integer = is_integer(sample_type(problem.format));
    const double allowance = integer && problem.params.rounding != IntegerRounding::Nearest ? 0.5 : 0.0;
    if (options.accuracy != Accuracy::Any &&
        bound_for(bound, problem.format) > (bound_for(cap, problem.format) + allowance) * (1 + 1e-9))
      throw Refused(choice.method + " promises " + describe(bound) + ", looser than the " +
                    (options.accuracy == Accuracy::Exact ? "exact" : "approximate") + " accuracy class (" +
                    describe(cap) + ")" +
                    (options.accuracy == Accuracy::Exact
                         ? ": ask for Accuracy::Approximate (or Any) or choose an exact method"
                         : ": ask for Accuracy::Any to run it with its own bound, or choose a more accurate method"));
    choice.bound_relative = bound.max_relative_error;
    choice.bound_levels = sample_type(problem.format) == internal::SampleType::U16 ? bound.max_error_16bit
                                                                                  : bound.max_error_8bit;
    return choice;
  }

  // Whether a problem in `memory` runs on the GPU: device memory always; host memory for a named GPU
  // method, or for auto where there is a GPU and a GPU method takes the problem.
  bool runs_on_gpu(const FilterProblem& problem, Memory memory, bool device) const {
    if (memory == Memory::Device) return true;
    if (named) return named->info.backend == Backend::Cuda;
    return device && !host_falls_back_to_cpu(problem, device);
  }

  // The prepared method for a problem, from the kept ones or made and prepared now.
  Prepared& prepared(const FilterProblem& problem, Memory memory, bool device) {
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].problem == problem && kept[i].memory == memory) {
        std::rotate(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(i), kept.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return kept.front();
      }
    }
    const bool gpu = runs_on_gpu(problem, memory, device);
    if (gpu && !device) throw NoDevice(choice_name() + " needs a GPU: " + cuda_device_status().reason);
    Prepared p;
    p.problem = problem;
    p.memory = memory;
    p.choice = choose(problem, gpu);
    if (memory == Memory::Host && device && !gpu && !named)
      p.choice.why = "auto: no GPU method takes it (" + gpu_refusal(problem) + "), so the CPU ran it: " +
                     p.choice.why.substr(std::string("auto: ").size());
    p.method = own_instance(p.choice.method);
    p.method->prepare(problem);
    if (kept.size() == kKeptProblems) kept.pop_back();
    kept.insert(kept.begin(), std::move(p));
    return kept.front();
  }

  // auto on host images with a GPU here, when no GPU method takes the problem (a pixel type the GPU
  // methods do not have yet, a 1D filter they do not do): the CPU methods run it instead.
  bool host_falls_back_to_cpu(const FilterProblem& problem, bool device) const {
    if (named || !device) return false;
    return auto_candidates(problem, accuracy_class(), true).empty() &&
           !auto_candidates(problem, accuracy_class(), false).empty();
  }

  std::string choice_name() const { return named ? named->info.id : std::string("auto"); }

  // A device batch (src.batch > 1): one CUDA graph launch where it can (batch_graph.hpp), else one
  // run per image; returns what `why` adds about it.
  std::string run_device_batch(Prepared& p, const ConstImageRef& src, const ImageRef& dst, cudaStream_t stream) {
    const std::string n = std::to_string(src.batch);
    auto loop = [&](const std::string& reason) {
      for (int i = 0; i < src.batch; ++i) p.method->run(view_of(src, i), view_of(dst, i), nullptr, stream);
      return "; batch of " + n + ": " + n + " launches (" + reason + ")";
    };
    if (cuda_sync_after_launch())
      return loop("GAUSSLAB_CUDA_SYNC synchronises after every kernel, which a CUDA graph cannot hold");
    if (!p.batch) p.batch = std::make_unique<api_internal::BatchGraph>(own_instance(p.choice.method), p.problem);
    const api_internal::BatchViews views{view_of(src, 0), view_of(dst, 0), batch_stride(src), batch_stride(dst),
                                         src.batch};
    switch (p.batch->run(views, stream)) {
      case api_internal::BatchGraph::Outcome::Launched:
        return "; batch of " + n + ": one CUDA graph launch (each image's kernels inside)";
      case api_internal::BatchGraph::Outcome::FirstSeen:
        return loop("arrays not seen before: the next call with them is one CUDA graph launch");
      case api_internal::BatchGraph::Outcome::InCapture:
        return loop("the stream is being captured into a CUDA graph: the images' runs go into it");
      case api_internal::BatchGraph::Outcome::Loop:
        break;
    }
    return loop(p.batch->unsupported());
  }

  cudaStream_t stream_for_host_runs() {
    if (!host_stream) GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&host_stream, cudaStreamNonBlocking));
    return host_stream;
  }
};

Filter::Filter(const FilterOptions& options) : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->params = internal_params(options);
  if (std::string invalid = validate(state_->params); !invalid.empty()) throw InvalidArgument(invalid);
  if (options.method != "auto") {
    state_->named = find_method(options.method);
    if (!state_->named || is_auto_id(options.method))
      throw InvalidArgument("unknown method '" + options.method + "'; use auto or one of " + method_id_list());
  }
}

Filter::~Filter() = default;
Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;

const FilterOptions& Filter::options() const { return state_->options; }

const Choice& Filter::last_choice() const { return state_->last; }

Choice Filter::choose(int width, int height, PixelType pixel, Memory memory) const {
  return translate_errors([&] {
    const bool device = cuda_device_status().available;
    if (memory == Memory::Device && !device) throw NoDevice("no GPU for device memory: " + cuda_device_status().reason);
    const FilterProblem problem{width, height, internal_format(pixel), state_->params};
    if (std::string invalid = validate(problem); !invalid.empty()) throw Refused(invalid);
    return state_->choose(problem, state_->runs_on_gpu(problem, memory, device));
  });
}

void Filter::run_device(const ConstImageRef& src, const ImageRef& dst, Stream stream) {
  translate_errors([&] {
    check_pair(src, dst);
    if (const CudaDeviceStatus& device = cuda_device_status(); !device.available)
      throw NoDevice("run_device needs a GPU: " + device.reason + "; run_host filters host images on the CPU");
    if (state_->named && state_->named->info.backend == Backend::Cpu)
      throw Refused(state_->named->info.id + " filters host memory: call run_host, or choose a GPU method");
    for (const auto& [name, pointer] : {std::pair{"src", src.data}, std::pair{"dst", static_cast<const void*>(dst.data)}})
      if (memory_type(pointer) == cudaMemoryTypeUnregistered)
        throw InvalidArgument(std::string(name) +
                              " is not device memory (plain host memory): run_device takes memory from cudaMalloc "
                              "(or pinned, managed memory); call run_host for host images");
    const FilterProblem problem{src.width, src.height, internal_format(src.pixel), state_->params};
    if (std::string invalid = validate(problem); !invalid.empty()) throw Refused(invalid);
    Prepared& p = state_->prepared(problem, Memory::Device, true);
    if (src.batch == 1) {
      p.method->run(view_of(src, 0), view_of(dst, 0), nullptr, stream);
      state_->last = p.choice;
    } else {
      const std::string batch = state_->run_device_batch(p, src, dst, stream);
      state_->last = p.choice;
      state_->last.why += batch;
    }
    return 0;
  });
}

void Filter::run_host(const ConstImageRef& src, const ImageRef& dst) {
  translate_errors([&] {
    check_pair(src, dst);
    const bool device = cuda_device_status().available;
    if (device)
      for (const auto& [name, pointer] : {std::pair{"src", src.data}, std::pair{"dst", static_cast<const void*>(dst.data)}})
        if (memory_type(pointer) == cudaMemoryTypeDevice)
          throw InvalidArgument(std::string(name) + " is device memory: call run_device for it");
    const FilterProblem problem{src.width, src.height, internal_format(src.pixel), state_->params};
    if (std::string invalid = validate(problem); !invalid.empty()) throw Refused(invalid);
    Prepared& p = state_->prepared(problem, Memory::Host, device);
    if (!p.choice.gpu) {
      for (int i = 0; i < src.batch; ++i) p.method->run(view_of(src, i), view_of(dst, i), nullptr, nullptr);
    } else {
      const cudaStream_t stream = state_->stream_for_host_runs();
      state_->d_src.resize(src.width, src.height, problem.format);
      state_->d_dst.resize(src.width, src.height, problem.format);
      try {
        for (int i = 0; i < src.batch; ++i) {
          state_->d_src.upload(view_of(src, i), stream);
          p.method->run(state_->d_src.view(), state_->d_dst.view(), nullptr, stream);
          state_->d_dst.download(view_of(dst, i), stream);
        }
      } catch (...) {
        GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));  // nothing launched may outlive the call
        throw;
      }
      GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    state_->last = p.choice;
    return 0;
  });
}

}  // namespace gausslab::v1
