#pragma once
// What every method, CPU or GPU, tells about itself.
#include <string>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {

enum class Backend : int { Cpu, Cuda };

struct MethodInfo {
  std::string id;        // stable: CLI, tests and results use it, e.g. "separable_shared"
  std::string label;     // for the GUI, e.g. "Separable (shared memory)"
  std::string summary;   // one line: the idea and its cost as a function of sigma
  std::string accuracy;  // one line: the bound it promises against the float64 reference (the tooltip;
                         // measured errors are the viewer's live check and docs/, not the binary's)
  Backend backend = Backend::Cuda;
  // Filters along x only when FilterParams::axes asks for it (1D signals). A method without this
  // refuses such problems (axes_refusal) instead of blurring them in 2D.
  bool filters_along_x_only = false;
  // Each output pixel is the same fixed sum over its window (radius rows above and below) wherever it
  // lies, so filtering row bands that carry a halo of radius rows gives the single pass's bytes (the
  // FIR window methods). False for the methods whose result depends on more than the window or on
  // where a tile falls (FFT, the recursive filters, multires, the tensor-core tiles, auto's choice);
  // their bands agree with the single pass within their accuracy bound only.
  bool same_bytes_in_bands = false;
  // Can compute just a tile's core from a source whose halo (the radius around it) the caller has
  // put in memory (HaloReads, cuda/halo_reads.hpp): a sliced run's tiles then cost their core, not
  // core and halo (shared_2d and naive_2d, whose halo outweighs a small core many times over).
  bool computes_core_from_halo = false;
};

const char* to_string(Backend backend);  // "cpu" or "cuda"

// Empty when `info`'s method can filter along these axes; otherwise the reason, for the user.
std::string axes_refusal(const MethodInfo& info, FilterAxes axes);

}  // namespace gausslab
