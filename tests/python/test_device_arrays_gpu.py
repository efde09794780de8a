"""Device arrays on the GPU (the H200, where CuPy and PyTorch are installed; skipped elsewhere):
CuPy arrays, PyTorch CUDA tensors and a DLPack-only producer are filtered on their own memory (the
addresses the library filtered are the arrays' own: no host copy was made), on the caller's current
stream, the result of the same kind and within the method's bound of SciPy's; a batch is one CUDA
graph launch from its second call with the same arrays, equal to its images one by one; custom
kernels run on device arrays or are refused with a GPU method's reason.
Run: PYTHONPATH=build/python python3 -m pytest -q tests/python/test_device_arrays_gpu.py"""
import numpy as np
import pytest
import scipy.ndimage as ndi

import gausslab

cupy = pytest.importorskip("cupy")
if not any(m["gpu"] for m in gausslab.methods()):
    pytest.skip("no CUDA device for gausslab", allow_module_level=True)


def within_bound(result, host_input, sigma, axes):
    sigmas = [sigma if a in axes else 0.0 for a in range(host_input.ndim)]
    truth = ndi.gaussian_filter(host_input.astype(np.float64), sigmas)
    choice = gausslab.last_choice()
    if np.issubdtype(host_input.dtype, np.integer):
        assert np.abs(result.astype(np.float64) - truth).max() <= choice["bound_levels"] + 1e-9, choice
    else:
        assert np.abs(result - truth).max() / np.abs(truth).max() <= choice["bound_relative"] * 1.0001, choice


def test_cupy_float32_is_filtered_on_its_own_memory():
    x = cupy.random.random((1023, 1031), dtype=cupy.float32)
    out = cupy.empty_like(x)
    assert gausslab.gaussian_filter(x, 2.0, output=out) is out
    choice = gausslab.last_choice()
    assert choice["gpu"] and choice["device_memory"]
    assert (choice["src"], choice["dst"]) == (x.data.ptr, out.data.ptr)
    y = gausslab.gaussian_filter(x, 2.0)
    assert isinstance(y, cupy.ndarray) and y.dtype == cupy.float32
    within_bound(cupy.asnumpy(y), cupy.asnumpy(x), 2.0, (0, 1))


def test_cupy_runs_on_the_current_stream():
    x = cupy.random.random((512, 512), dtype=cupy.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        y = gausslab.gaussian_filter(x, 3.0)
    assert gausslab.last_choice()["stream"] == stream.ptr
    stream.synchronize()
    within_bound(cupy.asnumpy(y), cupy.asnumpy(x), 3.0, (0, 1))


def test_torch_rgba8_batch_is_filtered_on_its_own_memory_on_the_current_stream():
    torch = pytest.importorskip("torch")
    x = torch.randint(0, 256, (64, 512, 512, 4), dtype=torch.uint8, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y = gausslab.gaussian_filter(x, 2.0, axes=(1, 2))
    choice = gausslab.last_choice()
    assert choice["stream"] == stream.cuda_stream
    assert (choice["src"], choice["dst"]) == (x.data_ptr(), y.data_ptr())
    assert isinstance(y, torch.Tensor) and y.is_cuda and y.dtype == torch.uint8 and y.shape == x.shape
    stream.synchronize()
    within_bound(y[:3].cpu().numpy(), x[:3].cpu().numpy(), 2.0, (1, 2))


def test_a_dlpack_only_producer_is_read_through_its_capsule():
    class OnlyDLPack:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    x = cupy.random.random((300, 200), dtype=cupy.float32)
    out = cupy.empty_like(x)
    gausslab.gaussian_filter(OnlyDLPack(x), 1.5, output=out)
    choice = gausslab.last_choice()
    assert (choice["src"], choice["dst"]) == (x.data.ptr, out.data.ptr)
    cupy.cuda.get_current_stream().synchronize()
    within_bound(cupy.asnumpy(out), cupy.asnumpy(x), 1.5, (0, 1))


def test_numpy_arrays_run_on_the_gpu_with_a_copy():
    x = np.random.default_rng(1).random((257, 263)).astype(np.float32)
    y = gausslab.gaussian_filter(x, 4.0)
    choice = gausslab.last_choice()
    assert choice["gpu"] and not choice["device_memory"]
    within_bound(y, x, 4.0, (0, 1))


def test_cupy_float64_is_filtered_in_float32_on_the_device():
    x = cupy.random.random((200, 300), dtype=cupy.float64)
    y = gausslab.gaussian_filter(x, 2.5)
    assert isinstance(y, cupy.ndarray) and y.dtype == cupy.float64
    assert gausslab.last_choice()["device_memory"]
    within_bound(cupy.asnumpy(y), cupy.asnumpy(x), 2.5, (0, 1))


def test_an_explicit_stream_waits_for_the_producers_stream():
    x = cupy.random.random((700, 500), dtype=cupy.float32)  # made on CuPy's current stream
    stream = cupy.cuda.Stream(non_blocking=True)
    out = cupy.empty_like(x)
    gausslab.gaussian_filter(x, 1.8, output=out, stream=stream)
    assert gausslab.last_choice()["stream"] == stream.ptr
    stream.synchronize()
    within_bound(cupy.asnumpy(out), cupy.asnumpy(x), 1.8, (0, 1))


def test_a_cupy_batch_is_one_graph_launch_from_its_second_call_equal_to_the_images_one_by_one():
    x = cupy.random.default_rng(5).integers(0, 256, (16, 130, 97, 4), dtype=cupy.uint8)
    out = cupy.empty_like(x)
    whys = []
    for _ in range(3):  # new arrays: the loop; then captured and launched; then launched again
        out[...] = 0
        gausslab.gaussian_filter(x, 2.0, axes=(1, 2), output=out)
        whys.append(gausslab.last_choice()["why"])
    assert "arrays not seen before" in whys[0], whys
    assert all("batch of 16: one CUDA graph launch" in w for w in whys[1:]) or "capture failed" in whys[1], whys
    one_by_one = cupy.stack([gausslab.gaussian_filter(x[i], 2.0, axes=(0, 1)) for i in range(16)])
    cupy.cuda.get_current_stream().synchronize()
    assert bool((out == one_by_one).all()), whys


def test_custom_kernels_on_device_arrays_run_there_or_are_refused_with_a_gpu_methods_reason():
    x = cupy.random.random((130, 97), dtype=cupy.float32)
    weights = np.array([[1.0, -2.0, 0.5], [0.25, 4.0, -1.0], [2.0, 0.0, 1.5]])
    try:
        y = gausslab.correlate(x, weights, mode="nearest")
    except gausslab.Refused as error:
        assert "no GPU method can filter" in str(error) and "run_host" in str(error), str(error)
        return
    assert gausslab.last_choice()["device_memory"] and isinstance(y, cupy.ndarray)
    truth = ndi.correlate(cupy.asnumpy(x).astype(np.float64), weights, mode="nearest")
    assert np.abs(cupy.asnumpy(y) - truth).max() <= 1e-5 * np.abs(weights).sum()
    # along one axis of a 3D array without moving it: a pair whose x mask is [1]
    v = cupy.random.random((5, 40, 33), dtype=cupy.float32)
    z = gausslab.convolve1d(v, [1.0, 3.0, -2.0, 0.5], axis=1)
    truth = ndi.convolve1d(cupy.asnumpy(v).astype(np.float64), [1.0, 3.0, -2.0, 0.5], axis=1)
    assert np.abs(cupy.asnumpy(z) - truth).max() <= 1e-5 * 6.5
