"""Device arrays on the GPU (the H200, where CuPy and PyTorch are installed; skipped elsewhere):
CuPy arrays, PyTorch CUDA tensors and a DLPack-only producer are filtered on their own memory (the
addresses the library filtered are the arrays' own: no host copy was made), on the caller's current
stream, the result of the same kind and within the method's bound of SciPy's.
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
