#include "gausslab/cuda/run_on_host.hpp"

#include <stdexcept>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/pooling.hpp"

namespace gausslab {

void run_on_host(Method& method, const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                 const RunOptions& options) {
  method.prepare(FilterProblem{src.width, src.height, src.format, params});
  if (method.info().backend == Backend::Cpu) {
    method.run(src, dst, options.timer, options.stream);
    return;
  }
  DeviceImage d_src, d_dst(dst.width, dst.height, dst.format);
  d_src.upload(src, options.stream);
  if (options.poison_output) {
    const ImageView view = d_dst.view();
    GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(view.data, view.pitch_bytes, 0xFF,
                                          static_cast<std::size_t>(view.width) * bytes_per_pixel(view.format),
                                          static_cast<std::size_t>(view.height), options.stream));
  }
  try {
    method.run(d_src.view(), d_dst.view(), options.timer, options.stream);
  } catch (...) {
    // What did launch still reads d_src and writes d_dst: they are freed only after it.
    GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(options.stream));
    throw;
  }
  d_dst.download(dst, options.stream);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(options.stream));
}

void run_on_host(Method& method, const ConstImageView& src, const ImageView& pooled, const FilterParams& params,
                 PoolMode pool, const RunOptions& options) {
  if (pool == PoolMode::None) {
    run_on_host(method, src, pooled, params, options);
    return;
  }
  if (std::string problem = pool_problem(src.width, src.height); !problem.empty())
    throw std::invalid_argument(problem);
  if (method.info().backend == Backend::Cpu) {
    std::vector<unsigned char> full_bytes(static_cast<std::size_t>(src.width) * src.height * bytes_per_pixel(src.format));
    const ImageView full{full_bytes.data(), src.width, src.height,
                         static_cast<std::size_t>(src.width) * bytes_per_pixel(src.format), src.format};
    run_on_host(method, src, full, params, options);
    pool_2x2(full, pooled, pool);
    return;
  }
  method.prepare(FilterProblem{src.width, src.height, src.format, params});
  DeviceImage d_src, d_full, d_pooled(pooled.width, pooled.height, pooled.format);
  d_src.upload(src, options.stream);
  if (FusedPooling* fused = fused_pooling(method); !fused || !fused->pools_fused(src.format))
    d_full.resize(src.width, src.height, src.format);
  try {
    run_and_pool(method, d_src.view(), d_full.view(), d_pooled.view(), pool, options.timer, options.stream);
  } catch (...) {
    GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(options.stream));  // as above: nothing freed under a kernel
    throw;
  }
  d_pooled.download(pooled, options.stream);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(options.stream));
}

}  // namespace gausslab
