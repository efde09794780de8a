#pragma once
// gausslab's public C++ interface: Gaussian filtering of images in device memory (on the caller's
// CUDA stream, with no synchronisation) or in host memory, by gausslab's GPU and CPU methods.
//
//   gausslab::Filter blur(gausslab::FilterOptions{gausslab::Kernel::gaussian(2.0)});
//   blur.run_device({d_src, pitch, width, height, gausslab::PixelType::rgba8()},
//                   {d_dst, pitch, width, height, gausslab::PixelType::rgba8()}, stream);
//
// This header is the installed package's promise: it includes no other gausslab header and no CUDA
// header (a stream is CUstream_st*, which is what cudaStream_t is), and its names live in the
// inline namespace gausslab::v1, so that a later incompatible version can sit beside it.
// Thread-safety: a Filter is used by one thread at a time; different Filters may run at once on
// different threads and streams (docs/library.md, "Threads and streams").
// Errors are thrown as gausslab::Error subclasses whose what() says the reason and what to change.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct CUstream_st;

namespace gausslab {
inline namespace v1 {

// A CUDA stream (a cudaStream_t); nullptr is the legacy default stream.
using Stream = CUstream_st*;

// ---- Versions --------------------------------------------------------------------------------

// "0.1.0+1a2b3c4d5e6f": the version and the commit the library was built from.
std::string version();
// Several lines: the version and commit, the CUDA runtime and driver, and the GPU or why there is none.
std::string build_report();

// ---- Pixels and images -----------------------------------------------------------------------

// How each sample is stored: 8- or 16-bit unsigned levels, IEEE half or float. Arithmetic is
// float32; integer stores round half up (or as FilterOptions::rounding says) and saturate, float
// stores keep what IEEE gives (NaN, inf).
enum class SampleType : std::uint8_t { U8, U16, F16, F32 };

// A pixel: a sample type and 1 to 4 interleaved channels (grey, grey+alpha, RGB, RGBA).
struct PixelType {
  SampleType sample = SampleType::U8;
  int channels = 4;

  static constexpr PixelType rgba8() { return {SampleType::U8, 4}; }
  static constexpr PixelType grey_f32() { return {SampleType::F32, 1}; }
  // Bytes of one pixel (0 for channels outside 1-4).
  constexpr std::size_t bytes() const {
    return channels < 1 || channels > 4 ? 0
           : static_cast<std::size_t>(channels) * (sample == SampleType::U8 ? 1 : sample == SampleType::F32 ? 4 : 2);
  }
  friend constexpr bool operator==(PixelType a, PixelType b) { return a.sample == b.sample && a.channels == b.channels; }
  friend constexpr bool operator!=(PixelType a, PixelType b) { return !(a == b); }
};

// "rgba8", "grey16", "rgb16f", "f32", ... (the names gausslab-filter --output-type and the docs use).
std::string to_string(PixelType pixel);

// An image, or a stack of `batch` images of one shape, in memory the caller owns (host or device:
// the call says which). Rows are pitch_bytes apart; image i of the stack starts at
// data + i × batch_stride_bytes (0: height × pitch_bytes, images back to back).
struct ImageRef {
  void* data = nullptr;
  std::size_t pitch_bytes = 0;
  int width = 0;
  int height = 0;
  PixelType pixel;
  int batch = 1;
  std::size_t batch_stride_bytes = 0;
};

// The same, read-only.
struct ConstImageRef {
  const void* data = nullptr;
  std::size_t pitch_bytes = 0;
  int width = 0;
  int height = 0;
  PixelType pixel;
  int batch = 1;
  std::size_t batch_stride_bytes = 0;

  ConstImageRef() = default;
  ConstImageRef(const void* d, std::size_t pitch, int w, int h, PixelType p, int n = 1, std::size_t stride = 0)
      : data(d), pitch_bytes(pitch), width(w), height(h), pixel(p), batch(n), batch_stride_bytes(stride) {}
  ConstImageRef(const ImageRef& image)  // NOLINT: a writable image is readable
      : ConstImageRef(image.data, image.pitch_bytes, image.width, image.height, image.pixel, image.batch,
                      image.batch_stride_bytes) {}
};

// ---- Parameters ------------------------------------------------------------------------------

// The kernel: a sampled, normalised Gaussian exactly as scipy.ndimage builds it (the default), or
// custom weights applied as scipy.ndimage.correlate applies them with origin 0 (convolve: flipped,
// as scipy.ndimage.convolve), neither symmetric nor normalised necessarily:
//   weights  one 1D mask along each filtered axis (along x only with Axes::RowsOnly);
//   pair     a mask along x and one along y (a separable 2D kernel);
//   matrix   out[y][x] = sum_j,i m[j][i] · in[y + j − height/2][x + i − width/2], rows of m along y;
//            a matrix that is the outer product of two masks (within float rounding) runs separably.
// Every size is odd (a kernel needs a centre tap: append a 0 to an even one for SciPy's centre,
// index size/2), at most 4001 taps a mask and 2^20 a matrix; weights finite.
struct Kernel {
  enum class Kind : std::uint8_t { Gaussian, Weights, Pair, Matrix };
  Kind kind = Kind::Gaussian;
  double sigma = 2.0;     // Gaussian: in pixels, 0.1 to 200
  double truncate = 4.0;  // Gaussian: radius = floor(truncate × sigma + 0.5), as SciPy; 0.5 to 10
  int radius = -1;        // Gaussian: >= 0 sets the radius directly (0 to 2000) and truncate is not used
  std::vector<double> x;  // Weights: the mask; Pair: the mask along x (each row)
  std::vector<double> y;  // Pair: the mask along y (each column)
  int matrix_width = 0;   // Matrix: columns (along x)
  int matrix_height = 0;  // Matrix: rows (along y)
  std::vector<double> matrix;  // Matrix: matrix_height rows of matrix_width weights, the top row first
  bool convolve = false;       // custom: flip the kernel (scipy.ndimage.convolve instead of correlate)
  bool normalize = false;      // custom: divide the result by the kernel's sum (refused when it is 0)

  // A Gaussian of `sigma` cut at truncate × sigma.
  static Kernel gaussian(double sigma, double truncate = 4.0) {
    Kernel k;
    k.sigma = sigma;
    k.truncate = truncate;
    return k;
  }
  // A Gaussian of `sigma` with the radius given.
  static Kernel gaussian_with_radius(double sigma, int radius) {
    Kernel k;
    k.sigma = sigma;
    k.radius = radius;
    return k;
  }
  // One mask along each filtered axis: weights({1, 2, 1}).
  static Kernel weights(std::vector<double> mask);
  // A mask along x and one along y: pair({-1, 0, 1}, {1, 2, 1}) is a Sobel kernel.
  static Kernel pair(std::vector<double> along_x, std::vector<double> along_y);
  // A width × height matrix, `rows` top row first.
  static Kernel matrix_2d(int width, int height, std::vector<double> rows);
  // This kernel flipped (convolution), or divided by its sum.
  Kernel convolved() const;
  Kernel normalized() const;
  // Custom weights rather than the Gaussian.
  bool custom() const { return kind != Kind::Gaussian; }
  // The farthest tap from the centre along either axis (the Gaussian: 2 × radius + 1 taps).
  int effective_radius() const;
};

// How the image is extended beyond its edges, named as scipy.ndimage names the modes.
enum class Border : std::uint8_t {
  Reflect,   // d c b a | a b c d | d c b a  (SciPy's default)
  Mirror,    // d c b | a b c d | c b a      (OpenCV's REFLECT_101)
  Nearest,   // a a a | a b c d | d d d
  Constant,  // 0 0 0 | a b c d | 0 0 0
  Wrap,      // a b c | a b c d | a b c
};
// "reflect", "mirror", "nearest", "constant", "wrap".
std::string to_string(Border border);

// The error a method may have against the float64 convolution:
//   Exact        float rounding: 1e-5 relative (float types), 0.51 levels (integer types);
//   Approximate  also the fast approximations (recursive, FFT, multires): 1e-3 relative, 0.8 levels;
//   Any          a named method's own bound, whatever it is (auto takes it as Approximate).
enum class Accuracy : std::uint8_t { Exact, Approximate, Any };

// The axes filtered: both (an image), or along x only (each row a 1D signal).
enum class Axes : std::uint8_t { Both, RowsOnly };

// How integer samples (u8, u16) are stored: half up, or floor or ceil (SciPy's integer outputs
// truncate, which is floor for results >= 0). Float samples are stored as computed.
enum class Rounding : std::uint8_t { Nearest, Floor, Ceil };

struct FilterOptions {
  Kernel kernel;
  Border border = Border::Reflect;
  // A method id (gausslab::methods(), e.g. "separable_shared", "cpu_openmp") or "auto": the fastest
  // method measured on this GPU that meets `accuracy` (the CPU methods where there is no GPU).
  std::string method = "auto";
  // auto chooses within it; a named method whose bound is looser is refused.
  Accuracy accuracy = Accuracy::Exact;
  Axes axes = Axes::Both;
  // Floor and ceil lose up to a level where half up loses half of one: the accuracy classes allow it.
  Rounding rounding = Rounding::Nearest;
};

// ---- Errors ----------------------------------------------------------------------------------

// Every error gausslab throws; what() says the reason and what to change.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A parameter or an image description that is wrong whatever the method (NaN sigma, pitch too small, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};
// The method cannot run this problem (its radius limit, pixel type, memory kind, accuracy): change
// the parameters or choose another method.
class Refused : public Error {
 public:
  using Error::Error;
};
// No usable CUDA device (no GPU, no driver): only host images on the CPU methods can be filtered.
class NoDevice : public Error {
 public:
  using Error::Error;
};
// Device memory ran out; requested_bytes() is the allocation that failed. A smaller problem may run.
class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& message, std::size_t requested_bytes) : Error(message), requested_(requested_bytes) {}
  std::size_t requested_bytes() const { return requested_; }

