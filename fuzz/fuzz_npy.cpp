// Fuzz target: the .npy reader (1D float32/float64 signals). Either a signal or an NpyError.
#include <cstddef>
#include <cstdint>

#include "gausslab/core/npy_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const gausslab::NpySignal signal = gausslab::read_npy_1d_from_memory(data, size, "fuzz-input.npy");
    if (signal.size() == 0) __builtin_trap();  // an empty array is refused, never returned
  } catch (const gausslab::NpyError&) {
  }
  return 0;
}
