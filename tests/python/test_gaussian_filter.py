"""gausslab.gaussian_filter against scipy.ndimage.gaussian_filter: every mode, odd shapes, uint8,
uint16, float16, float32 and float64, output=, radius=, axes=, 1D/2D/3D arrays and batches; the
refusals; the DLPack and __cuda_array_interface__ readers (on the CPU: the device runs are in
test_device_arrays_gpu.py). Runs with PYTHONPATH at the built (or installed) package."""
import numpy as np
import pytest
import scipy.ndimage as ndi

import gausslab

MODES = ["reflect", "mirror", "nearest", "constant", "wrap", "grid-mirror", "grid-constant", "grid-wrap"]
rng = np.random.default_rng(20261201)


def random(shape, dtype):
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)
    return rng.random(shape).astype(dtype)


def exact(array, sigma, axes=None, **kwargs):
    """SciPy's result in float64 (the truth gausslab is held to). Debian 12's SciPy 1.10 has no axes=:
    the axes not filtered get sigma 0, which SciPy leaves as they are."""
    if axes is not None:
        filtered = {a % array.ndim for a in axes}
        sigma = [sigma if axis in filtered else 0.0 for axis in range(array.ndim)]
    return ndi.gaussian_filter(array.astype(np.float64), sigma, **kwargs)


def relative_error(result, truth):
    return np.abs(result.astype(np.float64) - truth).max() / np.abs(truth).max()


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_matches_scipy_on_an_odd_shape(mode):
    image = random((23, 17), np.float32)
    result = gausslab.gaussian_filter(image, 1.7, mode=mode)
    assert result.dtype == np.float32 and result.shape == image.shape
    assert relative_error(result, exact(image, 1.7, mode=mode)) <= 1e-5


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_integer_types_are_the_rounded_exact_result(dtype):
    image = random((29, 31), dtype)
    result = gausslab.gaussian_filter(image, 2.3, mode="nearest")
    assert result.dtype == dtype
    truth = exact(image, 2.3, mode="nearest")
    assert np.abs(result - truth).max() <= 0.51
    # SciPy truncates its integer output after each axis: at most a level per filtered axis below.
    theirs = ndi.gaussian_filter(image, 2.3, mode="nearest").astype(np.float64)
    assert np.abs(result - theirs).max() <= 2


@pytest.mark.parametrize("dtype,bound", [(np.float32, 1e-5), (np.float64, 1e-5), (np.float16, 1e-3)])
def test_float_types_keep_their_dtype(dtype, bound):
    image = random((18, 25), dtype)
    result = gausslab.gaussian_filter(image, 3.1, mode="mirror")
    assert result.dtype == dtype
    assert relative_error(result, exact(image, 3.1, mode="mirror")) <= bound


def test_output_array_and_dtype():
    image = random((15, 21), np.uint8)
    out = np.empty((15, 21), np.uint8)
    assert gausslab.gaussian_filter(image, 1.2, output=out) is out
    assert np.abs(out - exact(image, 1.2)).max() <= 0.51
    as_float = gausslab.gaussian_filter(image, 1.2, output=np.float32)
    assert as_float.dtype == np.float32
    assert relative_error(as_float, exact(image, 1.2)) <= 1e-5
    into_float = np.empty((15, 21), np.float64)
    gausslab.gaussian_filter(image, 1.2, output=into_float)
    assert relative_error(into_float, exact(image, 1.2)) <= 1e-5
    with pytest.raises(ValueError, match="shape"):
        gausslab.gaussian_filter(image, 1.2, output=np.empty((15, 20), np.uint8))


def test_output_may_be_the_input():
    image = random((12, 13), np.float32)
    truth = exact(image, 1.5)
    assert gausslab.gaussian_filter(image, 1.5, output=image) is image
    assert relative_error(image, truth) <= 1e-5


@pytest.mark.parametrize("radius", [0, 1, 3, (2, 5)])
def test_radius(radius):
    image = random((20, 19), np.float32)
    result = gausslab.gaussian_filter(image, 2.0, radius=radius)
    assert relative_error(result, exact(image, 2.0, radius=radius)) <= 1e-5


def test_truncate_and_per_axis_sigma():
    image = random((17, 23), np.float32)
    for sigma in [(2.0, 0.7), (0.0, 1.4), (1.1, 0)]:
        result = gausslab.gaussian_filter(image, sigma, truncate=2.5)
        assert relative_error(result, exact(image, sigma, truncate=2.5)) <= 1e-5, sigma


def test_one_two_and_three_dimensions_along_every_axis():
    for shape in [(37,), (11, 9), (5, 7, 6)]:
        array = random(shape, np.float32)
        result = gausslab.gaussian_filter(array, 1.3, mode="wrap")
        assert relative_error(result, exact(array, 1.3, mode="wrap")) <= 1e-5, shape


@pytest.mark.parametrize("axes", [(1, 2), (0,), (-1, 0), (2,), (0, 1, 2)])
def test_axes_of_a_volume(axes):
    volume = random((6, 13, 9), np.float32)
    result = gausslab.gaussian_filter(volume, 1.6, axes=axes, mode="reflect")
    assert relative_error(result, exact(volume, 1.6, axes=axes, mode="reflect")) <= 1e-5


