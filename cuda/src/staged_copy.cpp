#include "gausslab/cuda/staged_copy.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

void copy_rows_through_pinned(const RowCopy& copy, cudaMemcpyKind kind, PinnedBuffer& staging, cudaStream_t stream,
                              std::size_t piece_bytes, const std::function<void()>& between_pieces) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost)
    throw std::invalid_argument("copy_rows_through_pinned: only host-to-device and device-to-host copies");
  if (copy.rows <= 0 || copy.row_bytes == 0) return;
  if (copy.src_pitch < copy.row_bytes || copy.dst_pitch < copy.row_bytes)
    throw std::invalid_argument("copy_rows_through_pinned: a pitch is shorter than a row");
  const int rows_per_piece =
      static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(piece_bytes / copy.row_bytes, 1), copy.rows));
  staging.resize(static_cast<std::size_t>(rows_per_piece) * copy.row_bytes);
  char* pinned = staging.as<char>();
  for (int y = 0; y < copy.rows; y += rows_per_piece) {
    if (y > 0 && between_pieces) between_pieces();
    const int n = std::min(rows_per_piece, copy.rows - y);
    const char* src = static_cast<const char*>(copy.src) + static_cast<std::size_t>(y) * copy.src_pitch;
    char* dst = static_cast<char*>(copy.dst) + static_cast<std::size_t>(y) * copy.dst_pitch;
    if (kind == cudaMemcpyHostToDevice) {
      for (int r = 0; r < n; ++r)
        std::memcpy(pinned + static_cast<std::size_t>(r) * copy.row_bytes, src + static_cast<std::size_t>(r) * copy.src_pitch,
                    copy.row_bytes);
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(dst, copy.dst_pitch, pinned, copy.row_bytes, copy.row_bytes,
                                            static_cast<std::size_t>(n), kind, stream));
      GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pinned piece is refilled next
    } else {
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(pinned, copy.row_bytes, src, copy.src_pitch, copy.row_bytes,
                                            static_cast<std::size_t>(n), kind, stream));
      GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
      for (int r = 0; r < n; ++r)
        std::memcpy(dst + static_cast<std::size_t>(r) * copy.dst_pitch, pinned + static_cast<std::size_t>(r) * copy.row_bytes,
                    copy.row_bytes);
    }
  }
}

}  // namespace gausslab
