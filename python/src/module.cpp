// gausslab._gausslab: the Python module's native half, over the public C++ interface only
// (gausslab/gausslab.hpp). It takes images as raw addresses with their shape, so that NumPy arrays,
// CuPy arrays, PyTorch tensors and any DLPack or __cuda_array_interface__ producer take the same
// path; the argument handling that mirrors scipy.ndimage is Python (gausslab/_ndimage.py).
#include <cuda_runtime.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/gausslab.hpp"
#include "dlpack_abi.hpp"

namespace py = pybind11;

namespace {

gausslab::SampleType sample_from(const std::string& name) {
  if (name == "u8") return gausslab::SampleType::U8;
  if (name == "u16") return gausslab::SampleType::U16;
  if (name == "f16") return gausslab::SampleType::F16;
  if (name == "f32") return gausslab::SampleType::F32;
  throw gausslab::InvalidArgument("unknown sample type '" + name + "'; use u8, u16, f16 or f32");
}

gausslab::Border border_from(const std::string& name) {
  if (name == "reflect") return gausslab::Border::Reflect;
  if (name == "mirror") return gausslab::Border::Mirror;
  if (name == "nearest") return gausslab::Border::Nearest;
  if (name == "constant") return gausslab::Border::Constant;
  if (name == "wrap") return gausslab::Border::Wrap;
  throw gausslab::InvalidArgument("unknown border '" + name + "'");
}

const char* sample_name(gausslab::SampleType sample) {
  switch (sample) {
    case gausslab::SampleType::U8: return "u8";
    case gausslab::SampleType::U16: return "u16";
    case gausslab::SampleType::F16: return "f16";
    case gausslab::SampleType::F32: return "f32";
  }
  return "?";
}

py::dict choice_dict(const gausslab::Choice& c) {
  py::dict d;
  d["method"] = c.method;
  d["gpu"] = c.gpu;
  d["why"] = c.why;
  d["bound_relative"] = c.bound_relative;
  d["bound_levels"] = c.bound_levels;
  return d;
}

gausslab::Rounding rounding_from(const std::string& name) {
  if (name == "nearest") return gausslab::Rounding::Nearest;
  if (name == "floor") return gausslab::Rounding::Floor;
  if (name == "ceil") return gausslab::Rounding::Ceil;
  throw gausslab::InvalidArgument("rounding must be 'nearest', 'floor' or 'ceil', not '" + name + "'");
}

// A custom kernel from Python's description: kind "weights" (x), "pair" (x, y) or "matrix" (rows
// of `width` weights); already in correlation order with odd sizes (gausslab/_correlate.py).
gausslab::Kernel kernel_from(const std::string& kind, const std::vector<double>& x, const std::vector<double>& y,
                             int width, int height, const std::vector<double>& matrix) {
  if (kind == "weights") return gausslab::Kernel::weights(x);
  if (kind == "pair") return gausslab::Kernel::pair(x, y);
  if (kind == "matrix") return gausslab::Kernel::matrix_2d(width, height, matrix);
  throw gausslab::InvalidArgument("unknown kernel kind '" + kind + "'; use weights, pair or matrix");
}

// One Filter per parameter set; the Python side keeps a few, so their plans survive between calls.
class PyFilter {
 public:
  PyFilter(double sigma, double truncate, int radius, const std::string& mode, const std::string& method,
           const std::string& accuracy, bool rows_only, const std::string& rounding)
      : filter_(options(radius >= 0 ? gausslab::Kernel::gaussian_with_radius(sigma, radius)
                                    : gausslab::Kernel::gaussian(sigma, truncate),
                        mode, method, accuracy, rows_only, rounding)) {}

  PyFilter(const gausslab::Kernel& kernel, const std::string& mode, const std::string& method,
           const std::string& accuracy, bool rows_only, const std::string& rounding)
      : filter_(options(kernel, mode, method, accuracy, rows_only, rounding)) {}

