#include "gausslab/cuda/run_on_host.hpp"

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"

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
  method.run(d_src.view(), d_dst.view(), options.timer, options.stream);
  d_dst.download(dst, options.stream);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(options.stream));
}

}  // namespace gausslab
