#include "gausslab/batch/gpu_lanes.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

namespace {

constexpr std::size_t kPitchAlignment = 512;         // texture-friendly rows, as cudaMallocPitch gives
constexpr std::size_t kFixedLaneBytes = 4u << 20;    // weights, plans, small tables per method instance

std::size_t aligned_pitch(int width, PixelFormat format) {
  const std::size_t row = static_cast<std::size_t>(width) * bytes_per_pixel(format);
  return (row + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
}

// Registers host memory with CUDA for fast asynchronous copies while it lives; where that fails
// (already pinned, or the system refuses) the copies still work, from pageable memory.
class HostRegistration {
 public:
  HostRegistration(const void* data, std::size_t bytes) {
    if (!data || bytes == 0) return;
    const cudaError_t status = cudaHostRegister(const_cast<void*>(data), bytes, cudaHostRegisterPortable);
    if (status == cudaSuccess)
      data_ = const_cast<void*>(data);
    else
      (void)cudaGetLastError();
  }
  ~HostRegistration() {
    if (data_) GAUSSLAB_CUDA_LOG(cudaHostUnregister(data_));
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  void* data_ = nullptr;
};

std::size_t view_span_bytes(const ConstImageView& view) {
  if (view.empty()) return 0;
  return static_cast<std::size_t>(view.height - 1) * view.pitch_bytes +
         static_cast<std::size_t>(view.width) * bytes_per_pixel(view.format);
}

// Copies `rows` rows from host (src_pitch) into the device image at row `device_row`.
void upload_rows(const void* host, std::size_t host_pitch, const void* device_base, std::size_t device_pitch,
                 int device_row, std::size_t row_bytes, int rows, cudaStream_t stream) {
  if (rows <= 0) return;
  char* target = static_cast<char*>(const_cast<void*>(device_base)) + static_cast<std::size_t>(device_row) * device_pitch;
  GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(target, device_pitch, host, host_pitch, row_bytes, static_cast<std::size_t>(rows),
                                        cudaMemcpyHostToDevice, stream));
}

// The failures GAUSSLAB_BATCH_FAULT injects, as CUDA reports the real ones.
void throw_if_injected(GpuFault fault, GpuFault here) {
  if (fault != here) return;
  if (here == GpuFault::DeviceOutOfMemory)
    throw CudaOutOfMemory("cudaMalloc failed: cudaErrorMemoryAllocation (out of memory; injected by GAUSSLAB_BATCH_FAULT)",
                          0);
  throw CudaError(cudaErrorLaunchFailure,
                  "kernel launch failed: cudaErrorLaunchFailure (injected by GAUSSLAB_BATCH_FAULT)");
}

}  // namespace

std::size_t estimated_scratch_bytes(const std::string& method_id, int width, int height, PixelFormat format,
                                    const FilterParams& params) {
  const double pixels = static_cast<double>(width) * height;
  const double channels = channel_count(format);
  const double float4_image = pixels * 4.0 * channels;  // every channel as a float accumulator
  double bytes = 0;
  if (method_id == "separable_shared") {
    bytes = float4_image * 1.05;  // transposed intermediate, rows aligned
  } else if (method_id == "separable_texture") {
    bytes = float4_image * 1.05 + pixels * static_cast<double>(bytes_per_pixel(format)) * 1.05;  // + an aligned copy of the source
  } else if (method_id == "recursive") {
    bytes = 2 * float4_image * 1.05 + (width + height) * 4.0 * 64;  // two scratch images + boundary states
  } else if (method_id == "fft") {
    const int r = params.radius();
    const double padded = (static_cast<double>(width) + 2.0 * r) * (static_cast<double>(height) + 2.0 * r) * 1.35;
    bytes = channels * padded * 16.0;  // real planes, half spectra and cuFFT's work area, 4+4+4 B (+ margin)
  }
  return static_cast<std::size_t>(bytes) + kFixedLaneBytes;
}

GpuLanes::GpuLanes(const MethodEntry& method, int lanes, int device, std::size_t budget_bytes,
                   const StageRecorder& clock)
    : method_id_(method.info.id), device_(device), budget_(budget_bytes) {
  GAUSSLAB_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  GAUSSLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  device_name_ = prop.name;
  lanes_.resize(static_cast<std::size_t>(std::max(1, lanes)));
  for (Lane& lane : lanes_) {
    GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    for (cudaEvent_t* event : {&lane.start, &lane.uploaded, &lane.filtered, &lane.downloaded})
      GAUSSLAB_CUDA_CHECK(cudaEventCreate(event));
    lane.method = method.create();
  }
  // The clock's zero for GPU events: an event completed at a known host time.
  GAUSSLAB_CUDA_CHECK(cudaEventCreate(&origin_));
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(origin_, lanes_[0].stream));
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(origin_));
  origin_s_ = clock.now_s();
  note_usage();
}

