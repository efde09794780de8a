"""The errors gausslab raises; each says the reason and what to change."""


class Error(RuntimeError):
    """Every error gausslab raises."""


class InvalidArgument(Error, ValueError):
    """A parameter or array that is wrong whatever the method (NaN sigma, an unknown mode, ...)."""


class Refused(Error, ValueError):
    """What gausslab cannot do (order > 0, cval != 0, a method's limit): the message says what to change."""


class NoDevice(Error):
    """No usable CUDA device: device arrays cannot be filtered; NumPy arrays run on the CPU."""


class OutOfMemory(Error, MemoryError):
    """Device memory ran out."""


class CudaFailure(Error):
    """Any other CUDA failure (a kernel that did not launch, a fault)."""
