#pragma once
// What every method, CPU or GPU, tells about itself.
#include <string>

namespace gausslab {

enum class Backend : int { Cpu, Cuda };

struct MethodInfo {
  std::string id;        // stable: CLI, tests and results use it, e.g. "separable_shared"
  std::string label;     // for the GUI, e.g. "Separable (shared memory)"
  std::string summary;   // one line: the idea and its cost as a function of sigma
  std::string accuracy;  // one line: the measured accuracy against the float64 reference
  Backend backend = Backend::Cuda;
};

const char* to_string(Backend backend);  // "cpu" or "cuda"

}  // namespace gausslab
