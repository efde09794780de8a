#include "gausslab/render/shared_texture.hpp"

#include "gl_util.hpp"  // glad first

#include <cuda.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "gausslab/cuda/surface_copy.hpp"
#include "gausslab/render/gl_error.hpp"

namespace gausslab {

namespace {

// The driver API's allocation calls, found through the runtime (the project links no libcuda).
struct DriverCalls {
  decltype(&cuMemCreate) create = nullptr;
  decltype(&cuMemRelease) release = nullptr;
  decltype(&cuMemExportToShareableHandle) export_handle = nullptr;
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuDeviceGet) device = nullptr;
  decltype(&cuDeviceGetAttribute) attribute = nullptr;
  std::string missing;  // the first entry point not found, or ""
};

const DriverCalls& driver_calls() {
  static const DriverCalls calls = [] {
    DriverCalls c;
    auto find = [&](const char* name, auto& function) {
      void* address = nullptr;
      cudaDriverEntryPointQueryResult status{};
      if (cudaGetDriverEntryPointByVersion(name, &address, 12000, cudaEnableDefault, &status) != cudaSuccess ||
          status != cudaDriverEntryPointSuccess || !address) {
        cudaGetLastError();
        if (c.missing.empty()) c.missing = name;
        return;
      }
      function = reinterpret_cast<std::decay_t<decltype(function)>>(address);
    };
    find("cuMemCreate", c.create);
    find("cuMemRelease", c.release);
    find("cuMemExportToShareableHandle", c.export_handle);
    find("cuMemGetAllocationGranularity", c.granularity);
    find("cuDeviceGet", c.device);
    find("cuDeviceGetAttribute", c.attribute);
    return c;
  }();
  return calls;
}

CUmemAllocationProp allocation_properties() {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  int device = 0;
  cudaGetDevice(&device);
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

std::string cuda_failure(const char* step, cudaError_t code) {
  cudaGetLastError();
  return std::string(step) + " failed (" + cudaGetErrorName(code) + ": " + cudaGetErrorString(code) + ")";
}
std::string driver_failure(const char* step, CUresult code) {
  return std::string(step) + " failed (CUresult " + std::to_string(static_cast<int>(code)) + ")";
}

// The layout check's RGBA8 pattern: distinct in every byte of a 64 x 64 texture.
Rgba8 check_pixel(int x, int y) {
  return {static_cast<std::uint8_t>(x), static_cast<std::uint8_t>(y), static_cast<std::uint8_t>((x * 7 + y * 3) & 255),
          static_cast<std::uint8_t>(255 - x)};
}

// Writes the pattern into a shared texture with the copy the viewer's results take
// (launch_copy_to_surface) and reads it back through GL: true when GL sees every byte CUDA wrote.
bool gl_reads_what_cuda_writes() {
  constexpr int kSide = 64;
  ImageRgba8 pattern(kSide, kSide);
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) pattern.at(x, y) = check_pixel(x, y);
  SharedTexture check(kSide, kSide);
  void* device = nullptr;
  const std::size_t bytes = static_cast<std::size_t>(kSide) * kSide * sizeof(Rgba8);
  if (cudaError_t e = cudaMalloc(&device, bytes); e != cudaSuccess) throw std::runtime_error(cuda_failure("cudaMalloc", e));
  cudaError_t e = cudaMemcpy(device, pattern.data(), bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    launch_copy_to_surface({device, kSide, kSide, kSide * sizeof(Rgba8), PixelFormat::Rgba8}, check.surface(), nullptr);
    e = cudaDeviceSynchronize();
  }
  cudaFree(device);
  if (e != cudaSuccess) throw std::runtime_error(cuda_failure("writing the shared-texture check", e));
  const ImageRgba8 seen = check.texture().read();
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) {
      const Rgba8 want = check_pixel(x, y), got = seen.at(x, y);
      if (got.r != want.r || got.g != want.g || got.b != want.b || got.a != want.a) return false;
    }
  return true;
}

}  // namespace

