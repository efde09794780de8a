#!/usr/bin/python3
"""Bad parameters in every command-line program: NaN, infinite, negative or zero sigma, truncate
and radius, values just outside a range, absurd sizes, unknown names. Each must be refused with exit
status 2 and a message naming the flag and the value (printed with all its digits), never a crash,
a silent clamp or a run. And a radius larger than the image is no error: it is filtered as SciPy
filters it, in every border mode.

usage: check_cli_parameters.py --filter F --bench B [--viewer V] --data tests/data
Exit status 0 when every case behaves, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import check_kit

NUMBERS = ["nan", "NaN", "inf", "-inf", "1e999", "abc", "", "2,5", "0x10"]


class Checks(check_kit.Checks):
    def refused(self, program, args, words, name=None):
        self.count += 1
        name = name or " ".join(args)
        try:
            done = subprocess.run([program, *args], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            self.failures.append(f"{os.path.basename(program)} {name}: still running after 120 s (not refused)")
            print("FAIL", self.failures[-1])
            return
        problems = []
        if done.returncode < 0:
            problems.append(f"killed by signal {-done.returncode}")
        elif done.returncode != 2:
            problems.append(f"exit status {done.returncode}, expected 2")
        for word in words:
            if word not in done.stderr:
                problems.append(f"the message does not say {word!r}")
        for sign in ("terminate called", "Segmentation", "AddressSanitizer", "runtime error"):
            if sign in done.stderr:
                problems.append(f"stderr shows {sign!r}")
        line = (done.stderr.strip().splitlines() or ["(no message)"])[0]
        if problems:
            self.failures.append(f"{os.path.basename(program)} {name}: {'; '.join(problems)}\n      stderr: {line}")
            print("FAIL", self.failures[-1])
        else:
            print(f"ok  {os.path.basename(program)} {name}: {line}")


def check_filter(c, tool, image, out):
    base = [image, "-o", out, "--method", "cpu_separable"]
    for value in NUMBERS:
        c.refused(tool, base + ["--sigma", value], ["--sigma"], f"--sigma {value!r}")
        c.refused(tool, base + ["--sigma", "2", "--truncate", value], ["--truncate"], f"--truncate {value!r}")
        c.refused(tool, base + ["--sigma", "2", "--radius", value], ["--radius"], f"--radius {value!r}")
    for sigma in ("0", "-0", "-1", "0.0999", "200.0001", "1e-300", "1e300"):
        c.refused(tool, base + ["--sigma", sigma], ["sigma", "[0.1, 200]"])
    c.refused(tool, base + ["--sigma", "200.0001"], ["200.0001"], "--sigma 200.0001 is printed with its digits")
    for truncate in ("0", "-2", "0.4999", "10.0001"):
        c.refused(tool, base + ["--sigma", "2", "--truncate", truncate], ["truncate"])
    for radius in ("-1", "-0.5", "2001", "99999999999", "1e3", "3.0"):
        c.refused(tool, base + ["--sigma", "2", "--radius", radius], ["--radius"])
    c.refused(tool, base + ["--sigma", "2", "--border", "zero"], ["zero", "reflect"])
    c.refused(tool, base + ["--sigma", "2", "--method", "gaussian9000"], ["gaussian9000"])
    c.refused(tool, [image, "--out-dir", out + ".d", "--sigma", "2", "--format", "webp"], ["webp", "png"])
    c.refused(tool, ["--list-methods", "--size", "0x10", "--sigma", "2"], ["--size"])
    c.refused(tool, ["--list-methods", "--size", "100000x100000", "--sigma", "2"], ["--size"])
    c.refused(tool, ["--list-methods", "--size", "-5x5", "--sigma", "2"], ["--size"])
    c.refused(tool, ["--list-methods", "--size", "axb", "--sigma", "2"], ["--size"])
    c.check("filter: nothing was written by refused commands", not os.path.exists(out), f"{out} exists")


def check_bench(c, tool, out):
    for value in (n for n in NUMBERS if n != "2,5"):  # a list of two sigmas for --sigmas
        c.refused(tool, ["--sigmas", value, "--out", out], ["--sigmas"], f"--sigmas {value!r}")
        c.refused(tool, ["--truncate", value, "--out", out], ["--truncate"], f"--truncate {value!r}")
    for sigma in ("0", "-1", "200.0001"):
        c.refused(tool, ["--sigmas", sigma, "--out", out], ["--sigmas", sigma])
    for flag, value in (("--sizes", "0"), ("--sizes", "-4"), ("--sizes", "100000"), ("--sizes", "1,,2"),
                        ("--kernels", "4"), ("--kernels", "1"), ("--kernels", "0"), ("--truncate", "0"),
                        ("--sweep-size", "0"), ("--budget-seconds", "0"), ("--gpu-cap-ms", "-1"),
                        ("--cpu-cap-seconds", "nan"), ("--formats", "rgb"), ("--border", "zero"),
                        ("--methods", "gaussian9000"), ("--sweep-sigmas", "0")):
        c.refused(tool, [flag, value, "--out", out], [flag])
    # --make-image's path as the writer would refuse it: a usage error (it exited 1), before any noise is made.
    for path, words in ((out + ".xyz", ["unknown output type '.xyz'", ".png"]), (out, ["unknown output type ''"]),
                        (os.path.join(out, "missing", "x.png"), ["does not exist"])):
        c.refused(tool, ["--make-image", "16x16", path], ["--make-image", *words])
    c.check("bench: nothing was written by refused commands", not os.path.exists(out) and
            not os.path.exists(out + ".xyz"), f"{out} exists")


def check_viewer(c, tool):
    run = ["--offscreen", "--frames", "1"]
    for value in NUMBERS:
        c.refused(tool, ["--sigma", value, *run], ["--sigma"], f"--sigma {value!r}")
        c.refused(tool, ["--truncate", value, *run], ["--truncate"], f"--truncate {value!r}")
    for flag, value in (("--sigma", "0"), ("--sigma", "-3"), ("--sigma", "200.0001"), ("--truncate", "0"),
                        ("--size", "0x10"), ("--size", "100000x100000"), ("--size", "10x"), ("--window", "0x0"),
                        ("--frames", "0"), ("--frames", "-1"), ("--display", "nope"), ("--path", "gpu"),
                        ("--border", "zero"), ("--method", "gaussian9000")):
        c.refused(tool, [flag, value, *run], [flag])
    c.refused(tool, ["--sigma", "200.0001", *run], ["200.0001"], "--sigma 200.0001 is printed with its digits")
    # A flag with a value given twice is refused with both values named, never the last one taken.
    for flag, first, second in (("--method", "cpu_openmp", "cpu_separable"), ("--compare", "exact", "original"),
                                ("--sigma", "2", "3"), ("--truncate", "3", "4"), ("--border", "wrap", "mirror"),
                                ("--display", "a", "b"), ("--size", "64x64", "32x32"), ("--window", "200x150", "300x200"),
                                ("--path", "cpu", "staging"), ("--keys", "+", "-"), ("--save-folder", "x", "y")):
        c.refused(tool, [flag, first, *run, f"{flag}={second}"], [f"{flag} is given twice", f"'{first}' and '{second}'"],
                  f"{flag} twice")
    c.refused(tool, ["--offscreen", "--frames", "1", "--frames", "2"], ["--frames is given twice", "'1' and '2'"])
    # A --keys character that stands for no key: named, with the keys that --keys takes (it was ignored).
    c.refused(tool, ["--keys", "m%", *run], ["--keys: '%' (character 2 of 'm%')", "stands for no key", "takes these"])


def check_radius_beyond_image(c, tool, work):
    """A 5×3 picture filtered with radius 40 in every border mode: SciPy's result."""
    try:
        import numpy as np
        from PIL import Image
        from scipy import ndimage
    except ImportError as missing:
        print(f"skip radius beyond the image: {missing}")
        return
    rng = np.random.default_rng(7)
    grey = rng.integers(0, 256, size=(3, 5)).astype(np.uint8)
    src = os.path.join(work, "tiny.png")
    Image.fromarray(grey, "L").save(src)
    for border in ("reflect", "mirror", "nearest", "constant", "wrap"):
        out = os.path.join(work, f"tiny-{border}.png")
        done = subprocess.run([tool, src, "-o", out, "--method", "cpu_separable", "--sigma", "10", "--border", border],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            c.check(f"radius 40 on 5×3, {border}", False, done.stderr.strip())
            continue
        ours = np.array(Image.open(out)).astype(np.float64)
        want = ndimage.gaussian_filter(grey.astype(np.float64), 10, mode=border, truncate=4.0)
        diff = float(np.abs(ours - np.clip(np.floor(want + 0.5), 0, 255)).max())
        c.check(f"radius 40 on a 5×3 image, {border}: SciPy's result (max difference {diff:.0f} level)", diff <= 1,
                f"max difference {diff}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--viewer")
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gausslab-parameters-") as work:
        check_filter(c, args.filter, os.path.join(args.data, "camera.png"), os.path.join(work, "out.png"))
        check_bench(c, args.bench, os.path.join(work, "bench"))
        if args.viewer and os.path.exists(args.viewer):
            check_viewer(c, args.viewer)
        check_radius_beyond_image(c, args.filter, work)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