  // Filters `batch` images of height × width × channels samples at src into dst (addresses in host or
  // device memory as `device` says), rows pitch bytes apart and images stride bytes apart.
  void run(bool device, std::uintptr_t src, std::uintptr_t dst, int batch, int height, int width, int channels,
           const std::string& sample, std::size_t src_pitch, std::size_t dst_pitch, std::size_t src_stride,
           std::size_t dst_stride, std::uintptr_t stream) {
    const gausslab::PixelType pixel{sample_from(sample), channels};
    const gausslab::ConstImageRef in(reinterpret_cast<const void*>(src), src_pitch, width, height, pixel, batch, src_stride);
    const gausslab::ImageRef out{reinterpret_cast<void*>(dst), dst_pitch, width, height, pixel, batch, dst_stride};
    py::gil_scoped_release unlocked;  // other Python threads run while the CPU filters or the GPU is fed
    if (device)
      filter_.run_device(in, out, reinterpret_cast<gausslab::Stream>(stream));
    else
      filter_.run_host(in, out);
  }

  py::dict choose(int width, int height, int channels, const std::string& sample, bool device) const {
    return choice_dict(filter_.choose(width, height, {sample_from(sample), channels},
                                      device ? gausslab::Memory::Device : gausslab::Memory::Host));
  }

  py::dict last_choice() const { return choice_dict(filter_.last_choice()); }

 private:
  static gausslab::FilterOptions options(const gausslab::Kernel& kernel, const std::string& mode,
                                         const std::string& method, const std::string& accuracy, bool rows_only,
                                         const std::string& rounding) {
    gausslab::FilterOptions o;
    o.kernel = kernel;
    o.rounding = rounding_from(rounding);
    o.border = border_from(mode);
    o.method = method;
    if (accuracy == "exact")
      o.accuracy = gausslab::Accuracy::Exact;
    else if (accuracy == "approximate")
      o.accuracy = gausslab::Accuracy::Approximate;
    else if (accuracy == "any")
      o.accuracy = gausslab::Accuracy::Any;
    else
      throw gausslab::InvalidArgument("accuracy must be 'exact', 'approximate' or 'any', not '" + accuracy + "'");
    o.axes = rows_only ? gausslab::Axes::RowsOnly : gausslab::Axes::Both;
    return o;
  }

  gausslab::Filter filter_;
};

py::list methods() {
  py::list list;
  for (const gausslab::MethodDescription& m : gausslab::methods()) {
    py::dict d;
    d["id"] = m.id;
    d["label"] = m.label;
    d["summary"] = m.summary;
    d["accuracy"] = m.accuracy;
    d["gpu"] = m.gpu;
    d["available"] = m.available;
    d["unavailable"] = m.unavailable;
    d["rows_only"] = m.rows_only;
    d["kernels"] = m.kernels;
    d["all_roundings"] = m.all_roundings;
    py::list types;
    for (const gausslab::PixelType& p : m.pixel_types) types.append(py::make_tuple(sample_name(p.sample), p.channels));
    d["pixel_types"] = types;
    list.append(d);
  }
  return list;
}

// What a DLPack capsule describes, without taking it (its producer's destructor frees it as usual).
py::dict dlpack_info(const py::capsule& capsule) {
  if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
    throw gausslab::InvalidArgument("not an unused DLPack capsule (its name is not 'dltensor')");
  const auto* managed = static_cast<const gausslab_dlpack::DLManagedTensor*>(capsule.get_pointer());
  const gausslab_dlpack::DLTensor& t = managed->dl_tensor;
  py::list shape, strides;
  for (int i = 0; i < t.ndim; ++i) {
    shape.append(t.shape[i]);
    if (t.strides) strides.append(t.strides[i]);
  }
  py::dict d;
  d["data"] = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  d["device_type"] = static_cast<int>(t.device.device_type);
  d["device_id"] = t.device.device_id;
  d["shape"] = py::tuple(shape);
  d["strides"] = t.strides ? py::object(py::tuple(strides)) : py::object(py::none());  // in elements; None: C order
  d["dtype"] = py::make_tuple(static_cast<int>(t.dtype.code), static_cast<int>(t.dtype.bits), static_cast<int>(t.dtype.lanes));
  return d;
}

// Makes work enqueued on `consumer` wait for what is on `producer` now (a device array's producer
// stream, when the caller filters it on another), without waiting on the host.
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer) {
  cudaEvent_t event = nullptr;
  cudaError_t code = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (code == cudaSuccess) code = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
  if (code == cudaSuccess) code = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), event, 0);
  if (event) cudaEventDestroy(event);
  if (code != cudaSuccess)
    throw gausslab::CudaFailure(std::string("the wait for the array's stream failed: ") + cudaGetErrorString(code), false);
}

}  // namespace

