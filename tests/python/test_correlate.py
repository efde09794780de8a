"""gausslab.correlate1d, convolve1d, correlate and convolve against scipy.ndimage's: every mode, odd
shapes, asymmetric and unnormalised weights of odd and even sizes, origins, uint8/uint16/float32/
float64, 1D/2D/3D arrays along each axis, output=, rounding=, and the refusals (on the CPU here: the
device runs are in test_device_arrays_gpu.py). Runs with PYTHONPATH at the built (or installed) package."""
import numpy as np
import pytest
import scipy.ndimage as ndi

import gausslab

MODES = ["reflect", "mirror", "nearest", "constant", "wrap", "grid-mirror", "grid-constant", "grid-wrap"]
rng = np.random.default_rng(20261202)

ASYMMETRIC_5 = np.array([0.5, -1.25, 3.0, 0.75, -0.125])  # unnormalised, sum 2.875
MATRIX_5x3 = np.array([[1.0, -2.0, 0.5], [0.25, 4.0, -1.0], [2.0, 0.0, 1.5], [-0.5, 1.0, 3.0], [0.125, 0.0, -2.0]])


def random(shape, dtype):
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)
    return rng.random(shape).astype(dtype)


def close(result, truth, weights, peak=1.0):
    """Float32 rounding of sums of |weights| × peak: 1e-5 of that scale."""
    scale = np.abs(weights).sum() * peak
    return np.abs(result.astype(np.float64) - truth).max() <= 1e-5 * scale


def test_the_issues_1d_example_gives_2_3_3_3_2():
    result = gausslab.correlate1d(np.ones(5, np.float32), [1, 1, 1], mode="constant")
    assert result.tolist() == [2, 3, 3, 3, 2]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("function", ["correlate1d", "convolve1d"])
def test_1d_weights_match_scipy_on_every_mode_and_axis(function, mode):
    image = random((23, 17), np.float32)
    ours, theirs = getattr(gausslab, function), getattr(ndi, function)
    for axis in (0, 1, -1):
        truth = theirs(image.astype(np.float64), ASYMMETRIC_5, axis=axis, mode=mode)
        result = ours(image, ASYMMETRIC_5, axis=axis, mode=mode)
        assert result.dtype == np.float32 and close(result, truth, ASYMMETRIC_5), (axis, mode)


@pytest.mark.parametrize("function", ["correlate1d", "convolve1d"])
def test_even_sizes_and_origins_are_scipys(function):
    signal = random((3, 41), np.float64)
    ours, theirs = getattr(gausslab, function), getattr(ndi, function)
    for weights, origins in (([1.0, 3.0], (-1, 0)), ([2.0, -1.0, 0.5, 4.0], (-2, -1, 0, 1)), (ASYMMETRIC_5, (-2, 1, 2))):
        for origin in origins:
            truth = theirs(signal, weights, origin=origin, mode="nearest")
            result = ours(signal, weights, origin=origin, mode="nearest")
            assert result.dtype == np.float64 and close(result, truth, weights), (weights, origin)
    with pytest.raises(gausslab.InvalidArgument, match="origin 3"):
        ours(signal, ASYMMETRIC_5, origin=3)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("function", ["correlate", "convolve"])
def test_2d_weights_match_scipy_on_every_mode(function, mode):
    image = random((19, 26), np.float32)
    ours, theirs = getattr(gausslab, function), getattr(ndi, function)
    truth = theirs(image.astype(np.float64), MATRIX_5x3, mode=mode)
    result = ours(image, MATRIX_5x3, mode=mode)
    assert close(result, truth, MATRIX_5x3)


def test_the_choice_says_where_it_ran_and_why():
    gausslab.correlate(random((9, 8), np.float32), MATRIX_5x3)
    choice = gausslab.last_choice()
    if not any(m["gpu"] for m in gausslab.methods()):
        assert choice["method"].startswith("cpu_") and "no CUDA device" in choice["why"]
    elif not choice["gpu"]:  # a GPU is here and no GPU method took the kernel: which one refused it, and why
        assert "no GPU method takes it" in choice["why"] and "the CPU ran it" in choice["why"]


