#include "gausslab/core/method_info.hpp"

namespace gausslab {

const char* to_string(Backend backend) { return backend == Backend::Cpu ? "cpu" : "cuda"; }

}  // namespace gausslab
