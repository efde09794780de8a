#include "gausslab/cuda/registry.hpp"

#include <optional>

#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

// Each method file in cuda/methods/ defines one entry function.
MethodEntry cpu_separable_method();     // cpu_methods.cpp
MethodEntry cpu_openmp_method();        // cpu_methods.cpp
MethodEntry naive_2d_method();          // naive_2d.cu
MethodEntry shared_2d_method();         // shared_2d.cu
MethodEntry separable_shared_method();  // separable_shared.cu
MethodEntry separable_texture_method(); // separable_texture.cu
MethodEntry separable_fused_method();   // separable_fused.cu
MethodEntry fft_method();               // fft.cu
MethodEntry recursive_method();         // recursive.cu
MethodEntry tiled_1d_method();          // tiled_1d.cu
MethodEntry lut_2d_method();            // lut_2d.cu
MethodEntry multires_method();          // multires.cu
MethodEntry recursive_tiled_method();   // recursive_tiled.cu
MethodEntry auto_method();              // auto.cpp
MethodEntry auto_exact_method();        // auto.cpp
MethodEntry separable_mma_method();     // separable_mma.cu
MethodEntry separable_tf32_method();    // separable_tf32.cu
MethodEntry separable_int8_method();    // separable_int8.cu

const std::vector<MethodEntry>& method_registry() {
  // The order is the GUI's order and its number keys (1–9 for the first nine).
  static const std::vector<MethodEntry> registry = {
      cpu_separable_method(),
      cpu_openmp_method(),
      naive_2d_method(),
      shared_2d_method(),
      separable_shared_method(),
      separable_texture_method(),
      separable_fused_method(),
      fft_method(),
      recursive_method(),
      tiled_1d_method(),
      lut_2d_method(),
      separable_mma_method(),
      separable_tf32_method(),
      separable_int8_method(),
      recursive_tiled_method(),
      multires_method(),
      auto_method(),
      auto_exact_method(),
  };
  return registry;
}

const std::vector<MethodEntry>& method_registry(bool gpu_methods_run) {
  if (gpu_methods_run || !cuda_device_status().available) return method_registry();
  static const std::vector<MethodEntry> cpu_only = [] {
    std::vector<MethodEntry> entries = method_registry();
    for (MethodEntry& entry : entries)
      if (std::optional<MethodEntry> host = auto_on_host(entry)) entry = std::move(*host);
    return entries;
  }();
  return cpu_only;
}

bool runs_on_gpu(int index, bool gpu_methods_run) {
  return index >= 0 &&
         method_registry(gpu_methods_run).at(static_cast<std::size_t>(index)).info.backend == Backend::Cuda;
}

const MethodEntry* find_method(std::string_view id) {
  for (const MethodEntry& entry : method_registry())
    if (entry.info.id == id) return &entry;
  return nullptr;
}

std::string method_id_list() {
  std::string list;
  for (const MethodEntry& entry : method_registry()) {
    if (!list.empty()) list += ", ";
    list += entry.info.id;
  }
  return list;
}

std::string method_unavailable_reason(const MethodEntry& entry) {
  if (entry.info.backend == Backend::Cpu) return {};
  const CudaDeviceStatus& device = cuda_device_status();
  return device.available ? std::string() : device.reason;
}

}  // namespace gausslab
