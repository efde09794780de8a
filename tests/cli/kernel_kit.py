"""What the custom-kernel checks share (check_filter_kernels.py here, tests/cpu/check_kernels_vs_scipy.py):
SciPy's result for a kernel as gausslab-filter's options give it, and the floor/ceil expectations
with their ties. Needs NumPy and SciPy (the scripts skip without them)."""
import numpy as np
from scipy import ndimage

# A tie: a float64 result that is not a whole number but lies within this of one.
TIE = 1e-3


def weights_text(weights):
    """A mask as --kernel takes it, every float64 digit kept."""
    return ",".join(repr(float(w)) for w in weights)


def scipy_filter(image, mode, mask=None, x=None, y=None, matrix=None, convolve=False, normalize=False):
    """float64 SciPy result of an H×W×C image, channel by channel: a mask on both axes (correlate1d
    or convolve1d along x then y), an x/y pair, or a 2D matrix (correlate or convolve)."""
    out = np.empty(image.shape, float)
    for c in range(image.shape[2]):
        plane = image[:, :, c].astype(float)
        if matrix is None:
            wx = np.asarray(mask if mask is not None else x, float)
            wy = np.asarray(mask if mask is not None else y, float)
            if normalize:
                wx, wy = wx / wx.sum(), wy / wy.sum()
            one_d = ndimage.convolve1d if convolve else ndimage.correlate1d
            out[:, :, c] = one_d(one_d(plane, wx, axis=1, mode=mode), wy, axis=0, mode=mode)
        else:
            m = np.asarray(matrix, float)
            if normalize:
                m = m / m.sum()
            out[:, :, c] = (ndimage.convolve if convolve else ndimage.correlate)(plane, m, mode=mode)
    return out


def tie_mask(values):
    """Samples whose float64 value is not a whole number but lies within TIE of one, inside the
    stored range: floor and ceil of the float32 result may fall on either side there. (Whole values
    come from integer weights on integer samples, which float32 holds exactly: no ties.)"""
    nearest = np.round(values)
    return (values != nearest) & (np.abs(values - nearest) < TIE) & (values > -1) & (values < 256)


def expected_levels(values, rounding):
    """floor or ceil of SciPy's float64 result, saturated as 8-bit stores saturate."""
    return np.clip(np.floor(values) if rounding == "floor" else np.ceil(values), 0, 255)
