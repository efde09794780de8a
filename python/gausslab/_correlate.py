"""correlate1d, convolve1d, correlate and convolve with scipy.ndimage's arguments, names, defaults and
results: any weights (odd or even sizes, asymmetric, unnormalised, with an origin).

gausslab runs correlations with odd kernels centred on their middle tap. SciPy's even sizes and
origins become such kernels by zeros on one side (the same sums: SciPy's centre tap is at
size // 2 + origin), and convolve is the correlation with the flipped weights and SciPy's own origin
rule (negated, one less for an even size). The weights then become one call of gausslab's filter:
  along the last axis    a mask along rows (each row a 1D signal), no copy;
  along another axis     a pair whose x mask is [1]: the columns of the (before, axis, after) block,
                         so that no axis is moved, on device arrays too;
  along two axes         a 2D matrix (one that is rank 1 runs separably): adjacent axes followed by
                         at most 4 samples as they lie (an image of channels, the axes before it a
                         batch), others moved last first (NumPy arrays only);
  along no axis          the one weight, as a one-tap mask.
Weights reaching along three or more axes are refused. Integer results are rounded once (half up,
or floor or ceil by `rounding=`; SciPy truncates, which is floor for results >= 0).
"""
import math
import numbers
import operator

import numpy as np

from . import _arrays, _gausslab
from ._errors import InvalidArgument, Refused
from ._ndimage import check_options, filter_device, host_output, kept_filter, mode_name, run_layout, store


def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
                accuracy="exact", rounding="nearest", stream=None):
    """scipy.ndimage.correlate1d: out[i] = sum_k weights[k] · input[i + k − size // 2 − origin] along
    `axis`. The keywords after * are gausslab's (see correlate)."""
    return _along_one_axis(input, weights, axis, output, mode, cval, origin, False,
                           (method, accuracy, rounding), stream, "correlate1d")


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
               accuracy="exact", rounding="nearest", stream=None):
    """scipy.ndimage.convolve1d: correlate1d with the weights flipped (and SciPy's origin rule)."""
    return _along_one_axis(input, weights, axis, output, mode, cval, origin, True,
                           (method, accuracy, rounding), stream, "convolve1d")


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto", accuracy="exact",
              rounding="nearest", stream=None):
    """scipy.ndimage.correlate: weights of input's number of dimensions, reaching along at most two axes.

    input    a NumPy array (on the GPU with a copy where a GPU method takes the kernel, else on the
             CPU), or a device array (CuPy, PyTorch, __cuda_array_interface__, DLPack) filtered on its
             own memory; uint8, uint16, float16, float32, float64 (filtered in float32)
    weights  any real weights; mode one for all axes (reflect, mirror, nearest, constant, wrap and
             grid-*); cval must be 0; origin a value or one per axis, as SciPy
    method, accuracy, stream   as gaussian_filter;  rounding  integer outputs: 'nearest' (half up),
             'floor' (SciPy's truncation for results >= 0) or 'ceil'
    last_choice() says which method ran and, where a GPU method refused the kernel, why the CPU did.
    """
    return _along_axes(input, weights, output, mode, cval, origin, False, (method, accuracy, rounding), stream,
                       "correlate")


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto", accuracy="exact",
             rounding="nearest", stream=None):
    """scipy.ndimage.convolve: correlate with the weights flipped on every axis (and SciPy's origin rule)."""
    return _along_axes(input, weights, output, mode, cval, origin, True, (method, accuracy, rounding), stream,
                       "convolve")


# ---- the weights as one odd, centred kernel ---------------------------------------------------------

def _real_weights(weights, name):
    w = np.asarray(weights)
    if np.iscomplexobj(w):
        raise Refused(f"{name}: complex weights are not filtered by gausslab; filter with their real and imaginary "
                      "parts separately")
    if w.dtype == object or not (np.issubdtype(w.dtype, np.number) or w.dtype == np.bool_):
        raise InvalidArgument(f"{name}: the weights must be numbers, not {w.dtype}")
    return w.astype(np.float64)


