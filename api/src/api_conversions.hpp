#pragma once
// Between the public types (gausslab.hpp) and the internal ones, and the one place where internal
// exceptions become the public error types. Include after internal_names.hpp and the public header.
#include <stdexcept>
#include <string>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/gausslab.hpp"

namespace gausslab::v1 {

PixelFormat internal_format(PixelType pixel);
PixelType public_pixel(PixelFormat format);
BorderMode internal_border(Border border);
FilterParams internal_params(const FilterOptions& options);

// "640×480 rgba8, sigma 2, truncate 4, radius 8, reflect": for messages.
std::string describe_problem(const FilterProblem& problem);

// Runs `body`; internal exceptions leave as the public ones (gausslab::Error and its subclasses),
// with their messages: std::invalid_argument → Refused, CudaUnavailable → NoDevice, CudaOutOfMemory
// → OutOfMemory, CudaError → CudaFailure (saying whether the context is broken), others → Error.
template <class Body>
auto translate_errors(Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const Error&) {
    throw;
  } catch (const CudaUnavailable& e) {
    throw NoDevice(e.what());
  } catch (const CudaOutOfMemory& e) {
    throw OutOfMemory(e.what(), e.requested_bytes());
  } catch (const CudaError& e) {
    const std::string broken = broken_context_reason();
    throw CudaFailure(broken.empty() ? std::string(e.what()) : std::string(e.what()) + " (" + broken + ")",
                      !broken.empty());
  } catch (const std::invalid_argument& e) {
    throw Refused(e.what());
  } catch (const std::bad_alloc&) {
    throw Error("host memory ran out");
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

}  // namespace gausslab::v1
