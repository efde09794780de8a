#!/usr/bin/python3
"""gausslab-sequence end to end (CPU backend): the synthetic sky with its truth files, the same
frames as a folder of 16-bit PNGs and as a video, every bad input the issues name, and the frames
that do not belong (a flat frame, all flat frames, a garbage frame, a scene cut; --strict). Each
bad case must give a clear message naming the problem, the documented exit status, no crash, and
no partial or replaced file.

usage: check_sequence_cli.py --sequence PATH/gausslab-sequence [--video-writer PATH/gausslab_write_test_video]
Exit status 0 when every case behaves, 1 otherwise. Needs NumPy.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sequence_checks import Checks  # noqa: E402

SIZE = (96, 72)
FRAMES = 16
HISTORY = 6


def read_csv(path):
    return np.genfromtxt(path, delimiter=",", names=True)


def read_csv_text(path):
    import csv
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def rstd(a):
    return 1.4826 * np.median(np.abs(a - np.median(a)))


def digest(folder):
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(folder)):
        for f in sorted(files):
            with open(os.path.join(root, f), "rb") as fh:
                h.update(f.encode() + fh.read())
    return h.hexdigest()


def no_temporaries(folder):
    return not any(".tmp-" in f for _, _, files in os.walk(folder) for f in files)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sequence", required=True)
    parser.add_argument("--video-writer")
    args = parser.parse_args()
    c = Checks(args.sequence)
    work = tempfile.mkdtemp(prefix="gausslab-sequence-cli-")
    try:
        common = ["--backend", "cpu", "--history", str(HISTORY)]
        size = f"{SIZE[0]}x{SIZE[1]}"

        # The synthetic sky, its truth, and the frames saved as 16-bit PNGs.
        syn = os.path.join(work, "syn")
        c.expect("synthetic run", ["--synthetic", "--size", size, "--frames", str(FRAMES), "--save-frames",
                                   "--previews", "--preview-every", "5", "--out-dir", syn, *common], 0)
        est, true = read_csv(os.path.join(syn, "shifts.csv")), read_csv(os.path.join(syn, "true_shifts.csv"))
        c.check("shifts.csv has the header frame,dx,dy and one row per frame",
                open(os.path.join(syn, "shifts.csv")).readline().strip() == "frame,dx,dy" and len(est) == FRAMES)
        rms = np.sqrt(np.mean((est["dx"] - true["dx"]) ** 2 + (est["dy"] - true["dy"]) ** 2))
        c.check(f"shifts match the truth (RMS {rms:.4f} px)", rms <= 0.05)
        w = np.load(os.path.join(syn, "whitened.npy"))
        c.check(f"whitened.npy is float32 frames x height x width {w.shape}",
                w.dtype == np.float32 and w.shape == (FRAMES, SIZE[1], SIZE[0]))
        c.check("frames before the history is full are zero", not np.any(w[:HISTORY]))
        c.check("frames after it are whitened", all(np.any(w[t]) for t in range(HISTORY, FRAMES)))
        deviation = float(np.median([rstd(w[t]) for t in range(HISTORY, FRAMES)]))
        c.check(f"whitened.npy is in fractions of full scale (robust deviation {deviation:.2e}, the sky's noise 1e-3)",
                0.0008 < deviation < 0.0015)
        frames_csv = read_csv_text(os.path.join(syn, "frames.csv"))
        c.check("frames.csv has a row per frame, the first the reference, the others used",
                len(frames_csv) == FRAMES and frames_csv[0]["verdict"] == "reference" and
                all(r["verdict"] == "used" and r["segment"] == "1" for r in frames_csv[1:]))
        track = read_csv(os.path.join(syn, "target_track.csv"))
        c.check("target_track.csv has a row per frame", len(track) == FRAMES and "inside" in track.dtype.names)
        frames = sorted(os.listdir(os.path.join(syn, "frames")))
        c.check("--save-frames wrote every frame", len(frames) == FRAMES)
        previews = sorted(os.listdir(os.path.join(syn, "previews")))
        c.check(f"--preview-every 5 wrote frame and whitened previews {previews}",
                "frame_00005.png" in previews and "whitened_00010.png" in previews and "frame_00001.png" not in previews)
        c.check("no temporary file is left", no_temporaries(syn))

        # The same frames from a folder of 16-bit PNGs give the same shifts.
        folder = os.path.join(syn, "frames")
        out = os.path.join(work, "folder")
        c.expect("folder of 16-bit PNG frames", [folder, "--out-dir", out, *common], 0)
        again = read_csv(os.path.join(out, "shifts.csv"))
        diff = max(np.max(np.abs(again["dx"] - est["dx"])), np.max(np.abs(again["dy"] - est["dy"])))
        c.check(f"folder shifts equal the synthetic run's (max difference {diff:.2e} px)", diff < 2e-3)

        # Nothing is replaced without --overwrite; with it, the outputs are replaced.
        before = digest(out)
        c.expect("existing outputs are never replaced", [folder, "--out-dir", out, *common], 2,
                 words=["already exists", "--overwrite"])
        c.check("the refused run changed nothing", digest(out) == before and no_temporaries(out))
        c.expect("--overwrite replaces the outputs", [folder, "--out-dir", out, "--overwrite", *common], 0)

        # An unreadable frame: named, skipped (nan, zero frame), the run goes on, exit 1.
        bad = os.path.join(work, "bad_frame")
        shutil.copytree(folder, bad)
        with open(os.path.join(bad, frames[9]), "wb") as fh:
            fh.write(b"\x89PNG\r\n\x1a\n not really")
        out = os.path.join(work, "bad_frame_out")
        c.expect("an unreadable frame is named and skipped", [bad, "--out-dir", out, *common], 1,
                 words=[frames[9], "cannot be read", "not a valid PNG", "skipped"])
        s = read_csv(os.path.join(out, "shifts.csv"))
        w = np.load(os.path.join(out, "whitened.npy"))
        c.check("its shift is nan and the others are estimated",
                np.isnan(s["dx"][9]) and not np.any(np.isnan(s["dx"][:9])) and not np.any(np.isnan(s["dx"][10:])))
        c.check("its whitened frame is zero, the later ones whitened", not np.any(w[9]) and np.any(w[FRAMES - 1]))

        # A frame of another size.
        odd = os.path.join(work, "odd_size")
        shutil.copytree(folder, odd)
        np_frame = np.zeros((SIZE[1] + 4, SIZE[0]), dtype=np.uint8)
        write_png8(os.path.join(odd, frames[4]), np_frame)
        out = os.path.join(work, "odd_size_out")
        c.expect("a frame of another size is named and skipped", [odd, "--out-dir", out, *common], 1,
                 words=[frames[4], f"{SIZE[0]}x{SIZE[1] + 4}", "skipped"])
        c.check("its shift is nan", np.isnan(read_csv(os.path.join(out, "shifts.csv"))["dx"][4]))

        # Fewer frames than the history: shifts only, whitened.npy not written, exit 1.
        few = os.path.join(work, "few")
        os.makedirs(few)
        for f in frames[:4]:
            shutil.copy(os.path.join(folder, f), few)
        out = os.path.join(work, "few_out")
        c.expect("fewer frames than the history", [few, "--out-dir", out, *common], 1,
                 words=["4 frame", "--history 6", "at least 7", "--history 3"])
        c.check("shifts are still written, whitened.npy is not",
                os.path.exists(os.path.join(out, "shifts.csv")) and not os.path.exists(os.path.join(out, "whitened.npy")))

        # A flat frame: no 2D structure, named; the run goes on and succeeds.
        flat = os.path.join(work, "flat")
        shutil.copytree(folder, flat)
        write_png8(os.path.join(flat, frames[7]), np.full((SIZE[1], SIZE[0]), 90, dtype=np.uint8))
        out = os.path.join(work, "flat_out")
        c.expect("a flat frame is named; the run goes on", [flat, "--out-dir", out, *common], 0,
                 words=[frames[7], "no 2D structure"])
        c.check("its shift is nan", np.isnan(read_csv(os.path.join(out, "shifts.csv"))["dx"][7]))
        c.check("frames.csv calls it flat", read_csv_text(os.path.join(out, "frames.csv"))[7]["verdict"] == "flat")

        # Only flat frames: nothing can be the reference: exit 1 (as --help says), every shift nan.
        all_flat = os.path.join(work, "all_flat")
        os.makedirs(all_flat)
        for i in range(HISTORY + 2):
            write_png8(os.path.join(all_flat, f"flat_{i:02d}.png"), np.full((SIZE[1], SIZE[0]), 90, dtype=np.uint8))
        out = os.path.join(work, "all_flat_out")
        c.expect("only flat frames", [all_flat, "--out-dir", out, *common], 1, words=["no frame had the 2D structure"])
        c.check("every shift is nan", np.all(np.isnan(read_csv(os.path.join(out, "shifts.csv"))["dx"])))

        # A readable garbage frame (noise): named and left out; the run succeeds unless --strict.
        garbage = os.path.join(work, "garbage")
        shutil.copytree(folder, garbage)
        noise = np.random.default_rng(1).integers(0, 256, (SIZE[1], SIZE[0]), dtype=np.uint8)
        write_png8(os.path.join(garbage, frames[10]), noise)
        out = os.path.join(work, "garbage_out")
        c.expect("a garbage frame is named and left out", [garbage, "--out-dir", out, *common], 0,
                 words=[frames[10], "left out", "does not match the reference", "1 left out"])
        c.check("its shift is nan, its whitened frame zero",
                np.isnan(read_csv(os.path.join(out, "shifts.csv"))["dx"][10]) and
                not np.any(np.load(os.path.join(out, "whitened.npy"))[10]))
        c.expect("--strict makes it an error", [garbage, "--out-dir", out, "--overwrite", "--strict", *common], 1,
                 words=["error:", frames[10]])

        # A scene cut: another sky from frame 8 on; a new segment, the history starts again.
        other = os.path.join(work, "other_sky")
        c.expect("another sky", ["--synthetic", "--size", size, "--frames", str(FRAMES), "--seed", "99",
                                 "--save-frames", "--out-dir", other, *common], 0)
        cut = os.path.join(work, "cut")
        shutil.copytree(folder, cut)
        for i in range(8, FRAMES):
            shutil.copy(os.path.join(other, "frames", frames[i - 8]), os.path.join(cut, frames[i]))
        out = os.path.join(work, "cut_out")
        c.expect("a scene cut is named and counted", [cut, "--out-dir", out, *common], 0,
                 words=["scene cut at frame 8", frames[8], "1 scene cut"])
        rows = read_csv_text(os.path.join(out, "frames.csv"))
        c.check("frames.csv: frame 8 starts segment 2, the later frames are used in it",
                rows[8]["verdict"] == "scene-cut" and rows[8]["segment"] == "2" and
                all(r["verdict"] == "used" and r["segment"] == "2" for r in rows[9:]))
        w = np.load(os.path.join(out, "whitened.npy"))
        c.check("the history fills again: frames 8..13 zero, later ones whitened",
                not np.any(w[8:8 + HISTORY]) and all(np.any(w[t]) for t in range(8 + HISTORY, FRAMES)))
        c.expect("--strict makes a cut an error", [cut, "--out-dir", out, "--overwrite", "--strict", *common], 1,
                 words=["error:", "scene cut"])

        # Inputs that are no sequence at all: exit 2, nothing written.
        out = os.path.join(work, "none")
        c.expect("a missing input", [os.path.join(work, "missing"), "--out-dir", out, *common], 2, words=["does not exist"])
        c.expect("a single image", [os.path.join(folder, frames[0]), "--out-dir", out, *common], 2, words=["single image"])
        empty = os.path.join(work, "empty")
        os.makedirs(empty)
        c.expect("a folder without frames", [empty, "--out-dir", out, *common], 2, words=["no frames"])
        c.expect("an unknown pre-filter", [folder, "--out-dir", out, "--method", "nope", "--sigma", "1", *common], 2,
                 words=["unknown method"])
        fifo = os.path.join(work, "pipe")
        os.mkfifo(fifo)
        c.expect("a named pipe is refused at once (never opened)", [fifo, "--out-dir", out, *common], 2,
                 words=["named pipe"], timeout=20)
        c.check("nothing was written for the refused runs", not os.path.exists(os.path.join(out, "shifts.csv")))
        before = sorted(os.listdir(folder))
        c.expect("--out-dir the input folder itself", [folder, "--out-dir", folder + "/", *common], 2,
                 words=["is the input folder"])
        c.check("nothing was written among the frames", sorted(os.listdir(folder)) == before)
        usage = subprocess.run([args.sequence, "--help"], capture_output=True, text=True).stdout
        c.check("--help says the units of the outputs",
                all(w in usage for w in ("in px", "fractions of full scale", "frames.csv", "--strict", "--weights")))

        # A CPU pre-filter through the Method interface.
        out = os.path.join(work, "prefiltered")
        c.expect("a CPU pre-filter", [folder, "--out-dir", out, "--method", "cpu_openmp", "--sigma", "0.8", *common], 0)
        pre = read_csv(os.path.join(out, "shifts.csv"))
        err = np.sqrt(np.mean((pre["dx"] - true["dx"]) ** 2 + (pre["dy"] - true["dy"]) ** 2))
        c.check(f"pre-filtered shifts still match the truth (RMS {err:.4f} px)", err <= 0.05)

        # A video, decoded through FFmpeg, gives the folder's shifts.
        if args.video_writer:
            video = os.path.join(work, "sky.mkv")
            made = subprocess.run([args.video_writer, video, str(FRAMES), str(SIZE[0]), str(SIZE[1]), "1"],
                                  capture_output=True, text=True)
            if c.check("the test video was written", made.returncode == 0, made.stderr):
                out = os.path.join(work, "video_out")
                done = c.expect("a video file", [video, "--out-dir", out, *common], 0)
                c.check("it is described as a video", "video" in done.stderr and "ffv1" in done.stderr)
                v = read_csv(os.path.join(out, "shifts.csv"))
                diff = max(np.max(np.abs(v["dx"] - est["dx"])), np.max(np.abs(v["dy"] - est["dy"])))
                c.check(f"video shifts equal the synthetic run's (max difference {diff:.2e} px)", diff < 2e-3)
            broken = os.path.join(work, "broken.mkv")
            with open(broken, "wb") as fh:
                fh.write(b"\x1aE\xdf\xa3 this is not matroska")
            c.expect("a damaged video", [broken, "--out-dir", os.path.join(work, "broken_out"), *common], 2,
                     words=["broken.mkv"])
        else:
            # A build without FFmpeg says so and what to do, for any video.
            clip = os.path.join(work, "clip.mkv")
            with open(clip, "wb") as fh:
                fh.write(b"\x1aE\xdf\xa3 not decoded in this build")
            c.expect("a video in a build without FFmpeg", [clip, "--out-dir", os.path.join(work, "clip_out"), *common], 2,
                     words=["no video support", "libavformat-dev"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c.summary("gausslab-sequence CLI")


def write_png8(path, array):
    """A minimal grey 8-bit PNG writer (zlib + the chunk CRCs), so the test needs only NumPy."""
    import struct
    import zlib
    h, w = array.shape
    raw = b"".join(b"\x00" + array[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
                 chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    sys.exit(main())