def _check_cval(mode, cval, name):
    mode = mode_name(mode) if isinstance(mode, str) else None
    if mode is None:
        raise InvalidArgument(f"{name} takes one mode for every axis, a string")
    if mode == "constant" and cval != 0:
        raise Refused(f"cval={cval}: gausslab's 'constant' mode pads with 0 only; filter input - cval and add cval "
                      "times the weights' sum after, or use scipy.ndimage")
    return mode


def _check_origin(size, origin, where, name):
    """SciPy's rule: the centre tap size // 2 + origin lies within the weights (convolve's origin rule
    keeps that range, so the caller's origin is checked before it)."""
    if not 0 <= size // 2 + origin < size:
        raise InvalidArgument(f"{name}: origin {origin}{where} is invalid for {size} weights: it must be "
                              f"{-(size // 2)} to {(size - 1) // 2}")


def _centre_padding(size, origin):
    """(before, after): the zeros that put SciPy's centre tap (size // 2 + origin) in the middle."""
    centre = size // 2 + origin
    reach = max(centre, size - 1 - centre)
    return reach - centre, reach - (size - 1 - centre)


def _convolution_origin(origin, size):
    """SciPy's convolve: the flipped weights correlated with -origin, one less for an even size."""
    return -origin - (0 if size & 1 else 1)


def _origins(origin, ndim):
    if isinstance(origin, numbers.Integral) or np.ndim(origin) == 0:
        return [operator.index(origin)] * ndim
    origins = [operator.index(o) for o in origin]
    if len(origins) != ndim:
        raise InvalidArgument(f"origin has {len(origins)} values for {ndim} axes: give one per axis")
    return origins


# ---- the calls --------------------------------------------------------------------------------------

class _Plan:
    """One call of gausslab's filter: its kernel (kind, x, y, matrix), the layout (batch, height, width,
    channels, rows_only) of the C-contiguous array it runs on, and the two axes moved last first (None)."""

    def __init__(self, kind, layout, x=(), y=(), matrix=None, moved=None):
        self.kind, self.layout, self.moved = kind, layout, moved
        self.x, self.y = tuple(float(v) for v in x), tuple(float(v) for v in y)
        self.matrix = np.zeros((0, 0)) if matrix is None else matrix

    def key(self, mode, options):
        return ("custom", self.kind, self.x, self.y, self.matrix.shape, self.matrix.tobytes(), mode, self.layout[4],
                options)

    def filter(self, mode, options):
        method, accuracy, rounding = options
        height, width = self.matrix.shape
        return kept_filter(self.key(mode, options), lambda: _gausslab.Filter(
            self.kind, list(self.x), list(self.y), width, height, self.matrix.ravel().tolist(), mode, method, accuracy,
            self.layout[4], rounding))


def _plan_one_axis(shape, axis, mask):
    """The call for a centred 1D mask along `axis` of a C-contiguous array of `shape`."""
    if axis == len(shape) - 1:  # along rows: each row a signal
        return _Plan("weights", (1, math.prod(shape[:-1]), shape[-1], 1, True), x=mask)
    # the columns of (before, axis, after): a pair whose x mask is [1] leaves each row as it is
    return _Plan("pair", (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]), 1, False), x=(1.0,),
                 y=mask)


def _plan_two_axes(shape, a, b, matrix):
    """The call for a centred matrix along axes a < b (rows of the matrix along a)."""
    after = math.prod(shape[b + 1:])
    if b == a + 1 and after <= 4:
        return _Plan("matrix", (math.prod(shape[:a]), shape[a], shape[b], after, False), matrix=matrix)
    others = math.prod(n for i, n in enumerate(shape) if i not in (a, b))
    return _Plan("matrix", (others, shape[a], shape[b], 1, False), matrix=matrix, moved=(a, b))


def _along_one_axis(input, weights, axis, output, mode, cval, origin, convolve, options, stream, name):
    check_options(options[1], options[2])
    mode = _check_cval(mode, cval, name)
    w = _real_weights(weights, name)
    if w.ndim != 1:
        raise InvalidArgument(f"{name} takes 1D weights, not an array of shape {w.shape}")
    if w.size == 0:
        raise InvalidArgument(f"{name}: no filter weights given")
    origin = operator.index(origin)
    _check_origin(w.size, origin, "", name)
    if convolve:
        w, origin = w[::-1], _convolution_origin(origin, w.size)
    mask = np.pad(w, _centre_padding(w.size, origin))
    return _execute(input, stream, output, mode, options, lambda shape: _plan_one_axis(shape, _axis(axis, shape), mask))