PYBIND11_MODULE(_gausslab, m) {
  m.doc() = "gausslab's native part: the filter over raw image addresses (use the gausslab package)";
  // The exception classes are Python's (gausslab/_errors.py), so that they can also be ValueError or
  // MemoryError; each C++ error leaves as its namesake.
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    auto raise = [](const char* name, const std::exception& e) {
      py::object cls = py::module_::import("gausslab._errors").attr(name);
      PyErr_SetString(cls.ptr(), e.what());
    };
    try {
      std::rethrow_exception(p);
    } catch (const gausslab::InvalidArgument& e) {
      raise("InvalidArgument", e);
    } catch (const gausslab::Refused& e) {
      raise("Refused", e);
    } catch (const gausslab::NoDevice& e) {
      raise("NoDevice", e);
    } catch (const gausslab::OutOfMemory& e) {
      raise("OutOfMemory", e);
    } catch (const gausslab::CudaFailure& e) {
      raise("CudaFailure", e);
    } catch (const gausslab::Error& e) {
      raise("Error", e);
    }
  });
  py::class_<PyFilter>(m, "Filter")
      .def(py::init<double, double, int, const std::string&, const std::string&, const std::string&, bool,
                    const std::string&>(),
           py::arg("sigma"), py::arg("truncate"), py::arg("radius"), py::arg("mode"), py::arg("method"), py::arg("accuracy"),
           py::arg("rows_only"), py::arg("rounding") = "nearest")
      .def(py::init([](const std::string& kind, const std::vector<double>& x, const std::vector<double>& y, int width,
                       int height, const std::vector<double>& matrix, const std::string& mode, const std::string& method,
                       const std::string& accuracy, bool rows_only, const std::string& rounding) {
             return PyFilter(kernel_from(kind, x, y, width, height, matrix), mode, method, accuracy, rows_only, rounding);
           }),
           py::arg("kind"), py::arg("x"), py::arg("y"), py::arg("width"), py::arg("height"), py::arg("matrix"),
           py::arg("mode"), py::arg("method"), py::arg("accuracy"), py::arg("rows_only"), py::arg("rounding"))
      .def("run", &PyFilter::run, py::arg("device"), py::arg("src"), py::arg("dst"), py::arg("batch"), py::arg("height"),
           py::arg("width"), py::arg("channels"), py::arg("sample"), py::arg("src_pitch"), py::arg("dst_pitch"),
           py::arg("src_stride"), py::arg("dst_stride"), py::arg("stream"))
      .def("choose", &PyFilter::choose)
      .def("last_choice", &PyFilter::last_choice);
  m.def("methods", &methods, "every registered method, as dicts");
  m.def("version", &gausslab::version);
  m.def("build_report", &gausslab::build_report);
  m.def("stream_wait", &stream_wait, py::arg("consumer"), py::arg("producer"));
  m.def("dlpack_info", &dlpack_info, "the address, device, shape, strides and dtype a DLPack capsule describes");
}
