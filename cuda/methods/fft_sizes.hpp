#pragma once
// The host-side maths of the cuFFT method (fft.cu), apart from cuFFT so that the CPU tests check it
// without a GPU: the fast FFT size, the padded layout and its index rules (the kernels use these
// very functions), the memory estimate, and the kernel's spectrum as two 1D factors.
//
// The padding argument. Put the image at offset r in a line of P >= n + 2r samples and fill every
// other position p with the border extension of the image at p - r. The circular convolution
// with the 2r + 1 taps wrapped around 0 then gives, at position i + r for every image sample i,
// sum_m w[m] line[i + r - m], and i + r - m stays within [0, n + 2r) <= P: no sample wraps, so
// that is exactly the linear convolution of the extended image. Any P >= n + 2r works (the samples
// beyond n + 2r are never read by an output we keep); we pick one that cuFFT transforms fast.
#include <cstddef>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/host_device.hpp"

namespace gausslab::fft {

// Smallest n >= max(minimum, 1) of the form 2^a 3^b 5^c 7^d (the sizes cuFFT handles with its fast
// radices; others fall back to Bluestein, slower and less accurate); with `even`, the smallest
// even one (R2C transforms of an even length run as a half-length complex FFT).
long long fast_fft_size(long long minimum, bool even = false);

// No padded side is shorter than this: keeps cuFFT away from degenerate 1- and 2-point transforms
// (a 1×1 image at radius 0) at no cost worth mentioning.
inline constexpr int kMinPaddedSide = 8;

// The padded side lengths for an image side `n` and `radius`: fast sizes >= n + 2 radius (the
// width even). long long because the caller must check them against cuFFT's int sizes.
long long padded_width_for(long long width, int radius);
long long padded_height_for(long long height, int radius);

// Where everything lives in the method's device buffers. Channel c of the padded image is a
// row-major real plane of Pw × Ph floats; its half spectrum (R2C output, cuFFT's layout) is a
// row-major plane of (Pw/2 + 1) × Ph complex values. Planes of all channels follow each other.
struct FftLayout {
  int width = 0;   // the image
  int height = 0;
  int channels = 1;  // 4 for RGBA8, 1 for F32
  int radius = 0;
  int padded_width = 0;   // Pw >= width + 2 radius, even, 7-smooth
  int padded_height = 0;  // Ph >= height + 2 radius, 7-smooth

  GAUSSLAB_HD int spectrum_width() const { return padded_width / 2 + 1; }
  GAUSSLAB_HD std::size_t real_plane_size() const {
    return static_cast<std::size_t>(padded_width) * static_cast<std::size_t>(padded_height);
  }
  GAUSSLAB_HD std::size_t spectrum_plane_size() const {
    return static_cast<std::size_t>(spectrum_width()) * static_cast<std::size_t>(padded_height);
  }
  // Element index of padded sample (px, py) of channel c in the real planes.
  GAUSSLAB_HD std::size_t real_index(int c, int px, int py) const {
    return static_cast<std::size_t>(c) * real_plane_size() +
           static_cast<std::size_t>(py) * static_cast<std::size_t>(padded_width) + static_cast<std::size_t>(px);
  }
  // Element index of frequency (u, v), u in [0, Pw/2], v in [0, Ph), of channel c in the spectra.
  GAUSSLAB_HD std::size_t spectrum_index(int c, int u, int v) const {
    return static_cast<std::size_t>(c) * spectrum_plane_size() +
           static_cast<std::size_t>(v) * static_cast<std::size_t>(spectrum_width()) + static_cast<std::size_t>(u);
  }
};

// The image sample (along one axis of n samples) that fills padded position `padded`: the image
// sits at offset `radius`, every other position holds its border extension. -1 means a zero
// ('constant'). Exact for any distance from the image (border_index), so also when radius > n.
GAUSSLAB_HD int padded_source_index(int padded, int radius, int n, BorderMode mode) {
  return border_index(padded - radius, n, mode);
}

// The padded position whose circular-convolution result is the output of image sample i.
GAUSSLAB_HD int padded_output_index(int i, int radius) { return i + radius; }

// The layout for a problem that method_limits accepted (padded sides fit in int).
// Throws std::invalid_argument otherwise.
FftLayout make_layout(const FilterProblem& problem);

// Device memory the method needs for a layout, in bytes. The cuFFT work area is an estimate made
// without a device (cuFFT reports the real figure only once a plan exists): one copy of the
// spectra, cuFFT's usual need for 7-smooth out-of-place transforms.
struct FftMemory {
  double real_planes_bytes = 0;
  double spectra_bytes = 0;
  double work_area_bytes = 0;
  double kernel_factors_bytes = 0;
  double total_bytes = 0;
};
FftMemory estimate_memory(long long padded_width, long long padded_height, int channels);

// The method refuses problems whose estimate exceeds this (a fixed figure, so that the answer
// never depends on the device): 4096×4096 RGBA8 at sigma 200 needs about 1.5 GiB.
inline constexpr double kMemoryBudgetBytes = 8.0 * 1024 * 1024 * 1024;

// DFT of a symmetric kernel (weights[radius + m] == weights[radius - m]) of 2 radius + 1 taps,
// placed centred on sample 0 and wrapped (ifftshift) in a line of `length` >= 2 radius + 1
// samples: K(u) = w0 + 2 sum_{m=1..radius} w_m cos(2 pi u m / length), real because the kernel is
// even. Returns K(u) for u in [0, count), computed in float64 from a cosine table (exact index
// arithmetic, so no phase drift even for long lines and wide kernels).
std::vector<double> symmetric_kernel_dft(const std::vector<double>& weights, int length, int count);

// The 2D kernel's spectrum on the R2C half plane as two factors: K(u, v) = x[u] * y[v], because
// the sampled 2D Gaussian is the outer product of two 1D kernels and so is its DFT. cuFFT's
// inverse is unnormalised, so x carries the 1 / (Pw Ph). y is exactly even (y[v] == y[Ph - v]),
// which keeps the product Hermitian on the u = 0 and u = Pw/2 columns that C2R relies on.
struct KernelSpectrum {
  std::vector<double> x;  // u in [0, Pw/2]
  std::vector<double> y;  // v in [0, Ph)
};
KernelSpectrum kernel_spectrum(const FftLayout& layout, const std::vector<double>& weights);

}  // namespace gausslab::fft