GpuLanes::~GpuLanes() {
  drain();
  for (Lane& lane : lanes_) {
    lane.method.reset();  // its scratch before the stream goes
    for (cudaEvent_t event : {lane.start, lane.uploaded, lane.filtered, lane.downloaded})
      if (event) GAUSSLAB_CUDA_LOG(cudaEventDestroy(event));
    if (lane.stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(lane.stream));
  }
  if (origin_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(origin_));
}

double GpuLanes::seconds_at(cudaEvent_t event) const {
  float ms = 0;
  GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, origin_, event));
  return origin_s_ + ms / 1000.0;
}

void GpuLanes::note_usage() {
  std::size_t held = 0;
  for (const Lane& lane : lanes_) held += lane.src.size_bytes() + lane.dst.size_bytes() + lane.scratch_estimate;
  peak_bytes_ = std::max(peak_bytes_, held);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    peak_in_use_ = std::max(peak_in_use_, total_bytes - free_bytes);
  else
    (void)cudaGetLastError();
}

std::size_t GpuLanes::lane_bytes(int width, int rows, PixelFormat format, const FilterParams& params) const {
  return 2 * aligned_pitch(width, format) * static_cast<std::size_t>(rows) +
         estimated_scratch_bytes(method_id_, width, rows, format, params);
}

bool GpuLanes::fits_whole(int width, int height, PixelFormat format, const FilterParams& params) const {
  return lane_bytes(width, height, format, params) * lanes_.size() <= budget_;
}

int GpuLanes::band_rows_for_budget(int width, PixelFormat format, const FilterParams& params) const {
  const int halo = band_halo(params);
  const auto fits = [&](int rows) {
    return lane_bytes(width, rows + 2 * halo, format, params) * lanes_.size() <= budget_;
  };
  if (!fits(1)) return 0;
  int low = 1, high = 1;
  while (high < (1 << 29) && fits(high * 2)) high *= 2;
  high = std::min(high * 2, 1 << 29);
  while (low < high) {  // the largest `rows` that fits, between low (fits) and high
    const int mid = low + (high - low + 1) / 2;
    if (fits(mid))
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

bool GpuLanes::finished(int lane) const {
  const Lane& l = lanes_[static_cast<std::size_t>(lane)];
  if (!l.busy) return true;
  const cudaError_t status = cudaEventQuery(l.downloaded);
  return status != cudaErrorNotReady;
}

void GpuLanes::prepare_lane(Lane& lane, int width, int rows, PixelFormat format, const FilterParams& params,
                            GpuFault fault) {
  throw_if_injected(fault, GpuFault::DeviceOutOfMemory);
  const std::size_t bytes = aligned_pitch(width, format) * static_cast<std::size_t>(rows);
  lane.method->prepare(FilterProblem{width, rows, format, params});
  lane.src.resize(bytes);
  lane.dst.resize(bytes);
  lane.scratch_estimate = estimated_scratch_bytes(method_id_, width, rows, format, params);
  note_usage();
}

void GpuLanes::submit(int index, const ConstImageView& host_src, const ImageView& host_dst, const FilterParams& params,
                      GpuFault fault) {
  Lane& lane = lanes_[static_cast<std::size_t>(index)];
  if (lane.busy) throw std::logic_error("GpuLanes::submit: the lane is still busy");
  const int width = host_src.width, height = host_src.height;
  const PixelFormat format = host_src.format;
  const std::size_t pitch = aligned_pitch(width, format);
  try {
    prepare_lane(lane, width, height, format, params, fault);
    const ImageView d_src{lane.src.data(), width, height, pitch, format};
    const ImageView d_dst{lane.dst.data(), width, height, pitch, format};
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.start, lane.stream));
    copy_image_async(host_src, d_src, cudaMemcpyHostToDevice, lane.stream);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.uploaded, lane.stream));
    throw_if_injected(fault, GpuFault::LaunchFailure);
    lane.method->run(d_src, d_dst, nullptr, lane.stream);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.filtered, lane.stream));
    copy_image_async(d_dst, host_dst, cudaMemcpyDeviceToHost, lane.stream);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.downloaded, lane.stream));
  } catch (...) {
    // What was enqueued may still read the host buffer: let it finish before the caller reuses it.
    (void)cudaStreamSynchronize(lane.stream);
    (void)cudaGetLastError();
    throw;
  }
  lane.busy = true;
}

LaneStages GpuLanes::wait(int index) {
  Lane& lane = lanes_[static_cast<std::size_t>(index)];
  if (!lane.busy) throw std::logic_error("GpuLanes::wait: the lane is idle");
  lane.busy = false;
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(lane.downloaded));
  LaneStages stages;
  const double start = seconds_at(lane.start), uploaded = seconds_at(lane.uploaded),
               filtered = seconds_at(lane.filtered), downloaded = seconds_at(lane.downloaded);
  stages.upload = {start, uploaded};
  stages.filter = {uploaded, filtered};
  stages.download = {filtered, downloaded};
  return stages;
}

