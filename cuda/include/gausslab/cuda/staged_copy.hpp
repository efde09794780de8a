#pragma once
// Large copies between pageable host memory and the device, made by a worker thread, a few MiB at a
// time through a pinned buffer. A copy straight from or into pageable memory is staged by the driver
// in one call; in the viewer the numbers worker's (64-512 MiB at 4096x4096) coincided with frames of
// 6-38 ms on an H100. Through pinned memory every piece is a plain DMA transfer of its own, and the
// frame's work gets in between. Each piece is waited for (cudaStreamSynchronize on `stream`): call it
// from a worker, never from a frame.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

#include "gausslab/cuda/pinned_buffer.hpp"

namespace gausslab {

// `rows` rows of `row_bytes` each, `src_pitch` and `dst_pitch` bytes apart.
struct RowCopy {
  const void* src = nullptr;
  std::size_t src_pitch = 0;
  void* dst = nullptr;
  std::size_t dst_pitch = 0;
  std::size_t row_bytes = 0;
  int rows = 0;
};

constexpr std::size_t kStagedPieceBytes = std::size_t{8} << 20;

// kind: cudaMemcpyHostToDevice (src on the host) or cudaMemcpyDeviceToHost (dst on the host); work
// queued on `stream` before it runs first. `staging` grows to one piece (reused between calls).
// `between_pieces`, when given, is called after each piece but the last (the numbers worker waits
// there for the viewer's next frame: a copy of hundreds of MiB in one go held the copy engine, and
// the frame's pixel-buffer map and texture uploads waited behind it for up to 38 ms on the H100).
// Throws std::invalid_argument for another kind or a pitch shorter than a row, CudaError.
void copy_rows_through_pinned(const RowCopy& copy, cudaMemcpyKind kind, PinnedBuffer& staging, cudaStream_t stream,
                              std::size_t piece_bytes = kStagedPieceBytes,
                              const std::function<void()>& between_pieces = {});

}  // namespace gausslab
