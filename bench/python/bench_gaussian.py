#!/usr/bin/env python3
"""gausslab.gaussian_filter against cupyx.scipy.ndimage.gaussian_filter and torchvision's
gaussian_blur on the same device arrays (run where CuPy and PyTorch are: the H200).

Rows: float32 1 channel and uint8 RGBA at 1024² to 8192², sigma 2, 8 and 32, and a batch of 64 RGBA8
images of 512² in one call (gausslab: one CUDA graph launch from the second call with the same
arrays; the 64 images as 64 Python calls beside it). Each library's time is the median of
CUDA-event-timed calls on one stream (GPU time), and the wall time of the same calls from Python with
a synchronisation after each (what a caller waits); a call whose first run takes over 0.2 s is timed
by that run alone, and the repeats of the others stop at 0.3 s. The Python overhead is the host time
of one gausslab call on a 16² image (no GPU work worth timing) and of one batch call of 64 × 512²
(the argument handling and the launches, without waiting for the GPU). Every result is compared with
CuPy's (max difference, in the type's units) before it is timed. --budget-seconds (default 85) skips
the measurements predicted (from the same library and sigma at the size before) to overrun it.

    PYTHONPATH=build/python python3 bench/python/bench_gaussian.py --out results.md [--quick]

Without CuPy, PyTorch/torchvision or a GPU it stops at once with exit status 2 and says which is missing.
"""
import argparse
import statistics
import sys
import time

import numpy as np

import gausslab


SINGLE_RUN_MS = 200  # a first run longer than this is the measurement (torchvision's 2D kernels at sigma 32)
REPEAT_BUDGET_MS = 300  # the repeats of one measurement stop after this much wall time (3 at least)


def median_ms(run, synchronize, event_pair, repeats):
    """Median GPU time (CUDA events) and wall time (synchronised) of `run`, in ms."""
    t0 = time.perf_counter()
    run()
    synchronize()
    warm_ms = (time.perf_counter() - t0) * 1e3
    if warm_ms > SINGLE_RUN_MS:
        return warm_ms, warm_ms
    repeats = max(3, min(repeats, int(REPEAT_BUDGET_MS / max(warm_ms, 1e-3))))
    gpu, wall = [], []
    for _ in range(repeats):
        start, stop = event_pair()
        t0 = time.perf_counter()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        wall.append((time.perf_counter() - t0) * 1e3)
        gpu.append(cupy_elapsed(start, stop))
    return statistics.median(gpu), statistics.median(wall)


def cupy_elapsed(start, stop):
    import cupy
    return cupy.cuda.get_elapsed_time(start, stop)


def python_overhead_us(repeats=2000):
    import cupy
    x = cupy.zeros((16, 16), cupy.float32)
    out = cupy.empty_like(x)
    gausslab.gaussian_filter(x, 2.0, output=out)
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(repeats):
        gausslab.gaussian_filter(x, 2.0, output=out)
    host = (time.perf_counter() - t0) / repeats * 1e6
    cupy.cuda.get_current_stream().synchronize()
    return host


def batch_call_host_us(batch, sigma, repeats=20):
    """Host time of one gausslab call on a batch (its graph launch), without waiting for the GPU."""
    import cupy
    out = cupy.empty_like(batch)
    for _ in range(2):  # the first call with these arrays runs the loop, the second captures the graph
        gausslab.gaussian_filter(batch, sigma, axes=(1, 2), output=out)
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(repeats):
        gausslab.gaussian_filter(batch, sigma, axes=(1, 2), output=out)
    host = (time.perf_counter() - t0) / repeats * 1e6
    cupy.cuda.get_current_stream().synchronize()
    return host, gausslab.last_choice()["why"]


