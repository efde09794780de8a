"""Arrays as gausslab sees them: NumPy arrays in host memory, and device arrays (CuPy, PyTorch CUDA
tensors, anything with __cuda_array_interface__ or DLPack) by their address, shape and strides, with
no copy; the CUDA stream a device call runs on; the sample types the methods take."""
import sys

import numpy as np

from . import _gausslab
from ._errors import InvalidArgument, Refused

# DLPack device types (dlpack.h): host, CUDA, pinned host, managed.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DTYPES = {(1, 8): np.uint8, (1, 16): np.uint16, (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64,
              (0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64, (1, 32): np.uint32}

# The sample types the methods filter, by NumPy dtype; float64 is filtered in float32.
NATIVE = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.float16): "f16",
          np.dtype(np.float32): "f32"}
SUPPORTED = tuple(NATIVE) + (np.dtype(np.float64),)


def supported_dtype(dtype, what="input"):
    dtype = np.dtype(dtype)
    if dtype not in SUPPORTED:
        raise Refused(f"{what} dtype {dtype} is not filtered by gausslab: use uint8, uint16, float16, float32 or "
                      f"float64 (float64 is filtered in float32), or convert it (array.astype(numpy.float32))")
    return dtype


class DeviceArray:
    """A device array's memory: address, shape, strides in bytes, dtype and CUDA device; `obj` is the
    caller's object (kept alive while in use); `stream` the producer's stream when it named one."""

    def __init__(self, obj, data, shape, strides, dtype, device_id, stream=None, keepalive=None):
        self.obj, self.data, self.shape, self.dtype = obj, int(data), tuple(int(s) for s in shape), np.dtype(dtype)
        self.strides = tuple(int(s) for s in strides) if strides is not None else c_strides(self.shape, self.dtype)
        self.device_id, self.stream, self.keepalive = device_id, stream, keepalive

    @property
    def ndim(self):
        return len(self.shape)

    def c_contiguous(self):
        return all(n <= 1 or s == c for n, s, c in zip(self.shape, self.strides, c_strides(self.shape, self.dtype)))


def c_strides(shape, dtype):
    strides, step = [], np.dtype(dtype).itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def library_of(obj):
    """'cupy', 'torch' or None: which array library made obj (neither is imported for it)."""
    module = type(obj).__module__.split(".")[0]
    return module if module in ("cupy", "torch") else None


def is_device_array(obj):
    if isinstance(obj, np.ndarray):
        return False
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    if hasattr(obj, "__dlpack_device__"):
        try:
            return int(obj.__dlpack_device__()[0]) in (_DL_CUDA, _DL_CUDA_MANAGED)
        except Exception:  # a producer that cannot say: not a device array then
            return False
    return False


def stream_pointer(stream, obj=None):
    """The cudaStream_t of `stream` (an int, a CuPy or PyTorch stream, anything with __cuda_stream__);
    without one, the current stream of obj's library (CuPy, PyTorch), else the producer's, else 0."""
    if stream is None:
        library = library_of(obj)
        if library == "cupy":
            return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
        if library == "torch":
            return int(sys.modules["torch"].cuda.current_stream(obj.device).cuda_stream)
        return None
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attribute in ("ptr", "cuda_stream", "handle"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise InvalidArgument(f"stream= takes an int (a cudaStream_t), a CuPy or PyTorch stream, not {type(stream).__name__}")


def device_array(obj, stream):
    """The DeviceArray of a device object, by __cuda_array_interface__ or else DLPack (on `stream`)."""
    if hasattr(obj, "__cuda_array_interface__"):
        cai = obj.__cuda_array_interface__
        typestr = np.dtype(cai["typestr"])
        data, readonly = cai["data"]
        array = DeviceArray(obj, data, cai["shape"], cai.get("strides"), typestr, device_of(obj), cai.get("stream"))
        array.readonly = readonly
        return array
    # DLPack: the producer makes its work visible to `stream` (1: the legacy default stream; 0 is not allowed).
    capsule = obj.__dlpack__(stream=stream if stream else 1)
    info = _gausslab.dlpack_info(capsule)
    if info["device_type"] not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise InvalidArgument(f"a DLPack tensor on device type {info['device_type']} is not CUDA memory")
    code, bits, lanes = info["dtype"]
    dtype = _DL_DTYPES.get((code, bits))
    if dtype is None or lanes != 1:
        raise Refused(f"DLPack dtype (code {code}, {bits} bits, {lanes} lanes) is not one gausslab filters")
    strides = None if info["strides"] is None else [s * np.dtype(dtype).itemsize for s in info["strides"]]
    array = DeviceArray(obj, info["data"], info["shape"], strides, dtype, info["device_id"], keepalive=capsule)
    array.readonly = False
    return array


def device_of(obj):
    for attribute in ("device",):
        device = getattr(obj, attribute, None)
        if device is not None:
            index = getattr(device, "index", getattr(device, "id", None))
            if index is not None:
                return int(index)
    return 0


def empty_like(obj, shape, dtype):
    """A new C-contiguous device array of obj's kind, or None when its library is not known."""
    library = library_of(obj)
    if library == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(device_of(obj)):
            return cupy.empty(shape, dtype=dtype)
    if library == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, np.dtype(dtype).name), device=obj.device)
    if hasattr(obj, "__array_namespace__"):
        xp = obj.__array_namespace__()
        return xp.empty(shape, dtype=getattr(xp, np.dtype(dtype).name), device=getattr(obj, "device", None))
    return None


def astype(obj, dtype):
    """obj converted on its device by its own library (CuPy, PyTorch), or None when it cannot."""
    library = library_of(obj)
    if library == "cupy":
        return obj.astype(dtype)
    if library == "torch":
        torch = sys.modules["torch"]
        return obj.to(getattr(torch, np.dtype(dtype).name)).contiguous()
    return None


def copy_into(out, obj):
    """out[...] = obj on the device, by the arrays' own library."""
    if library_of(out) == "torch":
        out.copy_(obj)
    else:
        out[...] = obj