def _axis(axis, shape):
    axis = operator.index(axis)
    if not -len(shape) <= axis < len(shape):
        raise InvalidArgument(f"axis {axis} is out of range for an array of {len(shape)} dimensions")
    return axis % len(shape)


def _along_axes(input, weights, output, mode, cval, origin, convolve, options, stream, name):
    check_options(options[1], options[2])
    mode = _check_cval(mode, cval, name)
    w = _real_weights(weights, name)

    def plan(shape):
        if w.ndim != len(shape):
            raise InvalidArgument(f"{name}: the weights have {w.ndim} dimensions and the input {len(shape)}: give "
                                  "weights of the input's number of dimensions (size 1 along the axes not filtered)")
        if len(shape) == 0:
            raise InvalidArgument(f"{name}: a 0-dimensional input has no axis to filter")
        if w.size == 0:
            raise InvalidArgument(f"{name}: no filter weights given (the weights have shape {w.shape})")
        kernel, origins = w, _origins(origin, w.ndim)
        for i, (n, o) in enumerate(zip(kernel.shape, origins)):
            _check_origin(n, o, f" along axis {i}", name)
        if convolve:
            kernel = kernel[(slice(None, None, -1),) * kernel.ndim]
            origins = [_convolution_origin(o, n) for o, n in zip(origins, kernel.shape)]
        kernel = np.pad(kernel, [_centre_padding(n, o) for n, o in zip(kernel.shape, origins)])
        active = [i for i, n in enumerate(kernel.shape) if n > 1]
        if len(active) > 2:
            raise Refused(f"{name}: the weights of shape {w.shape} reach along {len(active)} axes; gausslab filters "
                          "along one or two (a 2D kernel, with size 1 along the other axes): use scipy.ndimage for "
                          "3D kernels, or a separable kernel as one call per axis")
        if not active:  # one weight: a one-tap mask
            return _plan_one_axis(shape, len(shape) - 1, kernel.ravel())
        if len(active) == 1:
            return _plan_one_axis(shape, active[0], kernel.ravel())
        a, b = active
        return _plan_two_axes(shape, a, b, kernel.reshape(kernel.shape[a], kernel.shape[b]))

    return _execute(input, stream, output, mode, options, plan)


def _execute(input, stream, output, mode, options, plan_for):
    if _arrays.is_device_array(input):
        our_stream = _arrays.stream_pointer(stream, input)
        array = _arrays.device_array(input, our_stream)
        plan = plan_for(array.shape)
        refusal = None
        if plan.moved:
            refusal = (f"on device arrays gausslab filters a 2D kernel along two adjacent axes followed by at most 4 "
                       f"samples (..., H, W[, C]); axes {plan.moved} of a {array.shape} array need moving "
                       "(cupy.moveaxis, tensor.movedim) first, or pass a NumPy array")

        def run(src, dst, sample, our):
            run_layout(plan.filter(mode, options), plan.layout, src, dst, sample, True, our)
        return filter_device(input, array, our_stream, output, run, refusal)
    array = np.asarray(input)
    return _execute_host(array, plan_for(array.shape), output, mode, options)


def _execute_host(array, plan, output, mode, options):
    _arrays.supported_dtype(array.dtype)
    out, fresh = host_output(output, array)
    if array.size == 0:
        return out
    native = array.dtype in _arrays.NATIVE and out.dtype == array.dtype
    src = array if native else array.astype(np.float32)
    if plan.moved:
        src = np.moveaxis(src, plan.moved, (-2, -1))
    src = np.ascontiguousarray(src)
    direct = native and not plan.moved and (fresh or (out.flags.c_contiguous and not np.may_share_memory(out, src)))
    dst = out if direct else np.empty_like(src)
    run_layout(plan.filter(mode, options), plan.layout, src.ctypes.data, dst.ctypes.data, _arrays.NATIVE[src.dtype],
               device=False)
    if direct:
        return out
    result = np.moveaxis(dst, (-2, -1), plan.moved) if plan.moved else dst
    if native:
        np.copyto(out, result)
    else:
        store(result, out, options[2])
    return out
