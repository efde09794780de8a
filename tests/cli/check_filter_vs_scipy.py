#!/usr/bin/python3
"""gausslab-filter against SciPy's ndimage.gaussian_filter on real images.

Every readable image in --images (plus a grey+alpha and an RGBA image made from them) is filtered
by gausslab-filter (batch mode) with each method, for several sigmas and all five border modes, and
compared with gaussian_filter computed in float64 (sigma on both spatial axes, 0 on the channel
axis, the same truncate and mode) and then rounded as gausslab rounds (clamp, round half up):
- CPU methods must be within 1 level on every channel of every pixel;
- GPU methods within their stated accuracy: `gausslab-filter --list-methods --size WxH ...` prints
  the bound B (levels against the unrounded reference), so rounded results may differ by
  floor(B + 0.5); a method that refuses a problem (e.g. a radius beyond its limit) is listed as
  refused, one that cannot run here (no CUDA device) as skipped, with the reason.
The output must keep the input's channel count (grey stays grey, grey+alpha stays two channels).
The images gausslab compares against are its own decoding (a radius-0 pass, which is exact), so
JPEG decoders cannot differ.

Exit status: 0 passed, 1 a comparison failed, 77 skipped (no NumPy/SciPy, or no method could run).

On this machine (CTest): /usr/bin/python3 tests/cli/check_filter_vs_scipy.py --filter build/filter/gausslab-filter
On the GPU machine, from the repository root, after scripts/gpu-check.sh --prepare has put the binary in
.gpu/bin (run.sh sets the library path; python3 there has SciPy and is not /usr/bin/python3):
  bash .gpu/run.sh python3 tests/cli/check_filter_vs_scipy.py --filter .gpu/bin/gausslab-filter \
      --images tests/data --methods all --out $OUT/filter-vs-scipy
--out receives report.txt and, for failures only, the output and a difference image (small).
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    from scipy import ndimage
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error}; install python3-numpy and python3-scipy (Debian) and run with /usr/bin/python3")
    sys.exit(77)

import png_io  # noqa: E402 (needs the path above)

MODES = ["reflect", "mirror", "nearest", "constant", "wrap"]
DEFAULT_SIGMAS = "0.7,2,5"
CPU_TOLERANCE = 1  # levels
IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp"}
# Test files that are broken on purpose (the bad-input test uses them); not real images.
KNOWN_BAD = {"truncated.jpg"}
COMMAND_TIMEOUT = 900


class Failure(Exception):
    pass


class FilterTool:
    def __init__(self, path):
        self.path = path

    def run(self, args, expect_success=True):
        command = [self.path, *args]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failure(f"timed out after {COMMAND_TIMEOUT} s: {' '.join(command)}")
        if done.returncode < 0:
            raise Failure(f"killed by signal {-done.returncode}: {' '.join(command)}\n{done.stderr}")
        if expect_success and done.returncode != 0:
            raise Failure(f"exit status {done.returncode}: {' '.join(command)}\n{done.stderr.strip()}")
        return done

    def list_methods(self, size=None, sigma=None, border=None):
        """id -> (backend, label, fourth column or '')."""
        args = ["--list-methods"]
        if size is not None:
            args += ["--size", f"{size[0]}x{size[1]}", "--sigma", repr(sigma), "--border", border]
        methods = {}
        for line in self.run(args).stdout.splitlines():
            columns = line.split("\t")
            if len(columns) < 3:
                raise Failure(f"--list-methods printed an unexpected line: {line!r}")
            methods[columns[0]] = (columns[1], columns[2], columns[3] if len(columns) > 3 else "")
        return methods


class Input:
    def __init__(self, name, path, channels):
        self.name = name          # file name, unique
        self.path = path
        self.channels = channels  # as stb reports them for the original file
        self.pixels = None        # (H, W, C) uint8 as gausslab decoded them

    @property
    def stem(self):
        return os.path.splitext(self.name)[0]

    @property
    def size(self):
        return self.pixels.shape[1], self.pixels.shape[0]


def gather_inputs(tool, images_dir, work):
    inputs = []
    for name in sorted(os.listdir(images_dir)):
        if name in KNOWN_BAD or os.path.splitext(name)[1].lower() not in IMAGE_EXTENSIONS:
            continue
        path = os.path.join(images_dir, name)
        inputs.append(Input(name, path, png_io.file_channels(path)))
    if not inputs:
        raise Failure(f"no test images in {images_dir}")

    # Grey+alpha and RGBA inputs, made from real pictures with an alpha ramp, so that every channel
    # count goes through the filter.
    made = os.path.join(work, "inputs")
    os.makedirs(made)
    for channels, base_channels, suffix in ((2, 1, "grey_alpha"), (4, 3, "rgba")):
        base = next((i for i in inputs if i.channels == base_channels and i.name.lower().endswith(".png")), None)
        if base is None:
            raise Failure(f"no {base_channels}-channel PNG in the images to make a {suffix} input from")
        pixels = png_io.read_png(base.path)
        height, width = pixels.shape[:2]
        ramp = (np.add.outer(np.arange(height), np.arange(width)) * 255 // max(height + width - 2, 1)).astype(np.uint8)
        path = os.path.join(made, f"{base.stem}_{suffix}.png")
        png_io.write_png(path, np.concatenate([pixels, ramp[:, :, None]], axis=2))
        inputs.append(Input(os.path.basename(path), path, channels))

    # What gausslab decoded: a radius-0 pass is the identity (one weight of exactly 1).
    decoded = os.path.join(work, "decoded")
    os.makedirs(decoded)
    tool.run([i.path for i in inputs] + ["--out-dir", decoded, "--method", "cpu_separable", "--sigma", "1",
                                         "--radius", "0", "--quiet"])
    for item in inputs:
        item.pixels = png_io.read_png(os.path.join(decoded, item.stem + ".png"))
        if item.pixels.shape[2] != item.channels:
            raise Failure(f"{item.name}: the file has {item.channels} channel(s) but gausslab-filter wrote "
                          f"{item.pixels.shape[2]}")
    return inputs


def scipy_rounded(pixels, sigma, mode, truncate):
    result = ndimage.gaussian_filter(pixels.astype(np.float64), sigma=(sigma, sigma, 0), mode=mode,
                                     truncate=truncate)
    return np.clip(np.floor(result + 0.5), 0, 255).astype(np.int64)


def parse_bound(status):
    """'bound: 0.51 levels' -> tolerance in levels between rounded images; None when refused."""
    if status.startswith("refuses:"):
        return None
    if not status.startswith("bound:"):
        raise Failure(f"--list-methods gave no bound for the problem: {status!r}")
    bound = float(status.split()[1])
    return math.floor(bound + 0.5)


class Tally:
    def __init__(self):
        self.compared = 0
        self.worst = 0
        self.refused = []
        self.failures = []


def resolve_methods(requested, listed):
    if requested in ("all", "cpu", "gpu"):
        ids = [m for m, (backend, _, _) in listed.items()
               if requested == "all" or (backend == "cpu") == (requested == "cpu")]
    else:
        ids = [m.strip() for m in requested.split(",") if m.strip()]
        unknown = [m for m in ids if m not in listed]
        if unknown:
            raise Failure(f"unknown method(s) {', '.join(unknown)}; gausslab-filter lists: {', '.join(listed)}")
    return ids


class Report:
    """Prints each line and, with --out, also writes it to OUT/report.txt; keeps failure evidence."""
    MAX_EVIDENCE = 20

    def __init__(self, out):
        self.out = out
        self.evidence = 0
        self.file = open(os.path.join(out, "report.txt"), "w", encoding="utf-8") if out else None

    def line(self, text):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()

    def keep_evidence(self, where, output_path, difference):
        if not self.out or self.evidence >= self.MAX_EVIDENCE:
            return
        self.evidence += 1
        stem = f"failure{self.evidence:02d}"
        shutil.copyfile(output_path, os.path.join(self.out, stem + "_gausslab.png"))
        scaled = np.clip(difference * 32, 0, 255).astype(np.uint8)
        png_io.write_png(os.path.join(self.out, stem + "_difference_x32.png"), scaled)
        self.line(f"    evidence for {where}: {stem}_gausslab.png, {stem}_difference_x32.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the gausslab-filter executable")
    parser.add_argument("--images", default=os.path.join(HERE, "..", "data"), help="folder of test images")
    parser.add_argument("--methods", default="all", help="all, cpu, gpu, or a comma-separated list of ids")
    parser.add_argument("--sigmas", default=DEFAULT_SIGMAS, help=f"comma-separated (default {DEFAULT_SIGMAS})")
    parser.add_argument("--borders", default=",".join(MODES), help="comma-separated border modes (default all five)")
    parser.add_argument("--truncate", type=float, default=4.0)
    parser.add_argument("--out", help="a new or empty folder for report.txt and, for each failing comparison (at "
                                      "most 20), gausslab's output and a difference image; the bulk of the outputs "
                                      "stays in a temporary folder")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with every output")
    args = parser.parse_args()

    sigmas = [float(s) for s in args.sigmas.split(",")]
    borders = [b.strip() for b in args.borders.split(",")]
    if any(b not in MODES for b in borders):
        parser.error(f"--borders: use some of {', '.join(MODES)}")
    if args.out:
        if os.path.exists(args.out) and os.listdir(args.out):
            parser.error(f"--out {args.out} is not empty; give a new folder")
        os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gausslab-filter-vs-scipy-")
    report = Report(args.out)

    start = time.time()
    tool = FilterTool(args.filter)
    try:
        listed = tool.list_methods()
        methods = resolve_methods(args.methods, listed)
        runnable = []
        for method in methods:
            backend, _, status = listed[method]
            if status.startswith("unavailable:"):
                report.line(f"SKIP {method} ({backend}): {status}")
            else:
                runnable.append(method)
        if not runnable:
            report.line("skipped: none of the requested methods can run here")
            return 77

        inputs = gather_inputs(tool, args.images, work)
        report.line(f"{len(inputs)} images: " + ", ".join(f"{i.name} ({i.size[0]}×{i.size[1]}, {i.channels} ch)" for i in inputs))
        tallies = {m: Tally() for m in runnable}
        bounds = {}  # (method, size, sigma, border) -> tolerance or None (refused)

        for sigma in sigmas:
            for border in borders:
                references = {i.name: scipy_rounded(i.pixels, sigma, border, args.truncate) for i in inputs}
                for method in runnable:
                    tally = tallies[method]
                    tolerance = {}
                    for item in inputs:
                        if listed[method][0] == "cpu":
                            tolerance[item.name] = CPU_TOLERANCE
                            continue
                        key = (item.size, sigma, border)
                        if key not in bounds:
                            bounds[key] = tool.list_methods(item.size, sigma, border)
                        tolerance[item.name] = parse_bound(bounds[key][method][2])
                        if tolerance[item.name] is None:
                            tally.refused.append(f"{item.name} sigma {sigma:g} {border}: {bounds[key][method][2]}")
                    batch = [i for i in inputs if tolerance[i.name] is not None]
                    if not batch:
                        continue
                    out_dir = os.path.join(work, "out", method, f"sigma{sigma:g}", border)
                    os.makedirs(out_dir)
                    tool.run([i.path for i in batch] + ["--out-dir", out_dir, "--method", method, "--sigma", repr(sigma),
                                                        "--border", border, "--truncate", repr(args.truncate), "--quiet"])
                    for item in batch:
                        where = f"{method} {item.name} sigma {sigma:g} {border}"
                        result = png_io.read_png(os.path.join(out_dir, item.stem + ".png")).astype(np.int64)
                        reference = references[item.name]
                        tally.compared += 1
                        if result.shape != reference.shape:
                            tally.failures.append(f"{where}: output shape {result.shape}, input {reference.shape}")
                            continue
                        difference = np.abs(result - reference)
                        worst = int(difference.max())
                        tally.worst = max(tally.worst, worst)
                        if worst > tolerance[item.name]:
                            y, x, c = np.unravel_index(int(difference.argmax()), difference.shape)
                            count = int((difference > tolerance[item.name]).sum())
                            report.keep_evidence(where, os.path.join(out_dir, item.stem + ".png"), difference)
                            tally.failures.append(
                                f"{where}: {count} values differ by more than {tolerance[item.name]} level(s); worst "
                                f"{worst} at x={x} y={y} channel {c} (gausslab {result[y, x, c]}, SciPy {reference[y, x, c]})")
    except Failure as error:
        report.line(f"FAIL: {error}")
        return 1
    finally:
        if args.keep:
            report.line(f"every output is kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    failed = False
    for method, tally in tallies.items():
        state = "FAIL" if tally.failures else "ok"
        report.line(f"{state} {method}: {tally.compared} images compared with SciPy, largest difference {tally.worst} "
              f"level(s), {len(tally.failures)} failure(s), {len(tally.refused)} refused")
        for line in tally.failures[:20]:
            report.line(f"    {line}")
        for line in tally.refused[:5]:
            report.line(f"    refused: {line}")
        if len(tally.refused) > 5:
            report.line(f"    ... and {len(tally.refused) - 5} more refusals")
        failed = failed or bool(tally.failures)
        if tally.compared == 0 and not tally.refused:
            report.line(f"FAIL {method}: nothing was compared")
            failed = True
    report.line(f"{'FAILED' if failed else 'passed'} in {time.time() - start:.1f} s"
                + (f"; report in {args.out}" if args.out else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
