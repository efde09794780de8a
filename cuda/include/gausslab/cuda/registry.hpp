#pragma once
// The single ordered list of methods: GUI combo and number keys, --method names, GPU tests and the
// benchmark sweep all read it. How to add a method: README.md, "Adding a method".
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct MethodEntry {
  MethodInfo info;
  std::function<std::unique_ptr<Method>()> create;
  // The same method with its compile-time small-radius kernels switched off, the run-time loop for
  // every radius: the benchmark's --unrolled comparison and the tests that the two agree bit for
  // bit. Empty for a method without such kernels.
  std::function<std::unique_ptr<Method>()> create_looped = {};
  // An instance for a background worker that shares no device-wide state with the others, bit for
  // bit the same results (naive_2d: its weights in its own global memory, not the device's one
  // constant bank, whose turns made the viewer's frames wait on the GPU for the worker's tiles).
  // Empty for a method whose instances share nothing anyway.
  std::function<std::unique_ptr<Method>()> create_for_worker = {};
  // Its instances implement FusedPooling (cuda/pooling.hpp): 2×2 pooling fused into the last pass.
  bool fuses_pooling = false;
};

const std::vector<MethodEntry>& method_registry();

// The registry as a caller that runs GPU methods or not sees it. Without them (the viewer's --path cpu
// beside a CUDA device) the same entries in the same order, but auto and auto_exact are their CPU
// forms, choosing the CPU filter on host memory as they do on a machine without a device; with them,
// or without a device, method_registry() itself.
const std::vector<MethodEntry>& method_registry(bool gpu_methods_run);
// Whether entry `index` of that registry runs on the GPU; false for a negative index (the viewer's
// slots that are not methods: the original picture, the exact Gaussian, a reference file).
bool runs_on_gpu(int index, bool gpu_methods_run);
// nullptr for an unknown id.
const MethodEntry* find_method(std::string_view id);

// "cpu_separable, cpu_openmp, naive_2d, ..." for help texts and error messages.
std::string method_id_list();

// Empty when the method can run on this machine at all; for a GPU method without a CUDA device,
// the reason ("no CUDA device: cudaErrorInsufficientDriver ...").
std::string method_unavailable_reason(const MethodEntry& entry);

}  // namespace gausslab
