"""gaussian_filter and gaussian_filter1d with scipy.ndimage's arguments, names, defaults and results.

The filtered axes become calls of gausslab's 2D filter (two adjacent axes with the same sigma, mode
and radius, followed by at most 4 samples per point: an image of 1 to 4 channels, the axes before it
a batch filtered in one call) or of its 1D filter along rows (one axis followed by at most 4 samples);
another axis of a NumPy array is moved last for its pass. Integer types are rounded half up once, at
the end (SciPy truncates after each axis). What gausslab cannot do is refused with Refused.
"""
import collections
import math
import numbers
import operator
import threading

import numpy as np

from . import _arrays, _gausslab
from ._errors import InvalidArgument, Refused

_MODES = {"reflect": "reflect", "grid-mirror": "reflect", "mirror": "mirror", "nearest": "nearest",
          "constant": "constant", "grid-constant": "constant", "wrap": "wrap", "grid-wrap": "wrap"}
_ACCURACY = ("exact", "approximate", "any")
_ROUNDING = ("nearest", "floor", "ceil")
_KEPT_FILTERS = 16  # per thread: their plans and scratch survive between calls with these parameters
_local = threading.local()


def methods(all=False):
    """The methods that can run here (all=True: every registered one), as dicts: id, label, gpu,
    available (and why not), accuracy (the bound it promises), rows_only, pixel_types, summary."""
    listed = _gausslab.methods()
    return listed if all else [m for m in listed if m["available"]]


def last_choice():
    """The calling thread's last filter call (a dict), or None: the method that ran, gpu, why, its
    bounds, and the addresses it filtered (src, dst), device_memory and the stream."""
    return getattr(_local, "last_choice", None)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *,
                      radius=None, method="auto", accuracy="exact", rounding="nearest", stream=None):
    """scipy.ndimage.gaussian_filter1d: the Gaussian along one axis (see gaussian_filter)."""
    if not isinstance(sigma, numbers.Real):
        raise InvalidArgument(f"gaussian_filter1d takes one sigma, not {sigma!r}")
    if not isinstance(mode, str):
        raise InvalidArgument(f"gaussian_filter1d takes one mode, not {mode!r}")
    return gaussian_filter(input, sigma, order, output, mode, cval, truncate, radius=radius, axes=(axis,),
                           method=method, accuracy=accuracy, rounding=rounding, stream=stream)


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None,
                    axes=None, method="auto", accuracy="exact", rounding="nearest", stream=None):
    """scipy.ndimage.gaussian_filter: the Gaussian along `axes` (default: every axis, as SciPy).

    input   a NumPy array (filtered on the GPU with a copy, or on the CPU without one), or a device
            array (CuPy, PyTorch CUDA tensor, __cuda_array_interface__, DLPack) filtered on its own
            memory on the caller's current stream, the result of the same kind; uint8, uint16, float16,
            float32, float64 (filtered in float32)
    sigma, order, mode, radius   a value or one per filtered axis, as SciPy; order must be 0 and cval
            0 (both refused otherwise); modes reflect, mirror, nearest, constant, wrap (and grid-*)
    output  an array to write (returned), a dtype, or None (the input's dtype)
    method  'auto' or an id from methods();  accuracy  'exact' (float rounding), 'approximate' (1e-3,
            0.8 levels) or 'any' (a named method's own bound)
    rounding  integer outputs: 'nearest' (half up, once), 'floor' or 'ceil' (SciPy truncates: floor
            for results >= 0)
    stream  for device arrays: an int (cudaStream_t) or a CuPy/PyTorch stream; default the current one
    """
    check_options(accuracy, rounding)
    device = _arrays.is_device_array(input)
    if device:  # its memory as its producer describes it, made ready for the stream the call runs on
        our_stream = _arrays.stream_pointer(stream, input)
        array = _arrays.device_array(input, our_stream)
        ndim = array.ndim
    else:
        ndim = np.ndim(input)
    axes = _normalize_axes(axes, ndim)
    sigmas = _per_axis(sigma, len(axes), "sigma")
    orders = _per_axis(order, len(axes), "order")
    modes = [mode_name(m) for m in _per_axis(mode, len(axes), "mode")]
    radii = _per_axis(radius, len(axes), "radius")
    passes = []
    for axis, s, o, m, r in zip(axes, sigmas, orders, modes, radii):
        s = float(s)
        if math.isnan(s) or s < 0:
            raise InvalidArgument(f"sigma must be a number >= 0 (0: that axis is not filtered), not {s}")
        if o != 0:
            raise Refused(f"order={o}: gausslab filters with the Gaussian itself (order 0), not its derivatives; "
                          "use scipy.ndimage.gaussian_filter for derivatives")
        if m == "constant" and cval != 0:
            raise Refused(f"cval={cval}: gausslab's 'constant' mode pads with 0 only; subtract cval before and add "
                          "it after (the weights sum to 1), or use scipy.ndimage")
        if s <= 1e-15:  # as SciPy: that axis is left as it is
            continue
        t = float(truncate)
        r = int(t * s + 0.5) if r is None else operator.index(r)
        if r < 0:
            raise InvalidArgument(f"radius must be >= 0, not {r}")
        if r == 0:  # one weight of 1: the axis is unchanged
            continue
        passes.append((axis, s, m, t, r))
    options = (method, accuracy, rounding)
    if device:
        calls = _group(passes, array.shape)
        refusal = None
        if len(calls) > 1 or (calls and _layout(array.shape, calls[0][0]) is None):
            refusal = (f"on device arrays gausslab filters two adjacent axes with one sigma, mode and radius, or one "
                       f"axis, with at most 4 samples after them (..., H, W[, C]); these axes of a {array.shape} "
                       "array need moving (cupy.moveaxis, tensor.movedim) or a NumPy array")

        def run(src, dst, sample, our):
            _run(calls[0], (src, array.shape), (dst, array.shape), sample, options, device=True, stream=our)
        return filter_device(input, array, our_stream, output, run if calls else None, refusal)
    return _filter_host(np.asarray(input), passes, output, options)