def test_a_batch_of_colour_images_is_filtered_image_by_image():
    batch = random((4, 15, 11, 3), np.uint8)
    result = gausslab.gaussian_filter(batch, 1.8, axes=(1, 2))
    assert result.shape == batch.shape and result.dtype == np.uint8
    assert np.abs(result - exact(batch, 1.8, axes=(1, 2))).max() <= 0.51


def test_modes_per_axis_and_a_non_contiguous_input():
    image = random((21, 16), np.float32).T  # a transposed view
    result = gausslab.gaussian_filter(image, 1.4, mode=("wrap", "constant"))
    assert relative_error(result, exact(image, 1.4, mode=("wrap", "constant"))) <= 1e-5


def test_gaussian_filter1d_along_each_axis():
    volume = random((7, 10, 5), np.uint16)
    for axis in (0, 1, 2, -1):
        result = gausslab.gaussian_filter1d(volume, 2.2, axis=axis, mode="mirror")
        truth = ndi.gaussian_filter1d(volume.astype(np.float64), 2.2, axis=axis, mode="mirror")
        assert result.dtype == np.uint16
        assert np.abs(result - truth).max() <= 0.51, axis


def test_what_gausslab_cannot_do_is_refused_with_the_reason():
    image = random((9, 9), np.float32)
    with pytest.raises(gausslab.Refused, match="derivatives"):
        gausslab.gaussian_filter(image, 1.0, order=1)
    with pytest.raises(gausslab.Refused, match="cval"):
        gausslab.gaussian_filter(image, 1.0, mode="constant", cval=0.5)
    # cval is unused by the other modes, as in SciPy
    assert gausslab.gaussian_filter(image, 1.0, mode="nearest", cval=0.5).shape == image.shape
    with pytest.raises(ValueError, match="mode"):
        gausslab.gaussian_filter(image, 1.0, mode="bounce")
    with pytest.raises(ValueError, match="sigma"):
        gausslab.gaussian_filter(image, float("nan"))
    with pytest.raises(ValueError, match="2 filtered axes"):
        gausslab.gaussian_filter(image, (1.0, 2.0, 3.0))
    with pytest.raises(gausslab.Refused, match="dtype"):
        gausslab.gaussian_filter(image.astype(np.int32), 1.0)
    with pytest.raises(ValueError, match="unknown method"):
        gausslab.gaussian_filter(image, 1.0, method="fastest")
    with pytest.raises(ValueError, match="accuracy"):
        gausslab.gaussian_filter(image, 1.0, accuracy="close")
    assert gausslab.gaussian_filter(image, 1.0, accuracy="any").shape == image.shape


def test_methods_version_and_the_choice():
    listed = gausslab.methods()
    assert {"cpu_separable", "cpu_openmp"} <= {m["id"] for m in listed}
    assert all(m["available"] for m in listed)
    assert len(gausslab.methods(all=True)) > len(listed) or any(m["gpu"] for m in listed)
    assert gausslab.__version__.split("+")[0].count(".") == 2
    gausslab.gaussian_filter(random((8, 8), np.float32), 1.0, method="cpu_separable")
    assert gausslab.last_choice()["method"] == "cpu_separable"


def test_dlpack_capsules_are_read_as_their_producer_describes_them():
    array = random((6, 10), np.float32)[:, ::2]  # strided
    info = gausslab._gausslab.dlpack_info(array.__dlpack__())
    assert info["data"] == array.__array_interface__["data"][0]
    assert info["device_type"] == 1  # kDLCPU
    assert info["shape"] == (6, 5)
    assert info["strides"] == (10, 2)  # in elements
    assert info["dtype"] == (2, 32, 1)


class FakeDeviceArray:
    """An object that says it is CUDA memory (no GPU here: the call must stop at NoDevice)."""

    address = 0x7F0000000000

    def __init__(self, shape, typestr):
        FakeDeviceArray.address += 1 << 30
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (FakeDeviceArray.address, False),
                                         "strides": None, "version": 3}


def test_device_arrays_are_taken_by_their_interface_and_need_a_gpu():
    if any(m["gpu"] and m["available"] for m in gausslab.methods(all=True)):
        pytest.skip("a GPU is here: test_device_arrays_gpu.py covers device arrays")
    src, dst = FakeDeviceArray((32, 48, 4), "|u1"), FakeDeviceArray((32, 48, 4), "|u1")
    with pytest.raises(gausslab.NoDevice):
        gausslab.gaussian_filter(src, 2.0, axes=(0, 1), output=dst)
    with pytest.raises(ValueError, match="output="):
        gausslab.gaussian_filter(src, 2.0, axes=(0, 1))
    with pytest.raises(gausslab.Refused, match="device arrays"):
        gausslab.gaussian_filter(FakeDeviceArray((8, 9, 10), "<f4"), 2.0, output=FakeDeviceArray((8, 9, 10), "<f4"))
