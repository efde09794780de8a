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
};

const std::vector<MethodEntry>& method_registry();

// nullptr for an unknown id.
const MethodEntry* find_method(std::string_view id);

// "cpu_separable, cpu_openmp, naive_2d, ..." for help texts and error messages.
std::string method_id_list();

// Empty when the method can run on this machine at all; for a GPU method without a CUDA device,
// the reason ("no CUDA device: cudaErrorInsufficientDriver ...").
std::string method_unavailable_reason(const MethodEntry& entry);

}  // namespace gausslab
