#!/usr/bin/python3
"""Core's two rules for paths, in every program that writes or opens one (issue 40).

Outputs: an output never replaces an input of the same run, with --overwrite given: the output
named as the input itself, as a symbolic link to it (or into a symbolic link to its folder), and as
a hard link to it. The viewer's --screenshot and --screenshot-view (picture and sequence mode),
gausslab-sequence's previews (the case that replaced 30 16-bit frames with 8-bit previews),
gausslab-bench's results (--codecs) and gausslab-filter's outputs (-o and --out-dir). Each is
refused with exit status 2 and a message naming both paths, and nothing is written: every file
under the test folder keeps its bytes, inode and time, and no file appears.

Opening never blocks: a FIFO with no writer (or a device) given as the sequence tool's input, the
viewer's --sequence and --script, and gausslab-filter's --from-list is refused at once (exit 2,
"FIFO"), where open() used to wait forever (a 60 s limit here reports a hang).

usage: check_inputs_never_overwritten.py --filter F --bench B --viewer V --sequence S --data tests/data
(the viewer's cases are skipped, saying so, where V is not built: the sanitizer build)
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from check_kit import Checks

TIMEOUT_S = 60


def snapshot(folder):
    """Every entry under `folder`: its kind, bytes, inode and modification time."""
    state = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(base, name)
            st = os.lstat(path)
            content = None
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    content = f.read()
            state[os.path.relpath(path, folder)] = (st.st_mode, st.st_ino, st.st_mtime_ns, content)
    return state


def changes(before, after):
    lines = [f"appeared: {p}" for p in sorted(set(after) - set(before))]
    lines += [f"gone: {p}" for p in sorted(set(before) - set(after))]
    lines += [f"changed: {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    return lines


def run(command, cwd):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=cwd,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def refused(c, name, command, cwd, words):
    """The command exits 2 at once with a message holding every word, and changes nothing under cwd."""
    before = snapshot(cwd)
    done = run(command, cwd)
    if done is None:
        c.check(name, False, f"still running after {TIMEOUT_S} s: it blocked")
        return
    after = snapshot(cwd)
    problems = []
    if done.returncode != 2:
        problems.append(f"exit status {done.returncode}, expected 2")
    for word in words:
        if word not in done.stderr:
            problems.append(f"the message does not say {word!r}")
    problems += changes(before, after)
    line = (done.stderr.strip().splitlines() or ["(no message)"])[0]
    c.check(f"{name}: {line}" if not problems else name, not problems, "; ".join(problems) + f"\n      stderr: {line}")


def link_cases(folder, input_name):
    """(label, output name) for the input itself, a symbolic link and a hard link to it, made in folder."""
    os.symlink(input_name, os.path.join(folder, "symlink.png"))
    os.link(os.path.join(folder, input_name), os.path.join(folder, "hardlink.png"))
    return [("the input itself", input_name), ("a symbolic link to it", "symlink.png"),
            ("a hard link to it", "hardlink.png")]


def fresh(work, name):
    folder = os.path.join(work, name)
    os.makedirs(folder)
    return folder


def check_viewer(c, viewer, data, work):
    base = ["--offscreen", "--frames", "2", "--path", "cpu", "--window", "64x48", "--overwrite"]
    for flag in ("--screenshot", "--screenshot-view"):
        folder = fresh(work, "viewer" + flag)
        shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "photo.png"))
        for label, output in link_cases(folder, "photo.png"):
            refused(c, f"gausslab photo.png {flag} = {label}, --overwrite", [viewer, "photo.png", *base, flag, output],
                    folder, ["would replace the input 'photo.png'"])
    # A script is an input too.
    folder = fresh(work, "viewer-script")
    with open(os.path.join(folder, "run.script"), "w") as f:
        f.write("0 sigma 2\n")
    refused(c, "gausslab --script run.script --screenshot run.script", [
        viewer, "--offscreen", "--path", "cpu", "--window", "64x48", "--script", "run.script", "--screenshot", "run.script",
        "--overwrite"], folder, ["would replace the input 'run.script'"])


def make_frames(sequence, folder, count=6):
    """`count` small 16-bit frames in folder/frames (the synthetic sky's)."""
    done = subprocess.run([sequence, "--synthetic", "--frames", str(count), "--size", "48x48", "--history", "2", "--save-frames",
                           "--out-dir", folder, "--quiet"], capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError("could not make frames: " + done.stderr)
    for name in ("shifts.csv", "whitened.npy", "true_shifts.csv", "target_track.csv"):
        if os.path.exists(os.path.join(folder, name)):
            os.remove(os.path.join(folder, name))
    return os.path.join(folder, "frames")


def check_viewer_sequence(c, viewer, sequence, work):
    folder = fresh(work, "viewer-sequence")
    make_frames(sequence, folder)
    os.symlink("frames/frame_00001.png", os.path.join(folder, "symlink.png"))
    os.link(os.path.join(folder, "frames/frame_00001.png"), os.path.join(folder, "hardlink.png"))
    base = ["--sequence", "frames", "--offscreen", "--frames", "2", "--path", "cpu", "--window", "64x48", "--overwrite"]
    for label, output in [("a frame", "frames/frame_00001.png"), ("a symbolic link to a frame", "symlink.png"),
                          ("a hard link to a frame", "hardlink.png")]:
        refused(c, f"gausslab --sequence frames --screenshot = {label}, --overwrite",
                [viewer, *base, "--screenshot", output],
                folder, ["would replace the input 'frames/frame_00001.png'"])


def check_sequence(c, sequence, work):
    # The reported case: the frames in OUT/previews, the previews into OUT/previews.
    folder = fresh(work, "sequence-same")
    frames = make_frames(sequence, folder)
    os.rename(frames, os.path.join(folder, "previews"))
    refused(c, "gausslab-sequence OUT/previews --out-dir OUT --previews --overwrite",
            [sequence, "previews", "--out-dir", ".", "--previews", "--overwrite", "--history", "2"], folder,
            ["would replace the input 'previews/frame_00000.png'", "even with --overwrite"])
    # OUT/previews a symbolic link to the frames' folder.
    folder = fresh(work, "sequence-symlink")
    make_frames(sequence, folder)
    os.makedirs(os.path.join(folder, "out"))
    os.symlink("../frames", os.path.join(folder, "out", "previews"))
    refused(c, "gausslab-sequence frames --out-dir out --previews (out/previews -> frames), --overwrite",
            [sequence, "frames", "--out-dir", "out", "--previews", "--overwrite", "--history", "2"], folder,
            ["would replace the input 'frames/frame_00000.png' (through a symbolic link)"])
    # A preview's name a hard link to a frame.
    folder = fresh(work, "sequence-hardlink")
    make_frames(sequence, folder)
    os.makedirs(os.path.join(folder, "out", "previews"))
    os.link(os.path.join(folder, "frames", "frame_00003.png"), os.path.join(folder, "out", "previews", "frame_00003.png"))
    refused(c, "gausslab-sequence frames --out-dir out --previews (a hard link to frame 3), --overwrite",
            [sequence, "frames", "--out-dir", "out", "--previews", "--overwrite", "--history", "2"], folder,
            ["would replace the input 'frames/frame_00003.png' (a hard link to it)"])
    # Frame files named one by one, one of them in the previews' place.
    folder = fresh(work, "sequence-files")
    frames = make_frames(sequence, folder)
    names = sorted(os.listdir(frames))
    os.makedirs(os.path.join(folder, "out", "previews"))
    os.symlink(os.path.join("..", "..", "frames", names[1]), os.path.join(folder, "out", "previews", "frame_00001.png"))
    refused(c, "gausslab-sequence FILE... --previews (a preview a symbolic link to a frame), --overwrite",
            [sequence, *[os.path.join("frames", n) for n in names], "--out-dir", "out", "--previews", "--overwrite",
             "--history", "2"], folder, ["would replace the input 'frames/" + names[1] + "' (through a symbolic link)"])


def check_bench(c, bench, data, work):
    # The codec rates read images (their format found from the bytes, whatever the name) and write
    # codecs.md and codecs.csv into --out.
    folder = fresh(work, "bench-same")
    os.makedirs(os.path.join(folder, "out"))
    shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "out", "codecs.md"))
    refused(c, "gausslab-bench --codecs out/codecs.md --out out --overwrite",
            [bench, "--codecs", "out/codecs.md", "--out", "out", "--overwrite", "--quick"], folder,
            ["would replace the input 'out/codecs.md'"])
    for label, make_link, how in [("->", os.symlink, "through a symbolic link"), ("a hard link to", os.link, "a hard link to it")]:
        folder = fresh(work, "bench-" + make_link.__name__)
        os.makedirs(os.path.join(folder, "out"))
        shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "photo.png"))
        make_link(os.path.join(folder, "photo.png"), os.path.join(folder, "out", "codecs.csv"))
        refused(c, f"gausslab-bench --codecs photo.png --out out (out/codecs.csv {label} photo.png), --overwrite",
                [bench, "--codecs", "photo.png", "--out", "out", "--overwrite", "--quick"], folder,
                [f"would replace the input 'photo.png' ({how})"])