 private:
  std::size_t requested_;
};
// Any other CUDA failure (a kernel that did not launch, a fault); context_broken() when every later
// CUDA call of this process will fail too.
class CudaFailure : public Error {
 public:
  CudaFailure(const std::string& message, bool context_broken) : Error(message), broken_(context_broken) {}
  bool context_broken() const { return broken_; }

 private:
  bool broken_;
};

// ---- Methods ---------------------------------------------------------------------------------

// One registered method, as gausslab::methods() lists it.
struct MethodDescription {
  std::string id;            // "separable_shared"
  std::string label;         // "Separable (shared memory)"
  std::string summary;       // the idea and its cost as a function of sigma
  std::string accuracy;      // the bound it promises against the float64 convolution
  bool gpu = false;          // runs on device memory (else on host memory, on the CPU)
  bool available = false;    // can run on this machine
  std::string unavailable;   // why not, when not available
  bool rows_only = false;    // also filters along x only (Axes::RowsOnly)
  std::vector<PixelType> pixel_types;  // the pixel types it filters
  std::string kernels;       // the kernels it runs: "gaussian only", "separable" (custom masks, pairs,
                             // rank-1 matrices too) or "any 2D"
  bool all_roundings = false;  // also Rounding::Floor and Ceil for integer samples (else Nearest only)
};