def missing_requirements():
    """Why this benchmark cannot run here (empty when it can)."""
    missing = []
    for module in ("cupy", "torch", "torchvision"):
        try:
            __import__(module)
        except ImportError as error:
            missing.append(f"{module} ({error})")
    if missing:
        return "needs " + ", ".join(missing)
    import cupy
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
    except Exception as error:  # cudaErrorInsufficientDriver and the like
        return f"no CUDA device ({str(error).splitlines()[0]})"
    if not any(m["gpu"] for m in gausslab.methods()):
        return "gausslab has no GPU method available here"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="Markdown table to write (also printed)")
    parser.add_argument("--quick", action="store_true", help="1024² and 2048² only, fewer repeats")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--budget-seconds", type=float, default=85.0,
                        help="skip the measurements predicted to end after this many seconds from the start")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"gausslab {gausslab.__version__}", flush=True)
    why_not = missing_requirements()
    if why_not:
        print(f"bench_gaussian.py cannot run here: {why_not}; run it where CuPy, PyTorch with torchvision and a "
              "CUDA GPU are (docs/library.md, 'Measured on the H200')", file=sys.stderr)
        return 2

    import cupy
    import cupyx.scipy.ndimage as cundi
    import torch
    import torchvision.transforms.functional as tvf

    sizes = [1024, 2048] if args.quick else [1024, 2048, 4096, 8192]
    sigmas = [2, 8, 32]
    repeats = 5 if args.quick else args.repeats
    event_pair = lambda: (cupy.cuda.Event(), cupy.cuda.Event())
    sync = cupy.cuda.get_current_stream().synchronize
    rows = []

    def torch_blur(t, sigma, channels_last):
        # torchvision blurs (..., C, H, W); its kernel size must be odd: 2 × radius + 1 with SciPy's radius.
        k = 2 * int(4.0 * sigma + 0.5) + 1
        if channels_last:  # (N,) H, W, C -> N, C, H, W
            x = (t if t.dim() == 4 else t.unsqueeze(0)).permute(0, 3, 1, 2)
        else:
            x = t.unsqueeze(0).unsqueeze(0)
        return tvf.gaussian_blur(x, [k, k], [float(sigma), float(sigma)])

    last_ms = {}  # (library, kind, sigma) -> (pixels, ms) of the last measurement: the next one's prediction

    def measure(name, kind, sigma, pixels, run):
        key = (name, kind, sigma)
        if key in last_ms:
            predicted = last_ms[key][1] * pixels / last_ms[key][0]
            left = args.budget_seconds - (time.perf_counter() - started)
            if predicted / 1e3 > 0.5 and predicted / 1e3 > left - 5:  # room for the rest and the overheads
                raise TimeoutError(f"skipped: {predicted / 1e3:.1f} s predicted, {left:.0f} s left")
        result = median_ms(run, sync, event_pair, repeats)
        last_ms[key] = (pixels, result[0])
        return result

    def case(label, x_cupy, sigma, axes, channels_last):
        x_torch = torch.as_tensor(x_cupy, device="cuda")
        out = cupy.empty_like(x_cupy)
        g = lambda: gausslab.gaussian_filter(x_cupy, sigma, axes=axes, output=out)
        if channels_last:
            c = lambda: cundi.gaussian_filter(x_cupy, [sigma if a in axes else 0 for a in range(x_cupy.ndim)],
                                              mode="reflect")
        else:
            c = lambda: cundi.gaussian_filter(x_cupy, sigma, mode="reflect")
        t = lambda: torch_blur(x_torch, sigma, channels_last)
        g()
        choice = gausslab.last_choice()
        reference = c().astype(cupy.float32)
        diff_cupy = float(cupy.abs(out.astype(cupy.float32) - reference).max())
        row = {"case": label, "sigma": sigma, "method": choice["method"], "vs_cupy": diff_cupy}
        kind = ("batch" if x_cupy.ndim == 4 else "") + str(x_cupy.dtype) + str(x_cupy.shape[-1] if channels_last else 1)
        for name, run in (("gausslab", g), ("cupy", c), ("torchvision", t)):
            try:
                row[name] = measure(name, kind, sigma, x_cupy.size, run)
            except Exception as error:  # a library that cannot run the case (memory, kernel size, budget)
                row[name] = None
                row[name + "_error"] = str(error).splitlines()[0][:60]
        if x_cupy.ndim == 4:  # what the timed batch calls were: one graph launch, or why not
            why = gausslab.last_choice()["why"]
            row["method"] += " (1 graph launch)" if "one CUDA graph launch" in why else f" ({why.split('; ')[-1]})"
        rows.append(row)
        print(format_row(row), flush=True)

    print(header(), flush=True)
    rng = cupy.random.default_rng(1)
    for n in sizes:
        grey = rng.random((n, n), dtype=cupy.float32)
        rgba = rng.integers(0, 256, (n, n, 4), dtype=cupy.uint8)
        for sigma in sigmas:
            case(f"f32 grey {n}²", grey, sigma, (0, 1), False)
            case(f"rgba8 {n}²", rgba, sigma, (0, 1), True)
        del grey, rgba
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    batch = rng.integers(0, 256, (64, 512, 512, 4), dtype=cupy.uint8)
    for sigma in sigmas:
        case("64 × rgba8 512² (one call)", batch, sigma, (1, 2), True)
    # The same 64 images as 64 calls from Python: what a caller without batches pays.
    out = cupy.empty_like(batch)
    for sigma in sigmas:
        loop = lambda: [gausslab.gaussian_filter(batch[i], sigma, axes=(0, 1), output=out[i]) for i in range(64)]
        row = {"case": "64 × rgba8 512² (64 calls)", "sigma": sigma, "vs_cupy": 0.0, "cupy": None, "torchvision": None,
               "cupy_error": "the row above", "torchvision_error": "the row above"}
        row["gausslab"] = median_ms(loop, sync, event_pair, repeats)
        row["method"] = gausslab.last_choice()["method"]
        rows.append(row)
        print(format_row(row), flush=True)
    overhead = python_overhead_us()
    batch_host, batch_why = batch_call_host_us(batch, 2.0)
    text = "\n".join([header()] + [format_row(r) for r in rows]) + (
        f"\n\ngausslab's Python overhead per call: {overhead:.1f} µs (host time of gaussian_filter on a 16² "
        "CuPy array with output=, no synchronisation)\n"
        f"Host time of one batch call of 64 × rgba8 512² at sigma 2: {batch_host:.1f} µs, no synchronisation "
        f"({batch_why.split('; ')[-1]})\n"
        f"Whole run: {time.perf_counter() - started:.0f} s\n"
        f"{gausslab.build_report().splitlines()[-1]}\n"
        "Times: GPU ms (CUDA events on the current stream) / wall ms (Python call + synchronisation), "
        f"median of {repeats}; vs CuPy: the largest difference from CuPy's result in the type's units.\n")
    print(text.split("\n\n", 1)[1])
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


def header():
    return ("| case | σ | gausslab method | gausslab GPU / wall ms | CuPy GPU / wall ms | torchvision GPU / wall ms "
            "| vs CuPy |\n|---|---|---|---|---|---|---|")


def format_row(row):
    def cell(name):
        t = row.get(name)
        if t:
            return f"{t[0]:.3f} / {t[1]:.3f}"
        error = row.get(name + "_error", "")
        return error if error.startswith(("skipped", "the row above")) else "failed: " + error
    return (f"| {row['case']} | {row['sigma']} | {row['method']} | {cell('gausslab')} | {cell('cupy')} | "
            f"{cell('torchvision')} | {row['vs_cupy']:.3g} |")


if __name__ == "__main__":
    sys.exit(main())
