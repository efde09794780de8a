#!/usr/bin/env python3
"""gausslab.gaussian_filter against cupyx.scipy.ndimage.gaussian_filter and torchvision's
gaussian_blur on the same device arrays (run where CuPy and PyTorch are: the H200).

Rows: float32 1 channel and uint8 RGBA at 1024² to 8192², sigma 2, 8 and 32, and a batch of 64 RGBA8
images of 512² in one call. Each library's time is the median of CUDA-event-timed calls on one
stream (GPU time), and the wall time of the same calls from Python with a synchronisation after
each (what a caller waits); the Python overhead is the host time of one call of gausslab on a 16²
image (no GPU work worth timing), the cost of the argument handling and the launch. Every result is
checked against the others (max difference, in the type's units) before it is timed.

    PYTHONPATH=build/python python3 bench/python/bench_gaussian.py --out results.md [--quick]
"""
import argparse
import statistics
import sys
import time

import numpy as np

import gausslab


def median_ms(run, synchronize, event_pair, repeats):
    """Median GPU time (CUDA events) and wall time (synchronised) of `run`, in ms; a run whose warm-up
    took over a second is timed by that warm-up alone (torchvision's 2D kernels at sigma 32)."""
    t0 = time.perf_counter()
    run()
    synchronize()
    warm_ms = (time.perf_counter() - t0) * 1e3
    if warm_ms > 1000:
        return warm_ms, warm_ms
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="Markdown table to write (also printed)")
    parser.add_argument("--quick", action="store_true", help="1024² and 2048² only, fewer repeats")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

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
        for name, run in (("gausslab", g), ("cupy", c), ("torchvision", t)):
            try:
                row[name] = median_ms(run, sync, event_pair, repeats)
            except Exception as error:  # a library that cannot run the case (memory, kernel size)
                row[name] = None
                row[name + "_error"] = str(error).splitlines()[0][:60]
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
    overhead = python_overhead_us()
    text = "\n".join([header()] + [format_row(r) for r in rows]) + (
        f"\n\ngausslab's Python overhead per call: {overhead:.1f} µs (host time of gaussian_filter on a 16² "
        "CuPy array with output=, no synchronisation)\n"
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
        return f"{t[0]:.3f} / {t[1]:.3f}" if t else "failed: " + row.get(name + "_error", "")
    return (f"| {row['case']} | {row['sigma']} | {row['method']} | {cell('gausslab')} | {cell('cupy')} | "
            f"{cell('torchvision')} | {row['vs_cupy']:.3g} |")


if __name__ == "__main__":
    sys.exit(main())