def check_options(accuracy, rounding):
    if accuracy not in _ACCURACY:
        raise InvalidArgument(f"accuracy must be 'exact', 'approximate' or 'any', not {accuracy!r}")
    if rounding not in _ROUNDING:
        raise InvalidArgument(f"rounding must be 'nearest', 'floor' or 'ceil', not {rounding!r}")


# ---- arguments ---------------------------------------------------------------------------------

def _normalize_axes(axes, ndim):
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, numbers.Integral):
        axes = (axes,)
    normalized = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise InvalidArgument(f"axis {a} is out of range for an array of {ndim} dimensions")
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise InvalidArgument(f"axes {tuple(axes)} name an axis twice")
    return tuple(normalized)


def _per_axis(value, count, name):
    if isinstance(value, str) or not isinstance(value, collections.abc.Iterable):
        return [value] * count
    value = list(value)
    if len(value) != count:
        raise InvalidArgument(f"{name} has {len(value)} values for {count} filtered axes: give one per axis")
    return value


def mode_name(mode):
    if mode not in _MODES:
        raise InvalidArgument(f"mode {mode!r} is unknown; use one of {', '.join(_MODES)}")
    return _MODES[mode]


# ---- the calls ---------------------------------------------------------------------------------

def kept_filter(key, make):
    """The calling thread's Filter for these parameters (kept: its plans survive between calls); `key`
    is hashable and says everything `make()` builds it from."""
    kept = getattr(_local, "filters", None)
    if kept is None:
        kept = _local.filters = collections.OrderedDict()
    f = kept.get(key)
    if f is None:
        f = make()
        kept[key] = f
        if len(kept) > _KEPT_FILTERS:
            kept.popitem(last=False)
    else:
        kept.move_to_end(key)
    return f


