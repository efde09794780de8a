#pragma once
// The two engines behind create_sequence_engine (private to sequence/).
#include <memory>

#include "gausslab/sequence/sequence_engine.hpp"

namespace gausslab {

std::unique_ptr<SequenceEngine> make_cpu_sequence_engine();
std::unique_ptr<SequenceEngine> make_gpu_sequence_engine();

}  // namespace gausslab