def check_filter(c, tool, data, work):
    folder = fresh(work, "filter")
    shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "photo.png"))
    cpu = ["--method", "cpu_separable", "--sigma", "2", "--overwrite"]
    for label, output in link_cases(folder, "photo.png"):
        refused(c, f"gausslab-filter photo.png -o ({label}) --overwrite", [tool, "photo.png", "-o", output, *cpu],
                folder, ["would replace the input 'photo.png'"])
    # A batch whose --out-dir holds a hard link to an input under the output's name.
    os.makedirs(os.path.join(folder, "out"))
    os.link(os.path.join(folder, "photo.png"), os.path.join(folder, "out", "photo.png"))
    refused(c, "gausslab-filter photo.png --out-dir out (out/photo.png a hard link to it) --overwrite",
            [tool, "photo.png", "--out-dir", "out", *cpu], folder,
            ["would replace the input 'photo.png' (a hard link to it)"])


def check_fifos(c, tool, viewer, sequence, work):
    folder = fresh(work, "fifo")
    os.mkfifo(os.path.join(folder, "f"))
    offscreen = ["--offscreen", "--frames", "2", "--path", "cpu", "--window", "64x48"]
    refused(c, "gausslab-sequence FIFO --out-dir o", [sequence, "f", "--out-dir", "o"], folder, ["FIFO"])
    if viewer:
        refused(c, "gausslab --sequence FIFO", [viewer, "--sequence", "f", *offscreen], folder, ["FIFO"])
        refused(c, "gausslab --script FIFO", [viewer, "--script", "f", "--offscreen", "--path", "cpu"], folder, ["FIFO"])
    refused(c, "gausslab-filter --from-list FIFO", [tool, "--from-list", "f", "--out-dir", "o", "--sigma", "2"], folder, ["FIFO"])
    refused(c, "gausslab-filter --from-list /dev/zero", [tool, "--from-list", "/dev/zero", "--out-dir", "o", "--sigma", "2"], folder,
            ["device"])
    refused(c, "gausslab-sequence /dev/zero --out-dir o", [sequence, "/dev/zero", "--out-dir", "o"], folder, ["device"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--sequence", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gausslab-inputs-") as work:
        check_filter(c, args.filter, args.data, work)
        check_bench(c, args.bench, args.data, work)
        check_sequence(c, args.sequence, work)
        if os.path.exists(args.viewer):
            check_viewer(c, args.viewer, args.data, work)
            check_viewer_sequence(c, args.viewer, args.sequence, work)
        else:  # the sanitizer build makes the command-line programs only
            print(f"skipped: the viewer's cases ({args.viewer} is not built here)")
        check_fifos(c, args.filter, args.viewer if os.path.exists(args.viewer) else None, args.sequence, work)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
