#!/usr/bin/python3
"""The viewer's sequence mode, offscreen on the CPU path (Mesa's EGL here, the GPU machine's
stage runs the same on the H100): a synthetic sky and a folder of 16-bit PNG frames play for a few
frames; the summary line, the whitened screenshot (centred on mid grey) and the view screenshot
(the overlay's path badge, the shift plot's lines) are checked; bad arguments and inputs end with
exit status 2 and a message that names them.

usage: check_viewer_sequence.py --viewer PATH/gausslab --sequence PATH/gausslab-sequence
Exit status 0 when every case behaves, 1 otherwise. Needs NumPy.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sequence_checks import Checks  # noqa: E402

CPU_BADGE = (45, 108, 223)   # app/panels/path_badge.hpp
DX_COLOUR = (89, 191, 255)   # app/panels/sequence_panels.cpp: kDxColour (0.35, 0.75, 1.0)


def read_png(path):
    """8-bit grey, RGB or RGBA PNG (not interlaced) as an H x W x C uint8 array."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0 and colour in (0, 2, 6), f"{path}: unsupported PNG"
    channels = {0: 1, 2: 3, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        row = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            a = row[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 0:
                p = 0
            elif kind == 1:
                p = a
            elif kind == 2:
                p = b
            elif kind == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            row[x] = (line[x] + p) & 0xFF
        out[y] = row
        previous = row
    return out.reshape(height, width, channels)


def count_colour(image, colour, tolerance=8):
    diff = np.abs(image[:, :, :3].astype(int) - np.array(colour)[None, None, :])
    return int(np.sum(np.all(diff <= tolerance, axis=2)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--sequence", required=True)
    args = parser.parse_args()
    c = Checks()
    work = tempfile.mkdtemp(prefix="gausslab-viewer-sequence-")
    try:
        base = ["--offscreen", "--path", "cpu", "--window", "960x640"]  # room for the overlay, panel and plot
        # The synthetic sky for a few frames.
        view, whitened = os.path.join(work, "view.png"), os.path.join(work, "whitened.png")
        run = subprocess.run([args.viewer, "--sequence", "synthetic", "--size", "96x64", "--history", "4",
                              "--frames", "12", "--screenshot", whitened, "--screenshot-view", view, *base],
                             capture_output=True, text=True, timeout=300)
        out = run.stdout + run.stderr
        c.check("the synthetic sky plays offscreen", run.returncode == 0, out[-800:])
        c.check("the summary line names the sequence mode and the frames pushed",
                "mode=sequence" in run.stdout and "pushed=13" in run.stdout and "whitening=" in run.stdout,
                run.stdout[-500:])
        if os.path.exists(whitened):
            b = read_png(whitened)
            c.check(f"the whitened screenshot is the frame's size {b.shape[1]}x{b.shape[0]}", b.shape[:2] == (64, 96))
            mean = float(b[:, :, 0].mean())
            c.check(f"the whitened frame is centred on mid grey (mean level {mean:.1f})", abs(mean - 127.5) < 8,
                    "a whitened frame must average about zero")
            c.check("the whitened frame is not flat", float(b[:, :, 0].std()) > 3)
        else:
            c.check("the whitened screenshot was written", False)
        if os.path.exists(view):
            v = read_png(view)
            c.check("the view shows the overlay's cpu badge", count_colour(v, CPU_BADGE, 2) >= 16 * 16)
            c.check("the view shows the shift plot's dx line", count_colour(v, DX_COLOUR, 12) >= 20)
        else:
            c.check("the view screenshot was written", False)

        # A folder of 16-bit PNG frames.
        sky = os.path.join(work, "sky")
        made = subprocess.run([args.sequence, "--synthetic", "--size", "80x60", "--frames", "8", "--history", "3",
                               "--save-frames", "--backend", "cpu", "--quiet", "--out-dir", sky],
                              capture_output=True, text=True, timeout=300)
        if c.check("gausslab-sequence saved frames", made.returncode == 0, made.stderr[-400:]):
            run = subprocess.run([args.viewer, "--sequence", os.path.join(sky, "frames"), "--history", "3",
                                  "--frames", "10", *base], capture_output=True, text=True, timeout=300)
            c.check("a folder of frames plays (and loops)", run.returncode == 0 and "size=80x60" in run.stdout
                    and "pushed=11" in run.stdout, (run.stdout + run.stderr)[-600:])
            # A history longer than the 8 frames: warned about as gausslab-sequence does (issue 39).
            run = subprocess.run([args.viewer, "--sequence", os.path.join(sky, "frames"), "--history", "20",
                                  "--frames", "3", *base], capture_output=True, text=True, timeout=300)
            c.check("a history of 20 over 8 frames is warned about", run.returncode == 0
                    and "warning: the sequence has 8 frame(s) and the history 20" in run.stderr
                    and "a history of 7 or fewer" in run.stderr, (run.stdout + run.stderr)[-600:])

        # Refusals: exit status 2 with the problem named.
        frames = os.path.join(sky, "frames")
        for name, extra, words in [
            ("a missing input", ["--sequence", os.path.join(work, "missing")], ["does not exist"]),
            ("--compare in the sequence mode", ["--sequence", "synthetic", "--compare", "cpu_openmp"], ["--compare"]),
            ("--history without --sequence", ["--history", "5"], ["--sequence"]),
            ("a picture and a sequence", [frames, "--sequence", "synthetic"], ["--sequence"]),
            ("--size for a folder", ["--sequence", frames, "--size", "64x64"], ["--size"]),
            ("a synthetic sky too small", ["--sequence", "synthetic", "--size", "8x8"], ["16..16384"]),
            ("an unknown pre-filter", ["--sequence", "synthetic", "--method", "nope"], ["unknown pre-filter"]),
            ("a bad gamma", ["--sequence", "synthetic", "--gamma", "0"], ["--gamma"]),
        ]:
            run = subprocess.run([args.viewer, *extra, "--offscreen", "--frames", "2", "--path", "cpu"],
                                 capture_output=True, text=True, timeout=120)
            said = run.stderr.strip().splitlines()[0] if run.stderr.strip() else "(nothing)"
            c.check(f"{name}: exit 2 ({said})", run.returncode == 2 and all(w in run.stderr for w in words),
                    f"exit {run.returncode}, stderr {run.stderr[-300:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c.summary("viewer sequence")


if __name__ == "__main__":
    sys.exit(main())
