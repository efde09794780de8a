"""gausslab: Gaussian filtering on NVIDIA GPUs (and the CPU), with scipy.ndimage's arguments.

    import gausslab
    blurred = gausslab.gaussian_filter(image, 2.0)                 # NumPy in, NumPy out
    blurred = gausslab.gaussian_filter(cupy_image, 2.0, axes=(0, 1))  # on the CuPy array's memory

gaussian_filter, gaussian_filter1d, correlate, convolve, correlate1d and convolve1d take
scipy.ndimage's arguments with its names and defaults, plus method= (a method id from methods(), or
'auto'), accuracy=, rounding= (integer outputs) and stream= (a CUDA stream for device arrays).
docs/library.md has the details: types, what is refused, costs and thread-safety.
"""
from ._errors import CudaFailure, Error, InvalidArgument, NoDevice, OutOfMemory, Refused
from ._gausslab import build_report
from ._gausslab import version as _version
from ._correlate import convolve, convolve1d, correlate, correlate1d
from ._ndimage import gaussian_filter, gaussian_filter1d, last_choice, methods

__version__ = _version()

__all__ = ["gaussian_filter", "gaussian_filter1d", "correlate", "convolve", "correlate1d", "convolve1d", "methods",
           "last_choice", "build_report", "__version__", "Error", "InvalidArgument", "Refused", "NoDevice",
           "OutOfMemory", "CudaFailure"]