@pytest.mark.parametrize("function", ["correlate", "convolve"])
def test_even_2d_sizes_origins_and_a_separable_matrix(function):
    image = random((17, 22), np.float64)
    ours, theirs = getattr(gausslab, function), getattr(ndi, function)
    even = np.arange(1.0, 13.0).reshape(4, 3) - 5.0
    separable = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0, 2.0, 0.5])  # rank 1: runs as a pair
    for weights, origin in ((even, 0), (even, (1, -1)), (MATRIX_5x3, (-2, 1)), (separable, 0), (separable, (0, 2))):
        truth = theirs(image, weights, origin=origin, mode="reflect")
        assert close(ours(image, weights, origin=origin), truth, weights), (weights.shape, origin)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_integer_types_round_once_and_floor_reproduces_scipys_truncation(dtype):
    image = random((21, 18, 3), dtype)
    weights = np.array([[1.0, 2.0, 1.0], [2.0, 5.0, 2.0], [1.0, 3.0, 1.0]]).reshape(3, 3, 1) / 17.0
    truth = ndi.correlate(image.astype(np.float64), weights, mode="mirror")
    nearest = gausslab.correlate(image, weights, mode="mirror")
    assert nearest.dtype == dtype and np.abs(nearest - truth).max() <= 0.51
    floor = gausslab.correlate(image, weights, mode="mirror", rounding="floor")
    theirs = ndi.correlate(image, weights, mode="mirror")  # SciPy truncates: floor, as these are >= 0
    ties = np.abs(truth - np.round(truth)) < 1e-3 + 2e-6 * truth  # float32 sums may land on either side of a level
    assert np.array_equal(floor[~ties], theirs[~ties]) and np.abs(floor.astype(float) - theirs).max() <= 1
    ceil = gausslab.correlate(image, weights, mode="mirror", rounding="ceil")
    assert np.array_equal(ceil[~ties], np.ceil(truth[~ties]).astype(dtype))


def test_1d_2d_and_3d_arrays_along_the_axes_the_weights_reach():
    signal = random(57, np.float32)
    assert close(gausslab.correlate(signal, ASYMMETRIC_5, mode="wrap"),
                 ndi.correlate(signal.astype(np.float64), ASYMMETRIC_5, mode="wrap"), ASYMMETRIC_5)
    volume = random((5, 13, 11), np.float32)
    for shape in ((1, 5, 3), (5, 3, 1), (5, 1, 3), (5, 1, 1), (1, 1, 5), (1, 1, 1)):
        weights = rng.standard_normal(shape)
        truth = ndi.correlate(volume.astype(np.float64), weights, mode="nearest")
        assert close(gausslab.correlate(volume, weights, mode="nearest"), truth, weights), shape
    for axis in range(3):
        truth = ndi.convolve1d(volume.astype(np.float64), [1.0, -2.0, 0.5, 3.0], axis=axis)
        assert close(gausslab.convolve1d(volume, [1.0, -2.0, 0.5, 3.0], axis=axis), truth, [1, 2, 0.5, 3]), axis
    batch = random((4, 9, 10, 4), np.uint8)  # (N, H, W, C): one call, the batch and the channels kept apart
    weights = np.ones((1, 3, 3, 1)) / 9.0
    assert np.abs(gausslab.correlate(batch, weights) - ndi.correlate(batch.astype(float), weights)).max() <= 0.51


def test_output_arrays_and_dtypes():
    image = random((12, 15), np.uint8)
    out = np.empty(image.shape, np.float32)
    assert gausslab.correlate(image, MATRIX_5x3, output=out) is out
    assert close(out, ndi.correlate(image.astype(np.float64), MATRIX_5x3), MATRIX_5x3, peak=255)
    as_float = gausslab.convolve1d(image, ASYMMETRIC_5, axis=0, output=np.float64)
    assert as_float.dtype == np.float64
    assert close(as_float, ndi.convolve1d(image.astype(np.float64), ASYMMETRIC_5, axis=0), ASYMMETRIC_5, peak=255)


def test_what_gausslab_cannot_do_is_refused_with_the_reason():
    image = random((8, 9), np.float32)
    with pytest.raises(gausslab.Refused, match="cval"):
        gausslab.correlate(image, np.ones((3, 3)), mode="constant", cval=1.0)
    with pytest.raises(gausslab.Refused, match="reach along 3 axes"):
        gausslab.correlate(random((4, 5, 6), np.float32), np.ones((3, 3, 3)))
    with pytest.raises(gausslab.Refused, match="complex"):
        gausslab.correlate1d(image, [1j, 1.0, 0.0])
    with pytest.raises(gausslab.InvalidArgument, match="dimensions"):
        gausslab.correlate(image, np.ones(3))
    with pytest.raises(gausslab.InvalidArgument, match="no filter weights"):
        gausslab.correlate1d(image, [])
    with pytest.raises(gausslab.InvalidArgument, match="NaN"):
        gausslab.correlate1d(image, [1.0, np.nan, 1.0])
    with pytest.raises(gausslab.InvalidArgument, match="rounding"):
        gausslab.correlate1d(image, [1.0], rounding="up")