void GpuLanes::drain() {
  for (Lane& lane : lanes_) {
    if (!lane.busy) continue;
    lane.busy = false;
    (void)cudaStreamSynchronize(lane.stream);
  }
  (void)cudaGetLastError();
}

void GpuLanes::release_buffers() {
  drain();
  const MethodEntry* entry = find_method(method_id_);
  for (Lane& lane : lanes_) {
    lane.src.release();
    lane.dst.release();
    lane.scratch_estimate = 0;
    if (entry) lane.method = entry->create();  // drops the scratch of the last problem
  }
}

bool GpuLanes::device_usable() { return broken_context_reason().empty(); }

void GpuLanes::filter_bands(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst, int dst_first_row,
                            const FilterParams& params, StageRecorder& recorder, GpuFault fault) {
  drain();
  const int width = source.width(), halo = plan.halo;
  const PixelFormat format = source.format();
  const std::size_t row_bytes = source.row_bytes();
  const ConstImageView& data = source.data();
  const int data_first = source.first_row(), data_end = source.first_row() + data.height;

  // Rows the halos take from beyond the held data (only when the data is the whole image): the
  // border's rows above row 0 and below the last, made once.
  std::vector<unsigned char> top, bottom;
  if (halo > 0 && data_first == 0 && data_end == plan.height) {
    top.resize(static_cast<std::size_t>(halo) * row_bytes);
    bottom.resize(top.size());
    source.copy_rows(-halo, 0, ImageView{top.data(), width, halo, row_bytes, format});
    source.copy_rows(plan.height, plan.height + halo, ImageView{bottom.data(), width, halo, row_bytes, format});
  }
  const HostRegistration pin_source(data.data, view_span_bytes(data));
  const HostRegistration pin_result(dst.data, view_span_bytes(dst));

  const auto record = [&](const LaneStages& stages) {
    recorder.add(Stage::Upload, stages.upload.start_s, stages.upload.end_s);
    recorder.add(Stage::Filter, stages.filter.start_s, stages.filter.end_s);
    recorder.add(Stage::Download, stages.download.start_s, stages.download.end_s);
  };
  std::size_t lane_index = 0;
  try {
    for (const Band& band : plan.bands) {
      if (band.rows == 0) continue;
      Lane& lane = lanes_[lane_index];
      if (lane.busy) record(wait(static_cast<int>(lane_index)));
      const int y0 = band.first_row - halo, y1 = band.first_row + band.rows + halo;
      const int rows = y1 - y0;
      prepare_lane(lane, width, rows, format, params, fault);
      const std::size_t pitch = aligned_pitch(width, format);
      const ImageView d_src{lane.src.data(), width, rows, pitch, format};
      const ImageView d_dst{lane.dst.data(), width, rows, pitch, format};

      GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.start, lane.stream));
      // Above the data (border rows), the data itself, below the data (border rows).
      const int above_end = std::min(y1, data_first), below_start = std::max(y0, data_end);
      const int inside_start = std::max(y0, data_first), inside_end = std::min(y1, data_end);
      if (y0 < above_end) {
        if (top.empty()) throw std::logic_error("filter_bands: a halo reaches above the rows held");
        upload_rows(top.data() + static_cast<std::size_t>(y0 + halo) * row_bytes, row_bytes, d_src.data, pitch, 0,
                    row_bytes, above_end - y0, lane.stream);
      }
      if (inside_start < inside_end)
        upload_rows(source.row(inside_start), data.pitch_bytes, d_src.data, pitch, inside_start - y0, row_bytes,
                    inside_end - inside_start, lane.stream);
      if (below_start < y1) {
        if (bottom.empty()) throw std::logic_error("filter_bands: a halo reaches below the rows held");
        upload_rows(bottom.data() + static_cast<std::size_t>(below_start - plan.height) * row_bytes, row_bytes,
                    d_src.data, pitch, below_start - y0, row_bytes, y1 - below_start, lane.stream);
      }
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.uploaded, lane.stream));
      throw_if_injected(fault, GpuFault::LaunchFailure);
      lane.method->run(d_src, d_dst, nullptr, lane.stream);
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.filtered, lane.stream));
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(dst.row<unsigned char>(band.first_row - dst_first_row), dst.pitch_bytes,
                                            d_dst.row<unsigned char>(halo), pitch, row_bytes,
                                            static_cast<std::size_t>(band.rows), cudaMemcpyDeviceToHost, lane.stream));
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(lane.downloaded, lane.stream));
      lane.busy = true;
      lane_index = (lane_index + 1) % lanes_.size();
    }
    for (std::size_t i = 0; i < lanes_.size(); ++i)
      if (lanes_[i].busy) record(wait(static_cast<int>(i)));
  } catch (...) {
    drain();  // nothing may still copy into or out of the host buffers
    throw;
  }
}

}  // namespace gausslab
