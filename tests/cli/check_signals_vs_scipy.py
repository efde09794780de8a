#!/usr/bin/python3
"""gausslab-filter on 1D .npy signals against scipy.ndimage.gaussian_filter1d.

Signals of awkward lengths (1, 2, 3, primes, past the tiles of the GPU kernels, 2^16 + 3), float32
and float64, random and smooth, are written with np.save, filtered by gausslab-filter (batch mode,
one run per method, sigma and border) with every method that filters 1D signals (marked [1D] by
--list-methods), and compared with gaussian_filter1d in float64 (same sigma, truncate or radius,
mode). Each output must be a .npy that np.load reads, of the input's dtype and length, within
1e-5 of max |reference| (the bound the methods promise: float32 filtering; float64 inputs are
filtered in float32, which adds their rounding to float32, about 6e-8). A method that cannot run
here (no CUDA device) is reported as skipped with the reason.

Exit status: 0 passed, 1 a comparison failed, 77 skipped (no NumPy/SciPy, or no method could run).

CTest runs it with the CPU methods; on the GPU machine, from the repository root:
  bash .gpu/run.sh python3 tests/cli/check_signals_vs_scipy.py --filter .gpu/bin/gausslab-filter --methods all
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from scipy import ndimage
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error}; install python3-numpy and python3-scipy (Debian) and run with /usr/bin/python3")
    sys.exit(77)

MODES = ["reflect", "mirror", "nearest", "constant", "wrap"]
# 2049 and 2047: one past and one short of tiled_1d's 2048-sample tile; 4099 a prime past two tiles.
LENGTHS = [1, 2, 3, 7, 64, 2047, 2049, 4099, 65539]
# (sigma, truncate, radius or None): radius 0, under-sampled, radii past short signals, a set radius.
FILTERS = [(0.1, 4.0, None), (0.7, 4.0, None), (3.0, 4.0, None), (20.0, 4.0, None), (2.5, 2.0, None), (4.0, 4.0, 40)]
TOLERANCE = 1e-5  # relative to max |reference|
TIMEOUT = 900


class Failure(Exception):
    pass


def run(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {TIMEOUT} s: {' '.join(command)}")
    if done.returncode != 0:
        raise Failure(f"exit status {done.returncode}: {' '.join(command)}\n{done.stderr.strip()}")
    return done


def signal_methods(tool, wanted):
    """id -> reason it cannot run here ('' when it can), for the [1D] methods."""
    methods = {}
    for line in run([tool, "--list-methods"]).stdout.splitlines():
        columns = line.split("\t")
        if len(columns) >= 3 and columns[2].endswith("[1D]"):
            status = columns[3] if len(columns) > 3 else ""
            methods[columns[0]] = status[len("unavailable: "):] if status.startswith("unavailable: ") else ""
    if wanted != "all":
        unknown = [m for m in wanted.split(",") if m not in methods]
        if unknown:
            raise Failure(f"not a method that filters 1D signals: {', '.join(unknown)} (those: {', '.join(methods)})")
        methods = {m: methods[m] for m in wanted.split(",")}
    return methods


def make_signals(folder):
    """name -> float64 samples as saved (float32 ones already rounded to float32)."""
    rng = np.random.default_rng(13)
    signals = {}
    for length in LENGTHS:
        for dtype in (np.float32, np.float64):
            kind = "random" if length % 2 else "smooth"
            x = np.arange(length)
            values = rng.standard_normal(length) * 3.0 + 1.0 if kind == "random" else np.sin(x * 0.01) * 100.0 + x * 1e-3
            values = values.astype(dtype)
            name = f"{kind}_{length}_{np.dtype(dtype).name}"
            np.save(os.path.join(folder, name + ".npy"), values)
            signals[name] = values
    return signals


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the gausslab-filter binary")
    parser.add_argument("--methods", default="cpu_separable,cpu_openmp", help="'all' or a comma-separated list")
    args = parser.parse_args()

    start = time.time()
    work = tempfile.mkdtemp(prefix="gausslab-signals-")
    worst = {}
    failures = []
    try:
        methods = signal_methods(args.filter, args.methods)
        runnable = [m for m, reason in methods.items() if not reason]
        for method, reason in methods.items():
            if reason:
                print(f"SKIP {method}: {reason}")
        if not runnable:
            print("skipped: none of the requested methods can run here")
            return 77
        inputs = os.path.join(work, "in")
        os.makedirs(inputs)
        signals = make_signals(inputs)
        paths = [os.path.join(inputs, name + ".npy") for name in signals]
        for method in runnable:
            worst[method] = 0.0
            for sigma, truncate, radius in FILTERS:
                for mode in MODES:
                    out_dir = os.path.join(work, "out", f"{method}_{sigma:g}_{truncate:g}_{radius}_{mode}")
                    os.makedirs(out_dir)
                    size = ["--radius", str(radius)] if radius is not None else ["--truncate", repr(truncate)]
                    run([args.filter, *paths, "--out-dir", out_dir, "--method", method, "--sigma", repr(sigma),
                         "--border", mode, *size, "--quiet"])
                    for name, values in signals.items():
                        where = f"{method} {name} sigma {sigma:g} truncate {truncate:g} radius {radius} {mode}"
                        result = np.load(os.path.join(out_dir, name + ".npy"))
                        if result.dtype != values.dtype or result.shape != values.shape:
                            failures.append(f"{where}: output {result.dtype} {result.shape}, input {values.dtype} {values.shape}")
                            continue
                        extra = {"radius": radius} if radius is not None else {}
                        reference = ndimage.gaussian_filter1d(values.astype(np.float64), sigma, mode=mode,
                                                              truncate=truncate, **extra)
                        peak = max(float(np.abs(reference).max()), 1e-30)
                        error = float(np.abs(result.astype(np.float64) - reference).max()) / peak
                        worst[method] = max(worst[method], error)
                        if not error <= TOLERANCE:
                            i = int(np.abs(result.astype(np.float64) - reference).argmax())
                            failures.append(f"{where}: relative error {error:.3g} at sample {i} "
                                            f"(gausslab {result[i]!r}, SciPy {reference[i]!r})")
    except Failure as error:
        print(f"FAIL: {error}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)

    cases = len(FILTERS) * len(MODES) * len(LENGTHS) * 2
    for method, error in worst.items():
        print(f"{method}: {cases} signals compared with gaussian_filter1d, largest relative error {error:.3g}")
    for line in failures[:30]:
        print(f"FAIL {line}")
    print(f"{'FAILED' if failures else 'passed'} in {time.time() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