// Every method, in the registry's order (the CPU methods first); "auto" chooses among them.
std::vector<MethodDescription> methods();

// Where the images of a call live: run_host takes host memory, run_device device memory.
enum class Memory : std::uint8_t { Host, Device };

// Which method a Filter runs for a problem, and why. Where auto runs host images on the CPU although
// there is a GPU (no GPU method takes the kernel, rounding or pixel type), `why` says which GPU
// method refused it and its reason.
struct Choice {
  std::string method;         // the method that runs ("separable_fused"); never "auto"
  bool gpu = false;           // on the GPU (device memory; host images are uploaded and downloaded)
  std::string why;            // one line: "auto: fastest measured on NVIDIA H200 ...", "asked for"
  double bound_relative = 0;  // its promised error for float types, relative to the peak
  double bound_levels = 0;    // its promised error for integer types, in the type's levels
};

// ---- The filter ------------------------------------------------------------------------------

// A filter with fixed parameters (a Gaussian or custom weights). It keeps the prepared methods (plans, scratch buffers,
// weights) of the last few image shapes, so repeated calls of one shape allocate nothing.
class Filter {
 public:
  // Throws InvalidArgument for parameters out of range or an unknown method id.
  explicit Filter(const FilterOptions& options);
  ~Filter();
  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;

  // The options it was built with.
  const FilterOptions& options() const;

  // Filters src into dst, both in device memory of the current CUDA device (same width, height,
  // pixel type and batch; they must not overlap), enqueued on `stream`; returns without waiting for
  // the GPU. A batch is one CUDA graph launch from its second call with the same arrays (the first
  // runs image by image). Throws Refused, NoDevice, OutOfMemory, CudaFailure, InvalidArgument (a
  // host pointer).
  void run_device(const ConstImageRef& src, const ImageRef& dst, Stream stream = nullptr);

  // Filters src into dst in host memory and returns when dst is written: on the GPU with an upload
  // and a download (device buffers kept between calls) where there is one, else on the CPU.
  void run_host(const ConstImageRef& src, const ImageRef& dst);

  // The method run_device (Memory::Device) or run_host (Memory::Host) would run for this shape, and
  // why; runs nothing. Throws Refused when none can, NoDevice for device memory without a GPU.
  Choice choose(int width, int height, PixelType pixel, Memory memory) const;

  // The choice of the last successful run (method empty before the first).
  const Choice& last_choice() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace v1
}  // namespace gausslab