def _group(passes, shape):
    """The passes as calls: (axes, sigma, mode, truncate, radius), two adjacent axes with the same
    parameters and at most 4 samples after them becoming one 2D call (the Gaussian passes along
    different axes commute, so the order does not matter)."""
    by_axis = {p[0]: p for p in passes}
    calls, done = [], set()
    for axis in sorted(by_axis):
        if axis in done:
            continue
        nxt = by_axis.get(axis + 1)
        if nxt is not None and nxt[1:] == by_axis[axis][1:] and math.prod(shape[axis + 2:]) <= 4:
            calls.append(((axis, axis + 1),) + by_axis[axis][1:])
            done.update((axis, axis + 1))
        else:
            calls.append(((axis,),) + by_axis[axis][1:])
            done.add(axis)
    return calls


def _layout(shape, axes):
    """(batch, height, width, channels, rows_only) of a C-contiguous array for a call on `axes`, or
    None when more than 4 samples follow the axes (the axis must be moved last first)."""
    last = axes[-1]
    channels = math.prod(shape[last + 1:])
    if channels > 4:
        return None
    if len(axes) == 2:
        return math.prod(shape[:axes[0]]), shape[axes[0]], shape[axes[1]], channels, False
    return 1, math.prod(shape[:last]), shape[last], channels, True


def _run(call, src, dst, sample, options, device, stream=0):
    """One call on C-contiguous memory: src and dst are (address, shape) of the same layout."""
    axes, s, m, t, r = call
    layout = _layout(src[1], axes)
    method, accuracy, rounding = options
    f = kept_filter(("gaussian", s, m, t, r, method, accuracy, layout[4], rounding),
                    lambda: _gausslab.Filter(s, t, r, m, method, accuracy, layout[4], rounding))
    run_layout(f, layout, src[0], dst[0], sample, device, stream)


def run_layout(f, layout, src, dst, sample, device, stream=0):
    """f on C-contiguous memory at src into dst: `layout` is (batch, height, width, channels, rows_only)."""
    batch, height, width, channels, _ = layout
    if batch * height * width == 0:
        return
    itemsize = {"u8": 1, "u16": 2, "f16": 2, "f32": 4}[sample]
    pitch = width * channels * itemsize
    f.run(device, src, dst, batch, height, width, channels, sample, pitch, pitch, pitch * height, pitch * height,
          stream or 0)
    # What ran, and on which memory: the addresses handed to the library as they are (no copy was made
    # for a device array), for the callers and the tests that check it.
    _local.last_choice = dict(f.last_choice(), src=src, dst=dst, device_memory=device, stream=stream or 0)


def _host_pass(work, call, options):
    """One call on a C-contiguous float32 or native array, into a new array of the same dtype."""
    axes = call[0]
    moved = _layout(work.shape, axes) is None
    src = np.ascontiguousarray(np.moveaxis(work, axes[0], -1)) if moved else work
    call = (((src.ndim - 1,),) + call[1:]) if moved else call
    dst = np.empty_like(src)
    _run(call, (src.ctypes.data, src.shape), (dst.ctypes.data, dst.shape), _arrays.NATIVE[src.dtype], options,
         device=False)
    return np.moveaxis(dst, -1, axes[0]) if moved else dst


def store(result, out, rounding="nearest"):
    """result written into out by gausslab's rule: integers rounded (half up, or floor or ceil as
    `rounding` says) and saturated (NaN: 0)."""
    if np.issubdtype(out.dtype, np.integer):
        info = np.iinfo(out.dtype)
        value = np.nan_to_num(result.astype(np.float32), nan=0.0)
        value = {"nearest": lambda v: np.floor(v + 0.5), "floor": np.floor, "ceil": np.ceil}[rounding](value)
        result = np.clip(value, info.min, info.max)
    np.copyto(out, result, casting="unsafe")


