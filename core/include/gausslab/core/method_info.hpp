#pragma once
// What every method, CPU or GPU, tells about itself.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {

enum class Backend : int { Cpu, Cuda };

// A set of pixel formats, one bit per PixelFormat value.
class FormatSet {
 public:
  constexpr FormatSet() = default;
  constexpr FormatSet(std::initializer_list<PixelFormat> formats) {
    for (PixelFormat f : formats) bits_ |= bit(f);
  }
  static constexpr FormatSet all() {
    FormatSet set;
    set.bits_ = (1u << kPixelFormatCount) - 1u;
    return set;
  }
  // Every channel count of the given sample types.
  static constexpr FormatSet of_samples(std::initializer_list<SampleType> samples) {
    FormatSet set;
    for (SampleType s : samples)
      for (int c = 1; c <= 4; ++c) set.bits_ |= bit(make_pixel_format(s, c));
    return set;
  }
  constexpr bool contains(PixelFormat f) const { return is_valid(f) && (bits_ & bit(f)) != 0; }
  constexpr FormatSet operator|(FormatSet other) const {
    FormatSet set;
    set.bits_ = bits_ | other.bits_;
    return set;
  }
  constexpr bool operator==(FormatSet other) const { return bits_ == other.bits_; }
  // "rgba8, f32" (the names in PixelFormat order), or "every format".
  std::string describe() const;

 private:
  static constexpr std::uint32_t bit(PixelFormat f) { return 1u << static_cast<int>(f); }
  std::uint32_t bits_ = 0;
};

// Which kernels a method runs (FilterParams::kernel); it refuses the others (kernel_refusal).
enum class KernelSupport : std::uint8_t {
  GaussianOnly,  // the Gaussian of sigma and truncate or radius
  Separable,     // also custom separable kernels: a 1D mask, an x/y pair, a rank-1 matrix
  Any,           // also any 2D matrix
};

// "gaussian only", "separable", "any 2D".
const char* to_string(KernelSupport kernels);

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
  // The pixel formats the method filters within its bound; others are refused (format_refusal).
  FormatSet formats{PixelFormat::Rgba8, PixelFormat::F32};
  // The kernels it runs; GPU methods: the Gaussian only, for now.
  KernelSupport kernels = KernelSupport::GaussianOnly;
  // Stores integer samples by floor and ceil too (FilterParams::rounding); without it, half up only
  // (rounding_refusal).
  bool all_roundings = false;
};

const char* to_string(Backend backend);  // "cpu" or "cuda"

// Empty when `info`'s method takes this pixel format; otherwise the reason, with the formats it takes.
std::string format_refusal(const MethodInfo& info, PixelFormat format);

// Empty when `info`'s method can filter along these axes; otherwise the reason, for the user.
std::string axes_refusal(const MethodInfo& info, FilterAxes axes);

// Empty when `info`'s method runs this kernel (the Gaussian always; a custom one as its `kernels`
// allow: a matrix counts as separable when it is rank 1); otherwise the reason, for the user.
std::string kernel_refusal(const MethodInfo& info, const FilterParams& params);

// Empty when `info`'s method can store the problem's samples with its rounding (any method for
// float formats and for nearest; floor and ceil of integer samples need all_roundings).
std::string rounding_refusal(const MethodInfo& info, const FilterProblem& problem);

// The refusals every method makes before its own limits: validate, then format_refusal,
// axes_refusal, kernel_refusal and rounding_refusal; empty when none applies.
std::string common_refusal(const MethodInfo& info, const FilterProblem& problem);

}  // namespace gausslab