std::string shared_texture_unsupported_reason() {
  if (!GLAD_GL_EXT_memory_object || !GLAD_GL_EXT_memory_object_fd)
    return "the OpenGL context lacks GL_EXT_memory_object_fd";
  const DriverCalls& calls = driver_calls();
  if (!calls.missing.empty()) return "the CUDA driver offers no " + calls.missing;
  int ordinal = 0, supported = 0;
  cudaGetDevice(&ordinal);
  CUdevice device{};
  if (calls.device(&device, ordinal) != CUDA_SUCCESS ||
      calls.attribute(&supported, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device) !=
          CUDA_SUCCESS ||
      !supported)
    return "CUDA device " + std::to_string(ordinal) + " cannot export memory as a file descriptor";
  return {};
}

struct SharedTexture::Cuda {
  CUmemGenericAllocationHandle allocation = 0;
  bool allocated = false;
  cudaExternalMemory_t external = nullptr;
  cudaMipmappedArray_t levels = nullptr;
};

SharedTexture::SharedTexture(int width, int height) : cuda_(std::make_unique<Cuda>()) {
  if (width < 1 || height < 1) throw std::invalid_argument("SharedTexture: size must be at least 1x1");
  const DriverCalls& calls = driver_calls();
  if (!calls.missing.empty()) throw std::runtime_error("the CUDA driver offers no " + calls.missing);
  int fd = -1;
  try {
    const CUmemAllocationProp prop = allocation_properties();
    std::size_t granularity = 0;
    if (CUresult r = calls.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM); r != CUDA_SUCCESS)
      throw std::runtime_error(driver_failure("cuMemGetAllocationGranularity", r));
    // The texture's tiled layout may take more than its pixels: room for a quarter more, whole
    // granules (GL and CUDA each check that their image fits the size they are given).
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    const std::size_t bytes = (pixels + pixels / 4 + 65536 + granularity - 1) / granularity * granularity;
    if (CUresult r = calls.create(&cuda_->allocation, bytes, &prop, 0); r != CUDA_SUCCESS)
      throw std::runtime_error(driver_failure("cuMemCreate", r));
    cuda_->allocated = true;
    if (CUresult r = calls.export_handle(&fd, cuda_->allocation, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        r != CUDA_SUCCESS)
      throw std::runtime_error(driver_failure("cuMemExportToShareableHandle", r));

    // GL: the memory object (it owns the descriptor it is given once the import succeeds) and a
    // texture whose storage it is.
    glCreateMemoryObjectsEXT(1, &memory_object_);
    const GLint dedicated = GL_TRUE;
    glMemoryObjectParameterivEXT(memory_object_, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
    const int gl_fd = dup(fd);
    if (gl_fd < 0) throw std::runtime_error("duplicating the memory's file descriptor failed");
    glImportMemoryFdEXT(memory_object_, bytes, GL_HANDLE_TYPE_OPAQUE_FD_EXT, gl_fd);
    if (std::string error = gl_error_message("glImportMemoryFdEXT"); !error.empty()) {
      close(gl_fd);
      throw std::runtime_error(error);
    }
    GLuint id = 0;
    glGenTextures(1, &id);
    texture_ = Texture::adopt(id, width, height);
    glBindTexture(GL_TEXTURE_2D, id);
    glTexStorageMem2DEXT(GL_TEXTURE_2D, 1, GL_RGBA8, width, height, memory_object_, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (std::string error = gl_error_message("glTexStorageMem2DEXT"); !error.empty()) throw std::runtime_error(error);

    // CUDA: the same memory as an RGBA8 array, and a surface over it.
    cudaExternalMemoryHandleDesc handle{};
    handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
    handle.handle.fd = fd;
    handle.size = bytes;
    handle.flags = cudaExternalMemoryDedicated;
    if (cudaError_t e = cudaImportExternalMemory(&cuda_->external, &handle); e != cudaSuccess)
      throw std::runtime_error(cuda_failure("cudaImportExternalMemory", e));
    fd = -1;  // CUDA owns it now
    cudaExternalMemoryMipmappedArrayDesc image{};
    image.formatDesc = cudaCreateChannelDesc<uchar4>();
    image.extent = make_cudaExtent(static_cast<std::size_t>(width), static_cast<std::size_t>(height), 0);
    image.flags = cudaArraySurfaceLoadStore | cudaArrayColorAttachment;
    image.numLevels = 1;
    if (cudaError_t e = cudaExternalMemoryGetMappedMipmappedArray(&cuda_->levels, cuda_->external, &image);
        e != cudaSuccess)
      throw std::runtime_error(cuda_failure("cudaExternalMemoryGetMappedMipmappedArray", e));
    cudaArray_t level = nullptr;
    if (cudaError_t e = cudaGetMipmappedArrayLevel(&level, cuda_->levels, 0); e != cudaSuccess)
      throw std::runtime_error(cuda_failure("cudaGetMipmappedArrayLevel", e));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = level;
    if (cudaError_t e = cudaCreateSurfaceObject(&surface_, &resource); e != cudaSuccess)
      throw std::runtime_error(cuda_failure("cudaCreateSurfaceObject", e));
  } catch (...) {
    if (fd >= 0) close(fd);
    release();
    throw;
  }
}

SharedTexture::~SharedTexture() { release(); }

void SharedTexture::release() {
  if (surface_) cudaDestroySurfaceObject(surface_);
  surface_ = 0;
  if (cuda_->levels) cudaFreeMipmappedArray(cuda_->levels);
  cuda_->levels = nullptr;
  if (cuda_->external) cudaDestroyExternalMemory(cuda_->external);
  cuda_->external = nullptr;
  texture_.release();
  if (memory_object_) glDeleteMemoryObjectsEXT(1, &memory_object_);
  memory_object_ = 0;
  if (cuda_->allocated) driver_calls().release(cuda_->allocation);
  cuda_->allocated = false;
}

// ---- the ring --------------------------------------------------------------------------------------

SharedTextureRing::SharedTextureRing(int count) : count_(count) {
  if (count < 2) throw std::invalid_argument("SharedTextureRing: at least two textures (one shown, one written)");
}

SharedTextureRing::~SharedTextureRing() { release(); }

void SharedTextureRing::allocate(int width, int height) {
  if (allocated() && width == width_ && height == height_) return;
  release();
  static const bool layout_agrees = gl_reads_what_cuda_writes();  // once a process
  if (!layout_agrees)
    throw std::runtime_error("OpenGL does not read what CUDA writes into memory they share (a 64x64 check)");
  try {
    for (int i = 0; i < count_; ++i) textures_.push_back(std::make_unique<SharedTexture>(width, height));
  } catch (...) {
    textures_.clear();
    throw;
  }
  fences_.assign(static_cast<std::size_t>(count_), nullptr);
  width_ = width;
  height_ = height;
  shown_ = -1;
  next_ = 0;
}

void SharedTextureRing::release() {
  for (void*& f : fences_)
    if (f) glDeleteSync(static_cast<GLsync>(f)), f = nullptr;
  fences_.clear();
  textures_.clear();
  width_ = height_ = 0;
  shown_ = -1;
  next_ = 0;
}

int SharedTextureRing::acquire_for_write() {
  if (!allocated()) throw std::logic_error("SharedTextureRing::acquire_for_write before allocate");
  if (next_ == shown_) next_ = (next_ + 1) % count_;
  const int index = next_;
  next_ = (next_ + 1) % count_;
  void*& f = fences_[static_cast<std::size_t>(index)];
  if (f) {
    // Signalled long since in a steady frame (the texture was last drawn frames ago); the flush bit
    // makes sure it can signal at all. A fence that stays unsignalled for 10 s means a GPU that no
    // longer runs GL's work: an error, not a hang.
    const GLsync sync = static_cast<GLsync>(f);
    const GLenum result = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
    glDeleteSync(sync);
    f = nullptr;
    if (result == GL_TIMEOUT_EXPIRED || result == GL_WAIT_FAILED)
      throw GlError(result == GL_WAIT_FAILED ? "waiting for OpenGL to finish drawing a display texture failed"
                                             : "OpenGL did not finish drawing a display texture within 10 s");
  }
  return index;
}

void SharedTextureRing::fence(int index) {
  void*& f = fences_.at(static_cast<std::size_t>(index));
  if (f) glDeleteSync(static_cast<GLsync>(f));
  f = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

void SharedTextureRing::show(int index) {
  if (index < 0 || index >= count_) throw std::out_of_range("SharedTextureRing::show: no such texture");
  if (shown_ >= 0 && shown_ != index) fence(shown_);
  shown_ = index;
}

void SharedTextureRing::forget_shown() {
  if (shown_ >= 0) fence(shown_);
  shown_ = -1;
}

}  // namespace gausslab