def host_output(output, array):
    if output is None or isinstance(output, (type, np.dtype, str)):
        dtype = _arrays.supported_dtype(array.dtype if output is None else output, "output")
        return np.empty(array.shape, dtype), True
    if not isinstance(output, np.ndarray):
        raise InvalidArgument(f"output= takes a NumPy array or a dtype for a NumPy input, not {type(output).__name__}")
    if output.shape != array.shape:
        raise InvalidArgument(f"output has shape {output.shape}, the input {array.shape}: give the same shape")
    _arrays.supported_dtype(output.dtype, "output")
    return output, False


def _filter_host(array, passes, output, options):
    _arrays.supported_dtype(array.dtype)
    out, fresh = host_output(output, array)
    if not passes:
        store(array, out, options[2])
        return out
    calls = _group(passes, array.shape)
    native = array.dtype in _arrays.NATIVE and out.dtype == array.dtype
    if native and len(calls) == 1 and _layout(array.shape, calls[0][0]) is not None:
        src = np.ascontiguousarray(array)
        direct = fresh or (out.flags.c_contiguous and not np.may_share_memory(out, src))
        dst = out if direct else np.empty_like(src)
        _run(calls[0], (src.ctypes.data, src.shape), (dst.ctypes.data, dst.shape), _arrays.NATIVE[src.dtype],
             options, device=False)
        if not direct:
            np.copyto(out, dst)
        return out
    # Several calls, a moved axis, float64 or another output type: float32 between the calls.
    work = np.ascontiguousarray(array, dtype=np.float32)
    for call in calls:
        work = np.ascontiguousarray(_host_pass(work, call, options))
    store(work, out, options[2])
    return out


def filter_device(obj, array, our_stream, output, run, refusal=None):
    """A device array filtered on its own memory: run(src, dst, sample, stream) filters C-contiguous
    memory at src into dst of the array's shape (None: nothing to filter, a copy); `refusal` is the
    message when the array's layout is not one call."""
    if array.device_id != 0:
        raise Refused(f"the array is on CUDA device {array.device_id}; gausslab runs on device 0 "
                      "(CUDA_VISIBLE_DEVICES can make that device the first)")
    _arrays.supported_dtype(array.dtype)
    if our_stream is None:
        our_stream = array.stream if isinstance(array.stream, int) else 0
    elif isinstance(array.stream, int) and (array.stream or 1) != (our_stream or 1):  # 0 and 1: the legacy stream
        _gausslab.stream_wait(our_stream, array.stream)  # the producer's work first
    if refusal:
        raise Refused(refusal)
    if not array.c_contiguous():
        raise Refused("the device array is not C-contiguous: make it so first (cupy.ascontiguousarray, "
                      "tensor.contiguous())")
    if array.dtype == np.float64:  # filtered in float32 on the device, by the array's own library
        converted = _arrays.astype(obj, np.float32)
        if converted is None:
            raise Refused("a float64 device array is filtered in float32: convert it first (only CuPy's and "
                          "PyTorch's are converted here)")
        result = filter_device(converted, _arrays.device_array(converted, our_stream), our_stream, None, run)
        back = _arrays.astype(result, np.float64)
        if output is None:
            return back
        output[...] = back
        return output
    out = output if output is not None and not isinstance(output, (type, np.dtype, str)) else None
    if output is not None and out is None and np.dtype(output) != array.dtype:
        raise Refused(f"output dtype {np.dtype(output)} differs from the input's {array.dtype}: on device arrays "
                      "gausslab writes the input's dtype (convert the result after)")
    if out is None:
        out = _arrays.empty_like(obj, array.shape, array.dtype)
        if out is None:
            raise InvalidArgument(f"gausslab cannot make an array of {type(obj).__name__}'s kind: pass output=")
    target = _arrays.device_array(out, our_stream)
    if target.shape != array.shape or target.dtype != array.dtype or not target.c_contiguous():
        raise InvalidArgument(f"output must be a C-contiguous device array of shape {array.shape} and dtype "
                              f"{array.dtype}, not {target.shape} {target.dtype}")
    if run is None:  # nothing to filter: a copy, as SciPy
        _arrays.copy_into(out, obj)
        return out
    run(array.data, target.data, _arrays.NATIVE[array.dtype], our_stream)
    return out
